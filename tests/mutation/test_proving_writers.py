"""A mutant out of the sample runs only to prove the tests that have not killed yet. Tests that
write module state run first, in collection order; one collected after every test left to prove ran
after them in the baseline, so nothing it wrote reached them, and once it has killed, its run there
proves nothing: it is left out (jmespath's `test_thread_safety_of_cache`, a cache writer six times
slower than the file's other tests, ran on each proving mutant of its file)."""

from __future__ import annotations

import pytest

from assay._assay_sandbox.protocol import PROVE_EACH_TEST
from assay.config import SandboxConfig
from assay.mutation.attribution import attribute
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

LATE_WRITER = {
    "src/calc/__init__.py": "",
    "src/calc/reg.py": """\
REGISTRY = {}


def register(name, value):
    REGISTRY[name] = value
    return len(REGISTRY)


def label(name, left="<", right=">"):
    if not name:
        return "-"
    if len(name) > 40:
        return name[:40]
    return left + name + right
""",
    "tests/test_reg.py": """\
import time

from calc.reg import REGISTRY, label, register


def test_label_runs():
    register("b", 2)
    try:
        label("b")
    except TypeError:
        pass
    assert len(REGISTRY) >= 0


def test_zz_label_exact():
    time.sleep(0.05)
    register("z", 1)
    assert label("z") == "<z>"
    assert label("") == "-"
    assert label("y" * 50) == "y" * 40
""",
}


@pytest.mark.slow
def test_a_writer_after_every_test_left_to_prove_does_not_run_on_proving_mutants(project):
    root = project(LATE_WRITER)
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    run = run_engine(
        root, sandbox, ["src/calc/reg.py"], ["tests/test_reg.py"], killers=PROVE_EACH_TEST, sample=1
    )
    late = "tests/test_reg.py::test_zz_label_exact"
    proving = [
        (m, r) for m, r in run.scored if r.reason.startswith("not in the sample") and r.covered_by
    ]
    shown = "\n".join(
        f"{m.line} {m.operator} {r.status} {r.covered_by} {r.killed_by}" for m, r in run.scored
    )
    # the weak test never kills: each mutant of `label` out of the sample runs to prove it
    assert len(proving) >= 4, shown
    runs = {t.id: t.runs for t in run.slowest}
    # the late writer kills on its first runs; it is not run again to prove the weak test
    assert runs.get(late, 0) <= 3, (runs, shown)
    # the verdicts of both tests are as before: the weak one kills nothing, the late one kills
    low = attribute(run, [t.id for t in run.tests], exact=False).low_value
    assert list(low) == ["tests/test_reg.py::test_label_runs"], (low, shown)
