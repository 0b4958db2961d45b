"""Helpers of the offline writer's render tests: a kept case built by hand, the test functions of a
rendered file, and a plain pytest run of it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from assay.writers.offline.probe import Kept


def case(id_: str, fn: str, expr: str, *args: str, kills=(), lines=(), **kwargs: str) -> Kept:
    """A case of `fn(*args, **kwargs)` returning `expr`, killing `kills`, running `lines`."""
    inp = {"args": list(args), "kwargs": kwargs, "receiver": None, "origin": "tests"}
    return Kept(id_, fn, inp, {"k": "return", "expr": expr, "imports": []}, set(lines), set(kills))


def functions_of(text: str) -> dict[str, ast.FunctionDef]:
    """The top-level functions of a rendered test file, by name."""
    return {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}


def run_pytest(root: Path, text: str) -> int:
    """Plain pytest's exit code on `text` written as the project's tests/test_gen.py."""
    (root / "tests" / "test_gen.py").write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_gen.py"],
        cwd=root,
        capture_output=True,
        timeout=120,
    ).returncode
