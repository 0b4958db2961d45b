"""The suite's own xdist grouping (tests/conftest.py): the tests of one shared fixture run on one
worker, which builds it once. Under pytest 9.2 xdist's `--dist loadgroup` grouped nothing
(pytest-dev/pytest-xdist#1386), silently: every worker built every shared run it met."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytest.importorskip("xdist")

SUITE = """
import os

import pytest


def seen(what):
    with open(os.path.join(os.environ["PROBE_DIR"], "seen"), "a") as f:
        f.write(f"{what} {os.environ['PYTEST_XDIST_WORKER']}\\n")


@pytest.fixture(scope="module")
def shared():
    seen("built")


@pytest.mark.parametrize("n", range(6))
def test_shared(shared, n):
    seen("shared")


@pytest.mark.parametrize("n", range(6))
def test_free(n):
    seen("free")
"""


@pytest.mark.slow  # 6 s in the fast lane on 2 cores (the CI simulation)
def test_the_tests_of_one_shared_fixture_run_on_one_worker_that_builds_it_once(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text((REPO / "tests" / "conftest.py").read_text())
    (tmp_path / "test_probe.py").write_text(SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup"]
        + ["-p", "no:cacheprovider", "-p", "no:assay", "test_probe.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PROBE_DIR": str(tmp_path)},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split() for line in (tmp_path / "seen").read_text().splitlines()]
    workers = {kind: [w for k, w in lines if k == kind] for kind in ("built", "shared", "free")}
    assert len(workers["shared"]) == 6 and len(workers["free"]) == 6, lines
    assert len(set(workers["shared"])) == 1, lines  # one worker for the group
    assert workers["built"] == workers["shared"][:1], lines  # built once, there
