"""One executor, local or a Dask cluster: a real `LocalCluster` of two worker processes on 127.0.0.1
runs `assay mutate` batches and `assay verify` files from a shipped copy of the project, with the
verdicts of a local run; the user's tree stays byte-identical and a shipped tree is unpacked once
per machine."""

from __future__ import annotations

import re
import shutil

import pytest

from assay import api
from assay.errors import ConfigError
from assay.execution.executor import open_executor
from assay.execution.shipping import materialize, pack
from assay.mutation.distributed import batches
from assay.mutation.model import Status
from assay.mutation.mutants import generate
from tests.conftest import run_cli, tree_digest, write_project

pytestmark = pytest.mark.slow  # a real Dask LocalCluster of two worker processes

distributed = pytest.importorskip("distributed")

CALC = """\
def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x


def sign(x):
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def total(items):
    return sum(i * 2 for i in items if i)
"""
TESTS = """\
from calc import clamp, sign, total


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0
    assert clamp(11, 0, 10) == 10


def test_sign():
    assert sign(3) == 1
    assert sign(-2) == -1
"""
WRONG = """\
from calc import sign


def test_sign_of_zero():
    assert sign(0) == 1
"""


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as found:
        yield found.scheduler_address


@pytest.fixture
def calc(tmp_path):
    return write_project(
        tmp_path / "calc",
        {"calc.py": CALC, "tests/test_calc.py": TESTS, "tests/test_wrong.py": WRONG},
    )


def test_mutate_on_the_cluster_gives_the_verdicts_and_cache_of_a_local_run(cluster, calc):
    before = tree_digest(calc)
    remote = api.mutate(
        [calc / "calc.py"], [calc / "tests/test_calc.py"], overrides={"scheduler": cluster}
    )
    local = api.mutate([calc / "calc.py"], [calc / "tests/test_calc.py"], use_cache=False)
    verdicts = {m.id: r.status for m, r in local.run.scored}
    assert {m.id: r.status for m, r in remote.run.scored} == verdicts
    assert {Status.KILLED, Status.SURVIVED} <= set(verdicts.values())
    assert remote.run.score == local.run.score and remote.exit_code == local.exit_code
    # what the cluster run stored
    cached = api.mutate([calc / "calc.py"], [calc / "tests/test_calc.py"])
    assert all(r.cached for r in cached.run.results.values()) and not cached.run.worker_ran
    assert {k: r.status for k, r in cached.run.results.items()} == verdicts
    assert tree_digest(calc) == before


def test_verify_on_the_cluster_gives_the_verdicts_of_a_local_run(cluster, calc):
    before = tree_digest(calc)
    local = api.verify([calc / "tests"], use_cache=False)
    remote = api.verify([calc / "tests"], use_cache=False, overrides={"scheduler": cluster})
    verdicts = [(f.path, f.verdict, f.rejected_at) for f in remote.files]
    assert verdicts == [(f.path, f.verdict, f.rejected_at) for f in local.files]
    assert ("tests/test_wrong.py", "rejected", "green") in [(p, v.value, g) for p, v, g in verdicts]
    assert tree_digest(calc) == before


@pytest.mark.parametrize(
    "command", [["mutate", "calc.py", "--tests", "tests"], ["verify", "tests"]]
)
def test_an_unreachable_scheduler_is_one_line_and_exit_2(calc, command):
    proc = run_cli(*command, "--scheduler", "tcp://127.0.0.1:9", cwd=calc)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "assay: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: Connection refused"
    ]


def test_a_pytest_usage_error_on_the_workers_is_a_configuration_error(cluster, calc):
    """A bad `-p` in the project's addopts stops pytest on the workers as it does here: a
    configuration error (one line, exit 2) naming pytest's own cause, never "mutation run failed"
    nor a verdict."""
    (calc / "pyproject.toml").write_text(
        (calc / "pyproject.toml").read_text()
        + '[tool.pytest.ini_options]\naddopts = "-p no_such_plugin"\n'
    )
    remote = {"scheduler": cluster}
    cause = 'pytest rejected its arguments (Error importing plugin "no_such_plugin"'
    with pytest.raises(ConfigError, match=re.escape(cause)):
        api.mutate([calc / "calc.py"], [calc / "tests"], use_cache=False, overrides=remote)
    with pytest.raises(ConfigError, match=re.escape(cause)):
        api.verify([calc / "tests/test_calc.py"], use_cache=False, overrides=remote)


def test_a_shipped_tree_is_unpacked_once_and_the_users_tree_is_untouched(cluster, calc):
    # a tree of its own: not unpacked by another test before
    (calc / "name.txt").write_text(str(calc))
    (calc / "node_modules").mkdir()
    (calc / "node_modules" / "big.js").write_text("skipped like the scratch copy skips it")
    before = tree_digest(calc)
    tree = pack(calc)
    assert pack(calc).digest == tree.digest  # content-addressed: the same tree, the same name
    with open_executor("dask", scheduler=cluster) as pool:
        shared = pool.share(tree)
        first = pool.submit(materialize, shared).result()
        second = pool.submit(materialize, shared).result()
    try:
        assert (first.reused, second.reused) == (False, True) and first.path == second.path
        assert first.path.name == tree.digest
        assert (first.path / "calc.py").read_text() == CALC and not (
            first.path / "node_modules"
        ).exists()
    finally:
        shutil.rmtree(first.path)
    assert tree_digest(calc) == before
    (calc / "calc.py").write_text(CALC + "\n")
    assert pack(calc).digest != tree.digest


def test_batches_are_balanced_and_keep_a_function_whole_when_it_fits():
    mutants = generate("calc.py", CALC)  # sign 15 mutants, clamp 9, total 3
    for count, sizes in ((1, [27]), (2, [14, 13]), (4, [7, 7, 7, 6])):
        found = batches(mutants, count)
        assert sorted(m.id for b in found for m in b) == sorted(m.id for m in mutants)
        assert sorted((len(b) for b in found), reverse=True) == sizes
        assert sum(any(m.function == "total" for m in b) for b in found) == 1
    assert batches([], 4) == [[]]  # nothing to run: one batch for the baseline
