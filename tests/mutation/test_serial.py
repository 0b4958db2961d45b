"""Patch mutants share a forked child while it stays as the fork gave it; a mutant whose tests
write module state ends its child, so the next mutant sees the state a fresh process has; no test
runs twice in one child (semver's CLI tests take a one-use `@contextmanager` as a parameter: run
again in the same process, they fail on any mutant)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

CORE = """
CACHE = {}


def scale(x):
    if x not in CACHE:
        CACHE[x] = x * 3
    return CACHE[x]


def size():
    if CACHE:
        return len(CACHE)
    return 0


def add(a, b):
    return a + b


def double(x):
    return x * 2


def clamp(x):
    return min(max(x, 0), 10)
"""

TESTS = """
from contextlib import contextmanager

import pytest

from acc.core import add, clamp, double, scale, size


@contextmanager
def gives(value):
    yield value


@pytest.mark.parametrize("x,expected", [(3, gives(3))])
def test_clamp(x, expected):
    with expected as wanted:
        assert clamp(x) == wanted


def test_a_size_of_an_empty_cache():
    assert size() == 0


def test_scale():
    assert scale(2) == 6


def test_add():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0


def test_double():
    assert double(4) == 8
"""


def _project(root: Path) -> Path:
    (root / "src" / "acc").mkdir(parents=True)
    (root / "src" / "acc" / "__init__.py").write_text("")
    (root / "src" / "acc" / "core.py").write_text(textwrap.dedent(CORE))
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(textwrap.dedent(TESTS))
    return root


@pytest.mark.slow
def test_mutants_share_a_child_while_it_is_untouched_and_no_test_runs_twice_in_it(tmp_path):
    """Slow: one whole mutation run (about 5 s on a quiet machine)."""
    root = _project(tmp_path / "acc")
    box = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    run = run_engine(root, box, ["src/acc/core.py"], ["tests/test_core.py"], workers=1)
    ran = sum(run.modes.values())
    assert run.modes.get("patch") == ran > 5
    # add's and double's mutants (pure) ran in one child after another
    assert run.reused > 0
    assert run.children + run.reused == ran
    assert run.children < ran
    status = {(m.function, m.original, m.replacement): r.status for m, r in run.scored}
    # `scale`'s mutants leave CACHE filled; had `size`'s mutant run in their child, the empty-cache
    # test would have failed on it: it survives, as in a fresh process
    assert status[("size", "CACHE", "True")] is Status.SURVIVED
    assert status[("scale", "*", "/")] is Status.KILLED
    assert all(r.status is Status.KILLED for m, r in run.scored if m.function in ("add", "double"))
    # `max(x, 0)` -> `max(x, 1)` and the like leave clamp(3) alone: each survives, though the one
    # that came second would have found `gives(3)` used up in the first one's child
    kept = [r.status for m, r in run.scored if m.function == "clamp" and m.original in "0 10"]
    assert len(kept) == 2 and all(s is Status.SURVIVED for s in kept)
