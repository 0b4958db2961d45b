"""What `assay verify` costs on a one-file project, against plain pytest of the same file: CPU of
every process (a cpuacct group where one can be made), and the CPU of `import assay.cli.verify`
alone, for this checkout and, with `--assay-src DIR`, another one (a `git archive` of an earlier
commit's `src/`), run alternately so that both see the same load. Medians of `--rounds`.

    .venv/bin/python bench/verify_start.py [--assay-src DIR] [--rounds N]
"""

from __future__ import annotations

import argparse
import atexit
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpuacct import Meter  # noqa: E402

METER = Meter()
atexit.register(METER.close)
FILES = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n',
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "tests/test_ops.py": "from calc.ops import add, sub\n\n\ndef test_add():\n"
    "    assert add(1, 2) == 3\n    assert add(-1, 1) == 0\n\n\ndef test_sub():\n"
    "    assert sub(3, 1) == 2\n",
}
IMPORT = (
    "import time; t = time.process_time(); import assay.cli.verify; print(time.process_time() - t)"
)


def _cpu(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    counted = METER.seconds() if METER.group else 0.0
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=METER.join if METER.group else None,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if METER.group:
        return METER.seconds() - counted, proc.stdout
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assay-src", type=Path, help="the other checkout's src/ (before)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="verify-start-"))
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    sides = {"after": base}
    if args.assay_src:
        sides = {"before": {**base, "PYTHONPATH": str(args.assay_src)}, **sides}
    verify = [sys.executable, "-m", "assay", "verify", "tests/test_ops.py", "--no-cache", "-q"]
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_ops.py"]
    got: dict[str, dict[str, list[float]]] = {s: {"verify": [], "import": []} for s in sides}
    plain = []
    for _ in range(args.rounds):
        plain.append(_cpu(pytest, root, {**base, "PYTHONPATH": "src"})[0])
        for side, env in sides.items():
            got[side]["verify"].append(_cpu(verify, root, env)[0])
            got[side]["import"].append(float(_cpu([sys.executable, "-c", IMPORT], root, env)[1]))
    med = statistics.median
    print(f"CPU: {METER.method}; medians of {args.rounds}; plain pytest {med(plain):.2f} s")
    print("| checkout | import assay.cli.verify CPU s | verify CPU s | verify / pytest |")
    print("|---|---|---|---|")
    for side, runs in got.items():
        v = med(runs["verify"])
        print(f"| {side} | {med(runs['import']):.3f} | {v:.2f} | {v / med(plain):.1f}x |")


if __name__ == "__main__":
    main()
