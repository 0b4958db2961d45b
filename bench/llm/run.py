"""`assay generate` with a real local model on real modules, every answer accounted for.

  python bench/llm/run.py                 # the model (bench/llm/serve.py fetches, builds, serves)
  python bench/llm/run.py --replay        # the recorded answers, no model (bench/llm/replay/)
  python bench/llm/run.py --base-url URL  # a server already running (OpenAI-compatible)
  python bench/llm/run.py --replay --keep DIR  # and keep the work tree and JSON reports in DIR

Modules: the bundled example's three (`examples/shop`) and eight targets in `inflection/__init__.py`
of inflection 0.5.1 (sdist from PyPI). Live runs record every answer to
`bench/llm/replay/<project>.jsonl`; `--replay` serves those answers from a local fake OpenAI
server (by prompt hash, else in recorded order), so the run repeats without the model. Prints,
per writer answer: the tests it gave that were kept, or the cause it was lost (parse, compile,
green, flaky, gate 4, smells, review ...); then the share of answers that yielded at least one
kept test (the goal: >= 50%).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))
REPLAYS = HERE / "replay"
WRITER_KINDS = ("write", "revise", "rewrite", "review-revise")
CONFIG = """
[tool.assay.llm]
max_output_tokens = 1000
temperature = 0.2
timeout_s = 1800
retries = 1
"""


@dataclass
class Project:
    name: str
    targets: list[str]

    def setup(self, tmp: Path) -> Path:
        if self.name == "shop":
            root = tmp / "shop"
            shutil.copytree(
                REPO / "examples" / "shop",
                root,
                ignore=shutil.ignore_patterns("__pycache__", ".assay"),
            )
            with (root / "pyproject.toml").open("a") as f:
                f.write(CONFIG)
            return root
        from bench.sdists import fetch

        root = tmp / self.name
        shutil.copytree(fetch(self.name.replace("-", "==")), root)
        (root / "assay.toml").write_text(CONFIG.replace("[tool.assay.llm]", "[llm]"))
        return root


PROJECTS = [
    Project("shop", ["src/shop/pricing.py", "src/shop/inventory.py", "src/shop/parser.py"]),
    # the module (its one function the tests leave partly unrun) and seven it covers, by name
    Project(
        "inflection-0.5.1",
        [
            "inflection/__init__.py",
            "inflection/__init__.py::ordinal",
            "inflection/__init__.py::camelize",
            "inflection/__init__.py::underscore",
            "inflection/__init__.py::humanize",
            "inflection/__init__.py::parameterize",
            "inflection/__init__.py::titleize",
            "inflection/__init__.py::ordinalize",
        ],
    ),
]


@dataclass
class Answer:
    """One writer answer and what became of it."""

    target: str
    kind: str
    kept: int  # tests of this answer (or of its split) that passed every gate
    cause: str  # "" when kept, else why it was lost
    completion_tokens: int
    seconds: float
    copied: bool = False  # a pasted copy of the code under test was taken out of it


def cause_of(rec: dict) -> str:
    """Why an answer (or the file made of it) was not kept, in the bench's words."""
    if rec.get("problem"):
        what = rec["problem"].splitlines()[0].split("—")[-1].strip().lower()
        return "unchanged resend" if what == "unchanged" else f"parse: {what}"
    gate = rec.get("rejected_at")
    if rec.get("verdict") == "flaky" or gate == "stability":
        return "flaky"
    named = {"mutation": "gate 4", "compile": "compile", "green": "green", "smells": "smells"}
    if gate:
        return named.get(gate, gate)
    return rec.get("verdict") or "unknown"


def answers(report: dict) -> list[Answer]:
    """Every writer answer in the report; the checks that followed it (salvage, split, final) are
    its own, and so is the split at the end of the file it made. An answer counts as kept when a
    file made of it passed every gate and the target kept tests."""
    out: list[Answer] = []
    for t in report["targets"]:
        groups: list[list[dict]] = []
        current = -1
        for rec in t["attempts"]:
            if rec["kind"] in WRITER_KINDS:
                groups.append([rec])
                current = len(groups) - 1
            elif groups and rec["kind"] != "review":
                if rec.get("answer"):  # the salvage at the end split this answer's file
                    current = min(rec["answer"], len(groups)) - 1
                groups[current].append(rec)
        for group in groups:
            head, calls = group[0], group[0]["calls"]
            kept = max(
                (r["kept"] for r in group if r.get("verdict") == "accepted" and r.get("kept")),
                default=0,
            )
            if not t["kept_tests"]:
                kept = 0
            cause = "" if kept else cause_of(group[-1] if group[-1].get("verdict") else head)
            out.append(
                Answer(
                    t["id"],
                    head["kind"],
                    kept,
                    cause,
                    sum(c["completion_tokens"] for c in calls),
                    sum(c["duration_s"] for c in calls),
                    bool(head.get("copied")),
                )
            )
    return out


def run_generate(root: Path, targets: list[str], env: dict[str, str], record: Path | None) -> dict:
    out = root.parent / f"{root.name}-report.json"
    cmd = [sys.executable, "-m", "assay", "generate", *targets, "--writer", "openai:local"]
    cmd += ["--jobs", "1", "--no-cache", "--dry-run", "-f", "json", "-o", str(out)]
    cmd += ["--record", str(record)] if record else []
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    if not out.exists():
        sys.exit(f"generate failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(out.read_text())


def wait_for(url: str, server: subprocess.Popen) -> None:
    for _ in range(600):
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2)
            return
        except OSError:
            if server.poll() is not None:
                sys.exit("the model server exited; see bench/out/llama-server.log")
            time.sleep(0.5)
    sys.exit("the model server did not come up within 300 s")


def print_table(rows: list[Answer], live: bool) -> None:
    print(f"\n{'target':44} {'answer':14} {'kept':>4}  cause lost")
    for a in rows:
        note = " (a pasted copy taken out)" if a.copied else ""
        print(f"{a.target[:44]:44} {a.kind:14} {a.kept:>4}  {a.cause}{note}")
    good = sum(a.kept > 0 for a in rows)
    print(
        f"\nanswers {len(rows)}; yielding >= 1 kept test: {good} ({good / max(1, len(rows)):.0%})"
    )
    causes = Counter(a.cause for a in rows if not a.kept)
    print(
        "lost answers by cause: " + (", ".join(f"{c} {n}" for c, n in causes.most_common()) or "-")
    )
    if live:
        tokens = sum(a.completion_tokens for a in rows)
        secs = sum(a.seconds for a in rows)
        rate = tokens / max(secs, 1e-9)
        print(
            f"completion tokens {tokens:,} in {secs:.0f} s of calls ({rate:.1f}/s, prompt included)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--replay", action="store_true", help="serve the recorded answers; no model")
    ap.add_argument(
        "--base-url", "--url", dest="url", help="an OpenAI-compatible server already running (…/v1)"
    )
    ap.add_argument("--only", help="one project by name (shop, inflection-0.5.1)")
    ap.add_argument(
        "--keep", type=Path, help="work in this directory and keep it (<project>-report.json)"
    )
    args = ap.parse_args()
    projects = [p for p in PROJECTS if not args.only or p.name == args.only]
    (REPO / "bench" / "out").mkdir(exist_ok=True)
    server: subprocess.Popen | None = None
    url = args.url
    if not args.replay and not url:
        from bench.llm.serve import build, fetch, server_command, server_env

        port = 8741
        log = open(REPO / "bench" / "out" / "llama-server.log", "w")  # noqa: SIM115
        server = subprocess.Popen(
            server_command(build(), fetch(), port, min(2, os.cpu_count() or 2)),
            env=server_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}/v1"
        wait_for(url, server)
    rows: list[Answer] = []
    try:
        with tempfile.TemporaryDirectory(prefix="assay-bench-llm-") as scratch:
            tmp = args.keep or scratch
            if args.keep:
                shutil.rmtree(args.keep, ignore_errors=True)
                args.keep.mkdir(parents=True)
            for project in projects:
                root = project.setup(Path(tmp))
                replay = REPLAYS / f"{project.name}.jsonl"
                env = dict(os.environ)
                env.pop("OPENAI_API_KEY", None)
                if args.replay:
                    rows += replayed(project, root, replay, env)
                    continue
                env["OPENAI_BASE_URL"] = url or ""
                report = run_generate(root, project.targets, env, replay)
                rows += answers(report)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    print_table(rows, live=not args.replay)


def replayed(project: Project, root: Path, replay: Path, env: dict[str, str]) -> list[Answer]:
    from tests.generate.fakes import FakeServer, Replayed

    records = [json.loads(ln) for ln in replay.read_text().splitlines() if ln.strip()]
    script = Replayed(records)
    with FakeServer("openai", script) as fake:
        env["OPENAI_BASE_URL"] = fake.url
        report = run_generate(root, project.targets, env, None)
    print(
        f"{project.name}: {len(records)} recorded answers; served {script.by_hash} by prompt, "
        f"{script.by_order} in recorded order, {script.missing} missing"
    )
    return answers(report)


if __name__ == "__main__":
    main()
