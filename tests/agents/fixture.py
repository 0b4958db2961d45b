"""A tiny project with one good test file and one weak one, shared by the agent-facing tests;
as a git clone whose branch adds the weak file to main, like a pull request."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import write_project

FILES = {
    "calc.py": """
        def clamp(x, lo, hi):
            \"\"\"
            >>> clamp(12, 0, 10)
            10
            \"\"\"
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
    """,
    "tests/test_good.py": """
        from calc import clamp


        def test_below():
            assert clamp(-5, 0, 10) == 0


        def test_above():
            assert clamp(42, 0, 10) == 10


        def test_inside():
            assert clamp(7, 0, 10) == 7


        def test_edges():
            assert clamp(0, 0, 10) == 0
            assert clamp(10, 0, 10) == 10
    """,
    "tests/test_weak.py": """
        from calc import clamp


        def test_runs():
            clamp(3, 0, 10)
    """,
}


# gates 3 and 4 cost most and decide nothing these tests look at: the weak file fails gate 5
LIGHT_GATES = """
[tool.assay]
gates = ["compile", "green", "smells"]
"""


def calc_project(root: Path) -> Path:
    return write_project(root, FILES, LIGHT_GATES)


GIT = ["git", "-c", "user.name=dev", "-c", "user.email=dev@example.com"]


def pull_request(tmp: Path) -> Path:
    """`upstream` on main without the weak test; its clone `work` on a branch that adds it."""
    upstream = calc_project(tmp / "upstream")
    (upstream / "tests" / "test_weak.py").unlink()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=upstream, check=True)
    subprocess.run(["git", "add", "-A"], cwd=upstream, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=upstream, check=True)
    work = tmp / "work"
    subprocess.run(["git", "clone", "-q", str(upstream), str(work)], check=True)
    subprocess.run(["git", "checkout", "-qb", "feature"], cwd=work, check=True)
    calc_project(work)  # writes the weak test back
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run([*GIT, "commit", "-qm", "a weak test"], cwd=work, check=True)
    return work
