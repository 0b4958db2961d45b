"""The offline writer's report counts test functions as pytest does, and the cases they hold apart:
a test of statements pins several cases, and "6 tests" for a file where pytest runs 3 misleads."""

from assay.report.offline_text import render
from assay.writers.offline.model import FunctionReport, ModuleResult, OfflineReport, PinnedTest


def _case(test: str, function: str, call: str) -> PinnedTest:
    return PinnedTest(test, function, call, "== 1", ["m1"], "doctest")


def test_the_report_counts_test_functions_and_their_cases_apart():
    statements = "test_encode_return_values_and_raises_value_error"
    module = ModuleResult(
        module="baseconv.py",
        test_path="tests/test_baseconv_characterization.py",
        text="...",
        tests=[
            _case(statements, "encode", "encode('1')"),
            _case(statements, "encode", "encode('2')"),
            _case(statements, "encode", "encode('-_')"),
            _case("test_decode_return_values[a]", "decode", "decode('a')"),
            _case("test_decode_return_values[b]", "decode", "decode('b')"),
            _case("test_repr_returns", "__repr__", "repr(c)"),
        ],
        functions=[FunctionReport(name="encode", status="tested", tests=3)],
        written=True,
    )
    text = render(OfflineReport(modules=[module]))
    assert module.test_functions == 3
    assert "tests/test_baseconv_characterization.py: 3 tests (6 cases), kill" in text
    assert "encode  3 cases, its mutants killed" in text
    assert text.rstrip().splitlines()[-1].startswith("3 tests (6 cases) in 1 file,")


def test_a_file_of_one_case_per_test_says_tests_only():
    module = ModuleResult(
        module="m.py",
        test_path="tests/test_m_characterization.py",
        text="...",
        tests=[_case("test_f_returns", "f", "f(1)"), _case("test_g_returns", "g", "g(1)")],
        written=True,
    )
    text = render(OfflineReport(modules=[module]))
    assert "test_m_characterization.py: 2 tests, kill" in text
    assert text.rstrip().splitlines()[-1].startswith("2 tests in 1 file,")
