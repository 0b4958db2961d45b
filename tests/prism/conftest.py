"""The bundled benchmark run once per session (each suite set, 2 local workers) and reused by
many tests; every other run shares its state directory, so copies of the bundled tasks come from
the cache."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from assay.prism.api import prism_run
from tests.conftest import REPO, tree_digest

BENCH = REPO / "examples" / "prism"
SUITES = REPO / "examples" / "prism-suites"
KINDS = ("strong", "overfit", "weak")


@pytest.fixture(scope="session")
def state_dir(tmp_path_factory) -> Path:
    """One state directory for the whole test run, shared by pytest-xdist's workers (their temp
    dirs share a parent): the bundled benchmark runs once, every other worker reads its results
    from the store. Without xdist the run's own temp dir: its parent is the user's
    /tmp/pytest-of-USER, which kept one store for every serial run of every checkout since."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "prism-state"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture(scope="session")
def bench_runs(state_dir):
    """{suite kind: PrismReport} plus the benchmark's digest before and after the runs."""
    before = tree_digest(BENCH)
    with open(state_dir / "lock", "w") as lock:
        # the first worker runs; the others wait, then answer from the store
        fcntl.flock(lock, fcntl.LOCK_EX)
        reports = {
            kind: prism_run(BENCH, SUITES / kind, workers=2, state=state_dir) for kind in KINDS
        }
    return reports, before, tree_digest(BENCH)


def copy_task(name: str, dest: Path, drop: tuple[str, ...] = ()) -> Path:
    """A copy of a bundled task under `dest`, without the given member paths (e.g.
    "correct/casefold")."""
    target = dest / name
    shutil.copytree(BENCH / name, target)
    for rel in drop:
        path = target / rel
        if path.is_dir():
            shutil.rmtree(path)
        else:
            (target / f"{rel}.patch").unlink()
    return target
