"""A test that writes module state (a registry) runs first on the mutants of the tests that may
read it; it must still meet every mutant it covers until it kills one, in the sample or out of it,
or it is called `low_value` though it kills (glom's `test_pipe`, an exact repr, after `glom()`
filled glom's caches)."""

from __future__ import annotations

from assay._assay_sandbox.protocol import PROVE_EACH_TEST
from assay.config import SandboxConfig
from assay.mutation.attribution import attribute
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

REG = {
    "src/calc/__init__.py": "",
    "src/calc/reg.py": """\
REGISTRY = {}


def register(name, value):
    REGISTRY[name] = value
    return len(REGISTRY)


def label(name):
    return "<" + name + ">"


def total(values):
    n = 0
    for v in values:
        n = n + v
    return n
""",
    "tests/test_reg.py": """\
from calc.reg import REGISTRY, label, register, total


def test_total():
    register("t", 1)
    assert total([1, 2, 3]) == 6


def test_register():
    assert register("a", 1) >= 1
    assert REGISTRY["a"] == 1


def test_label():
    register("b", 2)
    assert label("b") == "<b>"
""",
}


def test_a_test_that_writes_module_state_is_proven_on_the_mutants_out_of_the_sample(project):
    root = project(REG)
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    run = run_engine(
        root, sandbox, ["src/calc/reg.py"], ["tests/test_reg.py"], killers=PROVE_EACH_TEST, sample=1
    )
    ids = [t.id for t in run.tests]
    killers = {t for _, r in run.scored for t in r.killed_by}
    shown = "\n".join(f"{m.line} {m.operator} {r.status} {r.killed_by}" for m, r in run.scored)
    assert "tests/test_reg.py::test_label" in killers, shown
    assert attribute(run, ids, exact=False).low_value == {}
