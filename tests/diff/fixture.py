"""A small git repository with the scripted change of issue 29: a planted bug whose test
expectation was edited to match, a new function, a new raise branch, one test deleted, one skipped,
a weak test file added. Real `git`; nothing is committed after the base."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import write_project

CORE = """\
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def mean(xs):
    return sum(xs) / len(xs)


def scale(xs, k):
    out = []
    for x in xs:
        if x > 0:
            out.append(x * k)
        else:
            out.append(x - k)
    return out
"""
TESTS = """\
import pytest

from calc.core import clamp, mean, scale


def test_clamp_upper():
    assert clamp(42, 0, 10) == 10


def test_clamp_lower():
    assert clamp(-5, 0, 10) == 0


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_scale():
    assert scale([1, -1], 3) == [3, -4]
"""
OTHER = "def double(x):\n    return x * 2\n"
OTHER_TESTS = "from calc.other import double\n\n\ndef test_double():\n    assert double(3) == 6\n"

CHANGED_CORE = (
    CORE.replace("        return hi\n", "        return hi - 1\n")  # the planted bug
    .replace(
        "def mean(xs):\n",
        'def mean(xs):\n    if not xs:\n        raise ValueError("mean of nothing")\n',
    )  # a new raise branch
    .replace("def scale", "def span(xs):\n    return max(xs) - min(xs)\n\n\ndef scale")
)
CHANGED_TESTS = (
    TESTS.replace("== 10\n", "== 9\n")  # the expectation fitted to the bug
    .replace("def test_clamp_lower():\n    assert clamp(-5, 0, 10) == 0\n\n\n", "")
    .replace("def test_mean", '@pytest.mark.skip(reason="slow")\ndef test_mean')
)
WEAK = "from calc.core import span\n\n\ndef test_span():\n    span([1, 5])\n"
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
ENV["GIT_COMMITTER_EMAIL"] = "t@t"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, env=ENV, check=True, capture_output=True, text=True
    ).stdout


def scripted_change(root: Path) -> Path:
    """The base committed on `main`, the change left in the working tree (the weak file
    untracked)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    write_project(
        root,
        {
            "src/calc/__init__.py": "",
            "src/calc/core.py": CORE,
            "src/calc/other.py": OTHER,
            "tests/test_core.py": TESTS,
            "tests/test_other.py": OTHER_TESTS,
        },
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    (root / "src/calc/core.py").write_text(CHANGED_CORE)
    (root / "tests/test_core.py").write_text(CHANGED_TESTS)
    (root / "tests/test_span.py").write_text(WEAK)
    return root
