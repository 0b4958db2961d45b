"""assay's offline writer vs Pynguin 0.48 on the same modules with the same time budget, in one run.

Run by hand (not a test):
  .venv/bin/python bench/offline_vs_pynguin.py [--budget 60] [--only shop] [--seed 1]
      [--tool assay|pynguin|both]

`--tool pynguin` runs Pynguin alone and keeps each module's figures under bench/.cache (it is slow:
run it once, in the background); `--tool assay` then reads them back for the table.
`--set field` picks six modules of the field projects (bench/field, set up by its prepare.py under
/tmp/assay-field/projects) instead of the modules the writer was tuned on.

Per module, for each tool, on a fresh copy of the project:
- tests produced: as pytest counts them (a parametrized case once per row) and, in parentheses, as
  test functions - how Pynguin's test cases are counted (one function each), the count the goal
  "fewer tests" uses (both are printed under the table);
- tests that pass assay's gates 1-5 (profile `generated`): the file is verified, the tests a gate
  rejects by name (failing, flaky, smelly, xfail) are removed and the rest verified again until the
  file is accepted - the *kept* suite; a file rejected as a whole (gate 4 under its threshold)
  keeps nothing;
- the mutation score of the kept suite over the whole module, measured by `assay mutate`;
- lines of test code of the kept suite (non-blank, non-comment) and the tool's wall time.
assay gets `--budget` for everything (probe and gates); Pynguin gets it as `--maximum-search-time`,
its assertion generation and minimisation come on top (its wall time is shown). Pynguin runs in its
own venv under Python 3.10 (bench/.cache/pynguin-venv, installed from PyPI on first use), with
PYNGUIN_DANGER_AWARE=1, outside assay's sandbox: only on these known projects.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from sdists import CACHE, fetch  # noqa: E402

from assay import api  # noqa: E402
from assay.config import load_settings  # noqa: E402
from assay.model import Verdict  # noqa: E402
from assay.writers.offline import generate_offline  # noqa: E402
from assay.writers.offline.markers import marker_problem  # noqa: E402
from assay.writers.offline.verification import verify_settings  # noqa: E402

PROJECTS = {
    "shop": {
        "root": REPO / "examples" / "shop",
        "source": "src",
        "modules": ["src/shop/pricing.py", "src/shop/parser.py", "src/shop/inventory.py"],
    },
    "inflection": {
        "spec": "inflection==0.5.1",
        "source": ".",
        "modules": ["inflection/__init__.py"],
    },
    "toolz": {
        "spec": "toolz==1.2.0",
        "source": ".",
        "modules": ["toolz/dicttoolz.py", "toolz/itertoolz.py"],
    },
}
FIELD = Path("/tmp/assay-field/projects")
# six modules of the field projects the writer was not tuned on (a project's .venv is not copied)
FIELD_PROJECTS = {
    "humanize": {
        "root": FIELD / "humanize-4.11.0",
        "source": "src",
        "modules": ["src/humanize/number.py"],
    },
    "semver": {
        "root": FIELD / "semver-3.0.2",
        "source": "src",
        "modules": ["src/semver/version.py"],
    },
    "tabulate": {
        "root": FIELD / "tabulate-0.9.0",
        "source": ".",
        "modules": ["tabulate/__init__.py"],
    },
    "isodate": {
        "root": FIELD / "isodate-0.7.2",
        "source": "src",
        "modules": ["src/isodate/isodates.py"],
    },
    "inflection-field": {
        "root": FIELD / "inflection-0.5.1",
        "source": ".",
        "modules": ["inflection/__init__.py"],
    },
    "toolz-field": {
        "root": FIELD / "toolz-1.2.0",
        "source": ".",
        "modules": ["toolz/itertoolz.py"],
    },
}
SETS = {"tuned": PROJECTS, "field": FIELD_PROJECTS}
ALL = {**PROJECTS, **FIELD_PROJECTS}
RUNS = CACHE / "offline_vs_pynguin"
NOTHING = {"produced": 0, "kept": 0, "score": None, "lines": 0, "wall_s": 0, "note": "not run"}


def pynguin_exe(python: str | None) -> Path:
    venv = CACHE / "pynguin-venv"
    exe = venv / "bin" / "pynguin"
    if not exe.exists():
        found = [
            python,
            *sorted(map(str, Path.home().glob(".pyenv/versions/3.10*/bin/python"))),
            shutil.which("python3.10"),
        ]
        py = next(
            (
                p
                for p in found
                if p and subprocess.run([p, "--version"], capture_output=True).returncode == 0
            ),
            None,
        )
        if py is None:
            sys.exit("Pynguin 0.48 needs Python 3.10: pass --pynguin-python")
        subprocess.run([py, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "pynguin==0.48.0"], check=True)
    return exe


def fresh_copy(name: str, tool: str) -> Path:
    spec = ALL[name]
    src = spec["root"] if "root" in spec else fetch(spec["spec"])
    dest = RUNS / tool / name
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(
        src,
        dest,
        ignore=shutil.ignore_patterns(
            ".assay", "__pycache__", "*.egg-info", ".venv", ".tox", "build", "mutants"
        ),
    )
    if (src / ".venv").is_dir():  # a field project's interpreter (its assay configuration names it)
        (dest / ".venv").symlink_to(src / ".venv")
    return dest


def register_markers(root: Path) -> None:
    """What the writer asks of a project whose pytest configuration fails on
    unregistered marks (toolz: --strict-markers), done in the bench's copy: the two
    lines under [tool.pytest.ini_options]."""
    problem = marker_problem(root)
    pyproject = root / "pyproject.toml"
    if problem and problem[1] and pyproject.is_file():
        text = pyproject.read_text()
        line = (
            'markers = ["assay_generated: written by assay", '
            '"characterization: pins current behaviour"]\n'
        )
        pyproject.write_text(
            text.replace("[tool.pytest.ini_options]\n", "[tool.pytest.ini_options]\n" + line, 1)
        )


def dotted(rel: str, source: str) -> str:
    parts = Path(rel).relative_to(source).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def tests_in(text: str) -> list[ast.FunctionDef]:
    return [
        n
        for n in ast.parse(text).body
        if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
    ]


def cases(text: str) -> int:
    """Test cases as pytest counts them: a parametrized test once per row."""
    total = 0
    for fn in tests_in(text):
        rows = 1
        for dec in fn.decorator_list:
            if (
                isinstance(dec, ast.Call)
                and ast.unparse(dec.func).endswith("parametrize")
                and len(dec.args) > 1
            ):
                values = dec.args[1]
                rows *= len(values.elts) if isinstance(values, (ast.List, ast.Tuple)) else 1
        total += rows
    return total


def code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def without(text: str, names: set[str]) -> str:
    """The test file without the test functions named."""
    lines = text.splitlines(keepends=True)
    cut = []
    for fn in tests_in(text):
        if fn.name in names:
            first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
            cut.append((first, fn.end_lineno or fn.lineno))
    keep = [line for i, line in enumerate(lines, 1) if not any(a <= i <= b for a, b in cut)]
    return "".join(keep)


def keep_through_gates(root: Path, rel: str) -> tuple[str, str]:
    """Verify the file, drop the tests a gate rejects by name, again until accepted; (kept
    text, verdict)."""
    settings = verify_settings(load_settings(root))
    path = root / rel
    for _ in range(6):
        text = path.read_text()
        if not tests_in(text):
            return text, "no test left"
        report = api.verify([path], settings, root=root)
        [file] = report.files
        if file.verdict is Verdict.ACCEPTED:
            return text, "accepted"
        bad = {
            t.id.split("::")[-1].split("[")[0]
            for t in file.tests
            if t.verdict is not Verdict.ACCEPTED
            and (t.gate is not None or t.verdict is not Verdict.UNVALIDATED)
        }
        if not bad:
            path.write_text(without(text, {f.name for f in tests_in(text)}))
            return "", f"{file.verdict.value} at {file.rejected_at} (whole file)"
        path.write_text(without(text, bad))
    return path.read_text(), "not accepted after 6 rounds"


def score(root: Path, module: str, rel: str) -> float | None:
    if not tests_in((root / rel).read_text()):
        return 0.0
    try:
        report = api.mutate([root / module], [root / rel], root=root, threshold=0, use_cache=False)
    except Exception as err:  # noqa: BLE001 - a suite the engine cannot run scores nothing
        print(f"    mutate failed: {err}", file=sys.stderr)
        return None
    s = report.run.score
    return None if s is None else round(100 * s, 1)


def run_assay(name: str, module: str, budget: float, max_tests: int) -> dict:
    root = fresh_copy(name, "assay")
    register_markers(root)
    start = time.monotonic()
    report = generate_offline(
        [root / module], budget_s=budget, root=root, max_tests_per_function=max_tests
    )
    wall = time.monotonic() - start
    [result] = report.modules
    if not result.written or not result.test_path:
        # the writer's own cause: its notes, and the first function's reason
        why = [*result.notes, *(f"{f.name}: {f.reason}" for f in result.functions if f.reason)]
        return {
            "produced": 0,
            "kept": 0,
            "score": 0.0,
            "lines": 0,
            "wall_s": round(wall, 1),
            "note": "; ".join([result.verdict or "", *why[:2]]),
            "score_produced": 0.0,
            "produced_lines": 0,
        }
    out = judge(root, module, result.test_path, wall, "")
    # what the writer said (the tests it left out after gate 4, which test subsumes each), and
    # the slowdown it read: the JSON row, not the table
    out["writer_notes"] = result.notes
    out["slowdown"] = round(result.timings.get("slowdown", 0.0), 1)
    return out


def run_pynguin(name: str, module: str, budget: float, exe: Path, seed: int) -> dict:
    root = fresh_copy(name, "pynguin")
    spec = ALL[name]
    out = root / "pynguin_out"
    env = {**os.environ, "PYNGUIN_DANGER_AWARE": "1"}
    start = time.monotonic()
    argv = [
        str(exe),
        "--project-path",
        str(root / spec["source"]),
        "--module-name",
        dotted(module, spec["source"]),
        "--output-path",
        str(out),
        "--maximum-search-time",
        str(int(budget)),
        "--seed",
        str(seed),
    ]
    # its worker processes too are killed below
    proc = subprocess.Popen(
        argv,
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        note = "" if proc.wait(timeout=max(budget * 10, 600)) == 0 else f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        note = "timed out"
    wall = time.monotonic() - start
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = sorted(out.glob("test_*.py")) if out.exists() else []
    if not written:
        return {
            "produced": 0,
            "kept": 0,
            "score": 0.0,
            "lines": 0,
            "wall_s": round(wall, 1),
            "note": note or "no file",
            "score_produced": 0.0,
            "produced_lines": 0,
        }
    tests_dir = root / ("tests" if (root / "tests").is_dir() else "")
    rel = (tests_dir / f"test_{Path(module).stem}_pynguin.py").relative_to(root).as_posix()
    shutil.copy(written[0], root / rel)
    shutil.rmtree(out)
    return judge(root, module, rel, wall, note)


def judge(root: Path, module: str, rel: str, wall: float, note: str) -> dict:
    """A tool's file: its own figures, then the gates' kept suite and its figures (the file as
    produced is kept beside it, as `<name>.produced.txt`)."""
    text = (root / rel).read_text()
    (root / rel).with_suffix(".produced.txt").write_text(text)
    raw = score(root, module, rel)
    kept, verdict = keep_through_gates(root, rel)
    return {
        "produced": cases(text),
        "produced_functions": len(tests_in(text)),
        "produced_lines": code_lines(text),
        "score_produced": raw,
        "kept": cases(kept) if kept else 0,
        "kept_functions": len(tests_in(kept)) if kept else 0,
        "score": score(root, module, rel),
        "lines": code_lines(kept),
        "wall_s": round(wall, 1),
        "note": (note + " " + verdict).strip(),
    }


def goals(rows: list[dict]) -> str:
    """The issue's goal per module: a higher score than Pynguin's kept suite, with fewer tests.
    Tests are counted as Pynguin's test cases are: one test function each (a Pynguin case is one
    function with its statements and assertions; an assay parametrized function is one test, its
    rows its cases) - pytest's count (one per row) is given beside it."""
    won = [r for r in rows if (r["assay"]["score"] or 0) > (r["pynguin"]["score"] or 0)]
    # where Pynguin kept nothing there is no count to be under
    both = [r for r in won if r["pynguin"]["kept"]]
    fewer = [r for r in both if r["assay"].get("kept_functions", 0) < r["pynguin"]["kept"]]
    fewer_rows = [r for r in both if r["assay"]["kept"] < r["pynguin"]["kept"]]
    return (
        f"assay's kept suite scores higher on {len(won)} of {len(rows)} modules (goal: 5 of 6); "
        f"of the {len(both)} of those where Pynguin kept a test, assay has fewer tests on "
        f"{len(fewer)} counted as test functions (Pynguin's test cases are one function each), "
        f"on {len(fewer_rows)} counted as pytest counts them (a parametrized row each)"
    )


def table(rows: list[dict]) -> str:
    head = (
        "| project | module | tool | tests produced: pytest cases (functions) "
        "| pass gates 1-5: cases (functions) "
        "| mutation score, kept suite "
        "| (whole suite as produced) | lines kept (produced) | wall s | note |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|"
    )
    body = []

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:g}%"

    for r in rows:
        for tool in ("assay", "pynguin"):
            t = r[tool]
            body.append(
                f"| {r['project']} | `{r['module']}` | {tool} | {t['produced']} "
                f"({t.get('produced_functions', 0)}) "
                f"| {t['kept']} ({t.get('kept_functions', 0)}) | "
                f"{pct(t['score'])} | ({pct(t.get('score_produced'))}) | {t['lines']} "
                f"({t.get('produced_lines', 0)}) | {t['wall_s']} | {t['note']} |"
            )
    return head + "\n" + "\n".join(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--budget", type=float, default=60.0, help="seconds per module for each tool"
    )
    parser.add_argument("--only", choices=sorted(ALL), action="append")
    parser.add_argument("--set", choices=sorted(SETS), default="tuned", help="which modules")
    parser.add_argument("--tool", choices=("both", "assay", "pynguin"), default="both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-tests", type=int, default=20, help="assay's tests per function")
    parser.add_argument(
        "--skip-pynguin", action="store_true", help="assay only (Pynguin's figures left empty)"
    )
    parser.add_argument("--pynguin-python", help="a Python 3.10 for Pynguin's venv")
    args = parser.parse_args()
    if args.skip_pynguin:
        args.tool = "assay"
    exe = Path() if args.tool == "assay" else pynguin_exe(args.pynguin_python)
    load_at_start = os.getloadavg()
    rows = []
    for name in args.only or list(SETS[args.set]):
        for module in ALL[name]["modules"]:
            row = {"project": name, "module": module}
            for tool in ("assay", "pynguin"):
                kept = (
                    RUNS
                    / "figures"
                    / f"{tool}-{name}-{module.replace('/', '_')}-{args.budget:g}.json"
                )
                if args.tool in (tool, "both"):
                    print(f"{name} {module}: {tool} ...", file=sys.stderr, flush=True)
                    row[tool] = (
                        run_assay(name, module, args.budget, args.max_tests)
                        if tool == "assay"
                        else run_pynguin(name, module, args.budget, exe, args.seed)
                    )
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    kept.write_text(json.dumps(row[tool]))
                else:  # the other tool's figures from an earlier run, when there are some
                    row[tool] = json.loads(kept.read_text()) if kept.is_file() else NOTHING
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    uptime = re.sub(
        r"\s+", " ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    )
    print(table(rows))
    print("\n" + goals(rows))
    print(
        f"\nbudget {args.budget:g} s per module and tool, "
        f"assay --max-tests {args.max_tests}; machine: "
        f"{os.cpu_count()} cores, load average at the start "
        f"{' '.join(f'{v:.1f}' for v in load_at_start)}, at the end: {uptime}"
    )
    out = RUNS / f"results-{'-'.join(args.only or ['all'])}-max{args.max_tests}.json"
    out.write_text(
        json.dumps({"budget": args.budget, "max_tests": args.max_tests, "rows": rows}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
