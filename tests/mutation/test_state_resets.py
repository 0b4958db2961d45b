"""Module state every test fills and each test's setup resets (schedule 1.2.2: every test adds jobs
to the module-level scheduler and `SchedulerTests.setUp` clears it): a write reaches the tests
after it up to the first whose setup resets it, not every later test. State nothing resets still
reaches every later reader, and a mutant of the reset itself still runs every test."""

from __future__ import annotations

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import run_engine

pytestmark = pytest.mark.slow  # a whole mutation run

FILES = {
    "src/resets/__init__.py": "",
    "src/resets/registry.py": """\
import logging

REGISTRY = []
log = logging.getLogger(__name__)


def register(item):
    log.debug("register %s", item)  # the first call fills the logger's level memo: no state
    REGISTRY.append(item)
    return item


def clear():
    REGISTRY.clear()


def count():
    return len(REGISTRY)


def shout(name):
    return register(name.upper() + "!")


def murmur(name):
    return register("(" + name + ")")


def whisper(name):
    return register(name + "...")
""",
    # a pytest fixture resets the registry before each test
    "tests/test_1_fixture.py": """\
import pytest

from resets import registry


@pytest.fixture(autouse=True)
def clean():
    registry.clear()


def test_shout():
    assert registry.shout("b") == "B!"


def test_count():
    registry.register("c")
    assert registry.count() == 1


def test_two():
    registry.register("d")
    registry.register("e")
    assert registry.count() == 2
""",
    # unittest: setUp runs in pytest's call phase, before the test method
    "tests/test_2_setup.py": """\
import unittest

from resets import registry


class RegistryTests(unittest.TestCase):
    def setUp(self):
        registry.clear()

    def test_a_count(self):
        registry.register("f")
        self.assertEqual(registry.count(), 1)

    def test_b_murmur(self):
        self.assertEqual(registry.murmur("g"), "(g)")

    def test_c_two(self):
        registry.register("h")
        registry.register("i")
        self.assertEqual(registry.count(), 2)

    def test_d_one(self):
        registry.register("j")
        self.assertEqual(registry.count(), 1)
""",
    # nothing resets it: a later test reads what an earlier one left
    "tests/test_3_leftover.py": """\
from resets import registry


def test_fill():
    registry.whisper("x")


def test_later():
    assert registry.REGISTRY[-1] == "x..."
""",
}
TESTS = ["tests/test_1_fixture.py", "tests/test_2_setup.py", "tests/test_3_leftover.py"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("resets") / "resets"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return run_engine(
        root, Sandbox(SandboxConfig(timeout_s=60), protect=root), ["src/resets/registry.py"], TESTS
    )


def _mutant(run, function, operator, original=None):
    found = [
        (m, r)
        for m, r in run.scored
        if m.function == function and m.operator == operator and original in (None, m.original)
    ]
    assert len(found) == 1, [(m.function, m.operator, m.replacement) for m, _ in run.scored]
    return found[0][1]


def test_a_write_reaches_the_tests_up_to_the_first_whose_fixture_resets_it(run):
    # test_shout alone runs shout(); the registry it fills is cleared by the next test's fixture
    # (and the level memo its first log call fills in `log` is no write)
    r = _mutant(run, "shout", "string")
    assert sorted(r.covered_by) == [
        "tests/test_1_fixture.py::test_count",
        TESTS[0] + "::test_shout",
    ]
    assert r.status is Status.KILLED and r.killed_by == [TESTS[0] + "::test_shout"]


def test_a_write_reaches_the_tests_up_to_the_first_whose_setup_resets_it(run):
    # test_b_murmur's own setUp resets what test_a_count left (murmur() runs after it, in the
    # test's own code); test_c_two's setUp resets what test_b_murmur left
    r = _mutant(run, "murmur", "string", '"("')
    names = ["test_b_murmur", "test_c_two"]
    assert sorted(r.covered_by) == [f"{TESTS[1]}::RegistryTests::{n}" for n in names]
    assert r.status is Status.KILLED


def test_state_nothing_resets_still_reaches_a_later_reader(run):
    # and the test before test_fill runs first: nothing resets what it left before test_later reads
    r = _mutant(run, "whisper", "string")
    expected = [f"{TESTS[1]}::RegistryTests::test_d_one", TESTS[2] + "::test_fill"]
    assert sorted(r.covered_by) == [*expected, TESTS[2] + "::test_later"]
    assert r.status is Status.KILLED and r.killed_by == [TESTS[2] + "::test_later"]


def test_a_mutant_of_the_reset_runs_every_test(run):
    # clear() removed: every reset runs the mutated line before the test's own code, none is
    # trusted
    r = _mutant(run, "clear", "call_removal")
    assert len(r.covered_by) == 9
    assert r.status is Status.KILLED
