"""A test that times the code it tests and fails its assertion is not judged at gate 2: jsonpath-ng
1.17's `test_definition_failure_time_is_linear_to_length` (`timeit.repeat`, `assert ratio < 8`)
was "rejected at green: fix expected values" at load 29 on 2 cores."""

from __future__ import annotations

import textwrap

from assay.gates.timing import timed_failure, timing_tests
from tests.conftest import verify_json

TESTS = """
    import time
    import timeit
    from time import perf_counter as clock

    from calc.ops import add


    def best(n):
        return min(timeit.repeat(lambda: add(n, n), number=3, repeat=3))


    def test_linear():
        assert best(4000) / best(1000) < 8


    def test_fast():
        start = clock()
        add(1, 2)
        assert clock() - start < 0   # fails wherever it runs


    def test_stamp():
        assert time.time() > 0 and add(1, 2) == 3


    class TestSpeed:
        def _elapsed(self):
            t0 = time.monotonic()
            add(1, 2)
            return time.monotonic() - t0

        def test_quick(self):
            assert self._elapsed() < 1
    """


def test_the_tests_that_measure_durations_are_known_with_how():
    assert timing_tests(textwrap.dedent(TESTS)) == {
        "test_linear": "timeit.repeat",
        "test_fast": "two readings of a clock",
        "TestSpeed.test_quick": "two readings of a clock",
    }


def test_only_a_failed_assertion_of_such_a_test_is_set_apart():
    timed = timing_tests(textwrap.dedent(TESTS))
    failed = "E       assert 21.6 < 8"
    assert timed_failure("tests/test_t.py::test_linear[big]", failed, timed) == "timeit.repeat"
    assert timed_failure("tests/test_t.py::TestSpeed::test_quick", failed, timed)
    assert timed_failure("tests/test_t.py::test_stamp", failed, timed) is None
    # an error that is not an assertion is the code's or the test's
    assert timed_failure("tests/test_t.py::test_linear", "E   TypeError: boom", timed) is None


def test_a_timing_test_that_fails_leaves_its_file_unvalidated_not_rejected(project, tmp_path):
    files = {
        "calc/__init__.py": "",
        "calc/ops.py": "def add(a, b):\n    return a + b\n",
        "tests/test_speed.py": """
            import time

            from calc.ops import add


            def test_fast():
                start = time.perf_counter()
                add(1, 2)
                assert time.perf_counter() - start < 0


            def test_add():
                assert add(1, 2) == 3
            """,
    }
    root = project(files, "[tool.assay]\ngates = ['compile', 'green']\n")
    f, shown = verify_json(root, "tests/test_speed.py", tmp_path / "r.json")
    assert f["verdict"] == "unvalidated", shown  # before: rejected at green, "fix expected values"
    green = f["gates"][1]
    assert green["feedback"].startswith("UNVALIDATED: Gate 2 — A TEST THAT TIMES THE CODE FAILED")
    tests = {t["id"].rpartition("::")[2]: t["verdict"] for t in f["tests"]}
    assert tests == {"test_fast": "unvalidated", "test_add": "accepted"}, f["tests"]
