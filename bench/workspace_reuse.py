"""What reusing one workspace saves in a repair loop: three attempts at one test file, each verified
in a fresh copy of the project (before) or in one copy reset between attempts (now).

Run by hand:  .venv/bin/python bench/workspace_reuse.py
Projects: toolz 1.2.0 and more-itertools 11.2.1 (sdists), and a synthetic tree of 3,000 files / 60
MB (the size of a mid-sized service repository). Each attempt writes the candidate over the copy
and leaves what a test run leaves (bytecode, a data file, a changed source file); the reset must
undo it.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sdists import fetch  # noqa: E402

from assay.execution.workspace import Workspace  # noqa: E402

ATTEMPTS = 3
REPEATS = 5


def synthetic() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-ws-")) / "big"
    for i in range(3000):
        path = root / f"pkg{i % 30}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# module {i}\n" + "x = 1\n" * 3000)  # ~20 KB each
    (root / "pyproject.toml").write_text('[project]\nname = "big"\n')
    return root


def attempt(ws: Workspace, n: int, victim: str) -> None:
    """What one attempt leaves behind: the candidate, bytecode, a data file, a rewritten
    source file."""
    ws.apply({"tests/test_candidate.py": f"def test_attempt():\n    assert {n} == {n}\n"})
    (ws.project / "__pycache__").mkdir(exist_ok=True)
    (ws.project / "__pycache__" / "x.pyc").write_bytes(b"\0" * 2048)
    (ws.project / "out.json").write_text("{}")
    (ws.project / victim).write_text("# damaged\n")


def fresh_copies(root: Path, victim: str) -> float:
    start = time.perf_counter()
    for n in range(ATTEMPTS):
        with Workspace(root) as ws:
            attempt(ws, n, victim)
    return time.perf_counter() - start


def one_reused(root: Path, victim: str) -> float:
    start = time.perf_counter()
    with Workspace(root) as ws:
        for n in range(ATTEMPTS):
            attempt(ws, n, victim)
            ws.reset()
    return time.perf_counter() - start


def main() -> None:
    projects = {
        "toolz 1.2.0": (fetch("toolz==1.2.0"), "toolz/itertoolz.py"),
        "more-itertools 11.2.1": (fetch("more-itertools==11.2.1"), "more_itertools/recipes.py"),
        "synthetic 3,000 files / 60 MB": (synthetic(), "pkg0/mod0.py"),
    }
    print(f"| project | files | {ATTEMPTS} fresh copies | 1 copy + {ATTEMPTS} resets | saving |")
    print("|---|---:|---:|---:|---:|")
    for name, (root, victim) in projects.items():
        files = sum(1 for p in root.rglob("*") if p.is_file())
        before = statistics.median(fresh_copies(root, victim) for _ in range(REPEATS))
        now = statistics.median(one_reused(root, victim) for _ in range(REPEATS))
        print(
            f"| {name} | {files} | {before * 1000:.0f} ms "
            f"| {now * 1000:.0f} ms | {before / now:.1f}× |"
        )


if __name__ == "__main__":
    main()
