"""Gates 1-3 (compile, green, stability) of `assay verify` on field projects already set up by
`run.py`, against plain pytest of the same files: CPU seconds of every process, for this checkout
and, with `--assay-src DIR`, another one (a `git archive` of an earlier commit's `src/`), run
alternately per project so that both see the same load. The verdicts of the two checkouts are
compared file by file.

    .venv/bin/python bench/field/gates13.py [--only NAME ...] [--assay-src DIR] [--rounds N]
        [--gates compile,green]   # another list of gates (gate 3's share: with and without it)
        [--after-src DIR]         # this checkout's src/ from a copy (`git archive` of a commit)
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from cpuacct import Meter  # noqa: E402
from prepare import INTERPRETER, load  # noqa: E402

METER = Meter()
atexit.register(METER.close)

# runs in a child: verify limited to gates 1-3, its verdicts on stdout
PROBE = """
import json, sys
from pathlib import Path
from assay import api
from assay.config import load_settings
root = Path(sys.argv[1])
gates = sys.argv[3].split(",")
s = load_settings(root).model_copy(update={"gates": gates, "cache": False})
report = api.verify([root / sys.argv[2]], s)
print(json.dumps(sorted(
    [f.path, f.verdict.value, f.rejected_at, sorted([t.id, t.verdict.value] for t in f.tests)]
    for f in report.files
)))
"""


def _cpu_of(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """CPU seconds of `cmd` and every process it started (a cpuacct group where one can be made:
    under bwrap the tests' processes are reaped by its pid-1 helper, which rusage never sees), and
    its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    counted = METER.seconds() if METER.group else 0.0
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
        preexec_fn=METER.join if METER.group else None,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd[:3])}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if METER.group:
        cpu = METER.seconds() - counted
    return round(cpu, 2), proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/assay-field"))
    parser.add_argument("--assay-src", type=Path, help="the other checkout's src/ (before)")
    parser.add_argument(
        "--after-src", type=Path, help="this side's src/ from a copy (edits during a run stay out)"
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--gates", default="compile,green,stability", help="e.g. compile,green: gate 3's share"
    )
    args = parser.parse_args()
    print(f"CPU: {METER.method}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    after_path = {"PYTHONPATH": str(args.after_src)} if args.after_src else {}
    print(
        "| project | files | pytest CPU s | gates 1-3 CPU s before | after | before/pytest "
        "| after/pytest | verdicts |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for project in load(HERE / "projects.toml"):
        if args.only and project.name not in args.only:
            continue
        root = next(args.workdir.joinpath("projects").glob(f"{project.name}-{project.version}"))
        pytest = [str(root / INTERPRETER), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        os.chdir(root)
        base, _ = _cpu_of([*pytest, project.tests, *project.pytest_args], env)
        probe = [sys.executable, "-c", PROBE, str(root), project.tests, args.gates]
        before, after, verdicts = [], [], []
        for _ in range(args.rounds):
            if args.assay_src:
                cpu, out = _cpu_of(probe, {**env, "PYTHONPATH": str(args.assay_src)})
                before.append(cpu)
                verdicts.append(json.loads(out))
            cpu, out = _cpu_of(probe, {**env, **after_path})
            after.append(cpu)
            verdicts.append(json.loads(out))
        same = all(v == verdicts[0] for v in verdicts)
        b = statistics.median(before) if before else None
        a = statistics.median(after)
        print(
            f"| {project.name} {project.version} | {len(verdicts[0])} | {base} | "
            f"{b if b is not None else '-'} | {a} | {f'{b / base:.1f}x' if b else '-'} | "
            f"{a / base:.1f}x | {'same' if same else 'DIFFERENT'} |",
            flush=True,
        )
        if not same:
            print(json.dumps(verdicts), file=sys.stderr)


if __name__ == "__main__":
    main()
