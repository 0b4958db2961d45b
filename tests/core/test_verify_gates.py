"""Gates 1-3 through the library API on small real projects (real pytest in the real sandbox)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from assay.api import verify
from assay.config import Settings
from assay.errors import ConfigError
from assay.model import GateStatus, Verdict

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": """
    def add(a, b):
        return a + b

    def div(a, b):
        if b == 0:
            raise ZeroDivisionError("b is zero")
        return a / b
    """,
}


def fast(**kw) -> Settings:
    s = Settings(gates=["compile", "green", "stability"], cache=False, **kw)
    s.sandbox.timeout_s = 20
    s.stability.reruns = 1
    s.stability.budget_s = 0
    return s


def one(report):
    assert len(report.files) == 1
    return report.files[0]


def test_good_file_is_accepted_with_every_test(project):
    # a warning of assay's own is an error
    root = project(
        {
            **LIB,
            "tests/test_ops.py": """
        import pytest
        from calc.ops import add, div

        def test_add():
            assert add(2, 3) == 5

        def test_div_by_zero():
            with pytest.raises(ZeroDivisionError):
                div(1, 0)
        """,
        },
        '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n',
    )
    f = one(verify([root / "tests/test_ops.py"], fast()))
    assert f.verdict is Verdict.ACCEPTED, f.gates[-1].feedback
    assert [g.gate for g in f.gates] == ["compile", "green", "stability"]
    assert all(g.status is GateStatus.PASS for g in f.gates)
    assert sorted(t.id for t in f.tests) == [
        "tests/test_ops.py::test_add",
        "tests/test_ops.py::test_div_by_zero",
    ]
    assert all(t.verdict is Verdict.ACCEPTED for t in f.tests)
    assert f.targets == ["src/calc/ops.py"]


def test_syntax_error_is_rejected_at_compile_with_line(project):
    root = project({**LIB, "tests/test_bad.py": "def test_x(:\n    pass\n"})
    f = one(verify([root / "tests/test_bad.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "compile")
    assert f.gates[0].feedback.startswith(
        "REJECT: Gate 1 — COMPILE ERROR\ntests/test_bad.py:1: SyntaxError"
    )


def test_import_error_and_missing_fixture_are_compile_rejects(project):
    root = project(
        {
            **LIB,
            "tests/test_imp.py": "from calc.ops import mul\n\ndef "
            "test_mul():\n    assert mul(2, 2) == 4\n",
            "tests/test_fix.py": "def test_needs(no_such_fixture):\n    assert no_such_fixture\n",
        }
    )
    report = verify([root / "tests"], fast())
    by = {f.path: f for f in report.files}
    imp, fix = by["tests/test_imp.py"], by["tests/test_fix.py"]
    assert imp.rejected_at == "compile" and "ImportError" in imp.gates[0].feedback
    assert "mul" in imp.gates[0].feedback and str(root) not in imp.gates[0].feedback
    assert (
        fix.rejected_at == "compile"
        and "fixture 'no_such_fixture' not found" in fix.gates[0].feedback
    )


def test_failing_test_is_rejected_at_green_and_passing_ones_are_not_judged(project):
    root = project(
        {
            **LIB,
            "tests/test_mixed.py": """
        from calc.ops import add

        def test_ok():
            assert add(1, 1) == 2

        def test_wrong():
            assert add(2, 2) == 5
        """,
        }
    )
    f = one(verify([root / "tests/test_mixed.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    tests = {t.id.split("::")[1]: t for t in f.tests}
    assert (
        tests["test_wrong"].verdict is Verdict.REJECTED
        and "assert 4 == 5" in tests["test_wrong"].reason
    )
    assert tests["test_ok"].verdict is Verdict.UNVALIDATED
    fb = f.gates[1].feedback.splitlines()
    assert fb[0] == "REJECT: Gate 2 — TEST FAILURE"
    assert fb[-1].startswith("Fix expected values or setup.")
    assert len(fb) <= 50


def test_order_dependent_test_is_flaky(project):
    root = project(
        {
            **LIB,
            "tests/test_order.py": """
        STATE = []

        def test_first():
            STATE.append(1)
            assert STATE

        def test_second():
            assert STATE == [1]
        """,
        }
    )
    f = one(verify([root / "tests/test_order.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.FLAKY, "stability")
    flaky = [t.id for t in f.tests if t.verdict is Verdict.FLAKY]
    assert flaky == ["tests/test_order.py::test_second"]
    assert "alone" in f.gates[2].feedback or "random order" in f.gates[2].feedback


def test_state_left_in_the_workspace_makes_a_test_flaky(project):
    root = project(
        {
            **LIB,
            "tests/test_file_state.py": """
        from pathlib import Path

        def test_creates_marker():
            marker = Path("marker.txt")
            assert not marker.exists()
            marker.write_text("x")
        """,
        }
    )
    f = one(verify([root / "tests/test_file_state.py"], fast()))
    assert f.verdict is Verdict.FLAKY
    assert not (root / "marker.txt").exists()


def test_all_skipped_file_is_unvalidated(project):
    root = project(
        {
            **LIB,
            "tests/test_skip.py": """
        import pytest

        @pytest.mark.skip(reason="later")
        def test_later():
            assert False
        """,
        }
    )
    f = one(verify([root / "tests/test_skip.py"], fast()))
    assert f.verdict is Verdict.UNVALIDATED
    assert f.tests[0].verdict is Verdict.UNVALIDATED
    assert f.tests[0].reason == "skipped: later"  # not pytest's "skipped: Skipped: later"


def test_a_non_strict_xfail_that_passes_is_not_judged_and_does_not_reject_its_file(project):
    """pytest passes a suite whose non-strict xfail passes (XPASS); the file's other tests go on
    through the gates (sqlparse's test_regressions.py, 99 tests, was rejected at green for one)."""
    root = project(
        {
            **LIB,
            "tests/test_mixed.py": """
        import pytest
        from calc.ops import add

        def test_add():
            assert add(2, 3) == 5

        @pytest.mark.xfail(reason="issue 12")
        def test_known():
            assert add(1, 1) == 2
        """,
        }
    )
    f = one(verify([root / "tests/test_mixed.py"], fast()))
    assert f.rejected_at != "green", [g.feedback for g in f.gates]
    known = next(t for t in f.tests if t.id.endswith("test_known"))
    assert known.verdict is Verdict.UNVALIDATED
    assert known.reason.startswith("xpassed: marked xfail (issue 12) but passes")
    assert next(t for t in f.tests if t.id.endswith("test_add")).verdict is not Verdict.REJECTED


def test_an_xfail_without_a_reason_says_so_not_an_empty_colon(project):
    """ftfy's `@pytest.mark.xfail(strict=True)` over 10 cases: `-v` read "green: xfailed:" ten
    times."""
    root = project(
        {
            **LIB,
            "tests/test_marks.py": """
        import pytest
        from calc.ops import add

        def test_add():
            assert add(2, 3) == 5

        @pytest.mark.xfail(strict=True)
        def test_known_bad():
            assert add(1, 1) == 3

        @pytest.mark.xfail
        def test_known_good():
            assert add(1, 1) == 2
        """,
        }
    )
    f = one(verify([root / "tests/test_marks.py"], fast()))
    reasons = {t.id.rsplit("::", 1)[-1]: t.reason for t in f.tests}
    assert reasons["test_known_bad"] == "xfailed: marked xfail (no reason given)", reasons
    assert reasons["test_known_good"].startswith("xpassed: marked xfail (no reason given) but")


def test_a_configured_interpreter_that_cannot_run_is_a_config_error_not_a_verdict(project):
    root = project({**LIB, "tests/test_a.py": "def test_a():\n    assert 1 + 1 == 2\n"})
    s = fast()
    s.python.interpreter = str(root / "no-such-python")
    with pytest.raises(ConfigError, match="interpreter: cannot run"):
        verify([root / "tests/test_a.py"], s)


def test_verdicts_and_files_are_reported_for_a_directory(project):
    root = project(
        {
            **LIB,
            "tests/test_a.py": "def test_a():\n    assert 1 + 1 == 2\n",
            "tests/sub/test_b.py": "def test_b():\n    assert 2 * 2 == 4\n",
            "tests/helpers.py": "X = 1\n",
        }
    )
    report = verify([root / "tests"], fast())
    assert sorted(f.path for f in report.files) == ["tests/sub/test_b.py", "tests/test_a.py"]
    assert report.exit_code == 0
    assert report.summary()["accepted"] == 2


def test_tests_that_passed_every_gate_stay_accepted_when_the_last_gate_rejects_others(project):
    root = project(
        {
            **LIB,
            "tests/test_two.py": """
        from calc.ops import add

        def test_add():
            assert add(2, 3) == 5

        def test_add_runs():
            add(2, 3)
        """,
        }
    )
    s = fast()
    s.gates = ["compile", "green", "smells"]
    f = one(verify([root / "tests/test_two.py"], s))
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "smells")
    verdicts = {t.id.split("::")[1]: t.verdict for t in f.tests}
    assert verdicts == {"test_add": Verdict.ACCEPTED, "test_add_runs": Verdict.REJECTED}
    s.gates = ["compile", "green", "smells", "stability"]
    f = one(verify([root / "tests/test_two.py"], s))
    assert {t.id.split("::")[1]: t.verdict for t in f.tests}["test_add"] is Verdict.UNVALIDATED


def test_missing_declared_dependency_is_unvalidated_but_unknown_module_is_rejected(project):
    root = project(
        {
            **LIB,
            "tests/test_dep.py": "import freezegun_not_installed\n\ndef "
            "test_a():\n    assert 1 + 1 == 2\n",
            "tests/test_made_up.py": "import shoplib_helpers\n\ndef "
            "test_b():\n    assert 1 + 1 == 2\n",
            "tests/test_plugin.py": "def test_c(httpx_mock):\n    assert httpx_mock\n",
        },
        '[project.optional-dependencies]\ntests = ["freezegun-not-installed>=1", "pytest-httpx"]\n',
    )
    report = verify([root / "tests"], fast())
    by = {f.path: f for f in report.files}
    dep, made_up, plugin = (
        by["tests/test_dep.py"],
        by["tests/test_made_up.py"],
        by["tests/test_plugin.py"],
    )
    assert (dep.verdict, dep.rejected_at) == (Verdict.UNVALIDATED, "compile")
    assert [g.gate for g in dep.gates] == ["compile"]
    assert dep.gates[0].feedback.startswith("UNVALIDATED: Gate 1 — MISSING DEPENDENCY")
    assert "module 'freezegun_not_installed' is not installed" in dep.gates[0].feedback
    # where the plugin is installed the fixture exists
    if importlib.util.find_spec("pytest_httpx") is None:
        assert (plugin.verdict, plugin.rejected_at) == (Verdict.UNVALIDATED, "compile")
        assert "pytest plugin 'pytest_httpx'" in plugin.gates[0].feedback
    assert (made_up.verdict, made_up.rejected_at) == (Verdict.REJECTED, "compile")
    assert "No module named 'shoplib_helpers'" in made_up.gates[0].feedback


def test_runtime_import_of_a_dependency_the_project_uses_is_unvalidated(project):
    root = project(
        {
            "src/calc/__init__.py": "",
            "src/calc/fmt.py": "import tabulate_missing_dep\n",
            "tests/test_lazy.py": """
                        def test_lazy():
                            import tabulate_missing_dep
                            assert tabulate_missing_dep
                        """,
        }
    )
    f = one(verify([root / "tests/test_lazy.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.UNVALIDATED, "green")
    assert f.tests[0].verdict is Verdict.UNVALIDATED and "tabulate_missing_dep" in f.tests[0].reason


def test_own_package_metadata_missing_is_unvalidated_but_other_metadata_is_rejected(project):
    root = project(
        {
            **LIB,
            "tests/test_meta.py": """
        from importlib.metadata import version

        def test_own_version():
            assert version("proj-not-installed-here")

        def test_other_version():
            assert version("some-unrelated-dist-xyz")
        """,
        },
        name="proj-not-installed-here",
    )
    (root / "pyproject.toml").write_text(
        '[project]\nname = "proj-not-installed-here"\nversion = "0"\n'
    )
    f = one(verify([root / "tests/test_meta.py"], fast()))
    verdicts = {t.id.split("::")[1]: t for t in f.tests}
    assert verdicts["test_own_version"].verdict is Verdict.UNVALIDATED
    assert "no package metadata" in verdicts["test_own_version"].reason
    assert verdicts["test_other_version"].verdict is Verdict.REJECTED
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")


def test_with_the_cache_off_nothing_is_written_to_the_project(project):
    root = project(
        {
            **LIB,
            "tests/test_ops.py": "from calc.ops import add, div\n\ndef test_add():\n"
            "    assert add(2, 3) == 5\n    assert div(6, 3) == 2\n",
        },
        "[tool.assay]\ncache = false\n[tool.assay.stability]\nreruns = 1\n",
    )
    from assay.config import load_settings

    report = verify([root / "tests/test_ops.py"], load_settings(root))
    assert [g.gate for g in report.files[0].gates] == [
        "compile",
        "green",
        "stability",
        "mutation",
        "smells",
    ]
    assert not (root / ".assay").exists()


# validators 0.9 on Python 3.11: its decorator calls `inspect.getargspec` (removed in 3.11), and
# every test of an invalid value was "rejected at green: Fix expected values or setup"
OLD_PYTHON = """\
import inspect
import os


def arity(func):
    return len(inspect.getargspec(func)[0])


def joined(a, b):
    return os.pathjoin(a, b)
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="inspect.getargspec exists before 3.11")
def test_code_written_for_an_older_python_is_unvalidated_not_the_tests_fault(project):
    root = project(
        {
            **LIB,
            "src/calc/compat.py": OLD_PYTHON,
            "tests/test_compat.py": "from calc.compat import arity\nfrom calc.ops import add\n\n"
            "def test_add():\n    assert add(1, 2) == 3\n\n"
            "def test_arity():\n    assert arity(add) == 2\n",
            "tests/test_typo.py": "from calc.compat import joined\n\n"
            "def test_joined():\n    assert joined('a', 'b') == 'a/b'\n",
        }
    )
    report = verify([root / "tests"], fast())
    by = {f.path: f for f in report.files}
    compat, typo = by["tests/test_compat.py"], by["tests/test_typo.py"]
    assert compat.verdict is Verdict.UNVALIDATED, compat.gates[-1].feedback
    green = compat.gates[1]
    assert green.feedback.startswith("UNVALIDATED: Gate 2 — PYTHON TOO NEW FOR THE PROJECT")
    [arity] = [t for t in compat.tests if t.id.endswith("test_arity")]
    assert arity.verdict is Verdict.UNVALIDATED
    assert "inspect.getargspec, which Python 3.11 removed" in arity.reason
    # a name no Python has is the project's own bug: the test that finds it is right to fail
    assert (typo.verdict, typo.rejected_at) == (Verdict.REJECTED, "green")


# a fixture that keeps state in pytest's cache, as pytest-xprocess does (cachelib's redis and
# memcached tests): "error at setup: AttributeError: 'Config' object has no attribute 'cache'"
CACHE_FIXTURE = """\
import pytest


@pytest.fixture
def started(request):
    runs = request.config.cache.get("calc/runs", 0)
    request.config.cache.set("calc/runs", runs + 1)
    return runs
"""


def test_a_fixture_using_pytests_cache_runs_and_the_cache_stays_out_of_the_tree(project):
    root = project(
        {
            **LIB,
            "tests/conftest.py": CACHE_FIXTURE,
            "tests/test_cached.py": "from calc.ops import add\n\n"
            "def test_add(started):\n    assert started >= 0\n    assert add(1, 2) == 3\n",
        }
    )
    f = one(verify([root / "tests/test_cached.py"], fast()))
    assert f.verdict is Verdict.ACCEPTED, f.gates[-1].feedback
    assert "ignored_writes" not in f.gates[1].details, f.gates[1].details
    assert not (root / ".pytest_cache").exists()


def test_a_file_that_skips_itself_at_collection_is_unvalidated_with_its_reason(project):
    """cachelib 0.9.0's test_uwsgi_cache.py: `pytest.importorskip("uwsgi", reason=...)` in a class
    body skips the whole module at collection; it was "rejected at compile: no tests collected (no
    test_* functions or Test* classes)", with its Test class in plain sight."""
    root = project(
        {
            **LIB,
            "tests/test_server.py": "import pytest\nfrom calc.ops import add\n\n\n"
            "class TestUnderServer:\n"
            "    pytest.importorskip('calc_server_only', reason='run pytest under the server')\n\n"
            "    def test_add(self):\n        assert add(1, 2) == 3\n",
        }
    )
    f = one(verify([root / "tests/test_server.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.UNVALIDATED, "compile"), f.gates[0].feedback
    feedback = f.gates[0].feedback
    assert feedback.startswith("UNVALIDATED: Gate 1 — THE FILE SKIPS ITSELF")
    assert "skipped the whole file at collection: run pytest under the server" in feedback


# pytest-xprocess at cachelib's session end: `pytest_unconfigure` raised after the last test, and
# the file's last test was "rejected at green" with that traceback
TEARDOWN_CRASH = """\
def pytest_unconfigure(config):
    raise RuntimeError("the xprocess log is closed")
"""


def test_a_crash_at_the_sessions_end_is_named_and_never_blamed_on_the_last_test(project):
    root = project(
        {
            **LIB,
            "tests/conftest.py": TEARDOWN_CRASH,
            "tests/test_ends.py": "from calc.ops import add\n\n"
            "def test_one():\n    assert add(1, 2) == 3\n\n"
            "def test_last():\n    assert add(2, 2) == 4\n",
        }
    )
    f = one(verify([root / "tests/test_ends.py"], fast()))
    green = f.gates[1]
    assert {t.id.split("::")[-1]: t.verdict for t in f.tests} == {
        "test_one": Verdict.ACCEPTED,
        "test_last": Verdict.ACCEPTED,
    }, green.feedback
    [note] = green.details["notes"]
    assert "after every test had run" in note
    assert "RuntimeError: the xprocess log is closed" in note, note


def test_a_failure_the_projects_own_code_raised_points_at_the_project(project):
    """validators 0.9: its decorator raised, below every failing test; the feedback said "Fix
    expected values or setup" and put a smell first as "the likely cause of the reject below"."""
    root = project(
        {
            **LIB,
            "src/calc/compat.py": OLD_PYTHON,
            "tests/test_typo.py": "from calc.compat import joined\n\n"
            "def test_joined():\n    assert joined('a', 'b') == 'a/b'\n",
            "tests/test_own.py": "from calc.ops import add\n\n"
            "def test_add():\n    assert add(1, 2) == 4\n",
        }
    )
    by = {f.path: f for f in verify([root / "tests"], fast()).files}
    typo, own = by["tests/test_typo.py"].gates[1], by["tests/test_own.py"].gates[1]
    assert typo.details["raised_in_project"] == {
        "tests/test_typo.py::test_joined": "src/calc/compat.py:10"
    }
    assert "raised in the project's code at src/calc/compat.py:10" in typo.feedback
    assert typo.feedback.splitlines()[-1].startswith(
        "Fix these first: the project's own code raised each error (src/calc/compat.py:10)"
    ), typo.feedback
    # the test's own assertion failed: its expected value is what to check
    assert "raised_in_project" not in own.details
    assert own.feedback.splitlines()[-1].startswith("Fix expected values or setup")


def test_a_failing_test_its_author_marks_flaky_is_unvalidated_with_that_named(project):
    """zipp's test_complexity: big-O fits of wall-clock timings, `@pytest.mark.flaky`, failed at
    load 30 and the file was "rejected at green: Fix expected values or setup"."""
    root = project(
        {
            **LIB,
            "tests/test_timed.py": "import pytest\n\nfrom calc.ops import add\n\n"
            "def test_add():\n    assert add(1, 2) == 3\n\n"
            "@pytest.mark.flaky\ndef test_linear():\n    assert add(1, 1) < 0, 'too slow'\n",
        },
        pyproject='[tool.pytest.ini_options]\nmarkers = ["flaky: may fail"]\n',
    )
    f = one(verify([root / "tests/test_timed.py"], fast()))
    green = f.gates[1]
    assert f.verdict is Verdict.UNVALIDATED, green.feedback
    assert green.feedback.startswith("UNVALIDATED: Gate 2 — A TEST ITS AUTHOR MARKS FLAKY FAILED")
    by = {t.id.split("::")[-1]: t for t in f.tests}
    assert by["test_linear"].verdict is Verdict.UNVALIDATED
    assert by["test_linear"].reason.startswith(
        "failed, and its author marks it flaky (@pytest.mark.flaky): AssertionError: too slow"
    ), by["test_linear"].reason
    assert by["test_add"].verdict is Verdict.ACCEPTED


# tomlkit's test_toml_file: reads its example, writes it back through the project, checks it is
# unchanged, and restores the original in a `finally`: "the tests changed project files"
RESTORES = """\
from pathlib import Path

from calc.ops import add

EXAMPLE = Path(__file__).parent / "example.txt"


def test_round_trip():
    original = EXAMPLE.read_text()
    try:
        EXAMPLE.write_text(str(add(1, 2)))
        assert EXAMPLE.read_text() == "3"
    finally:
        EXAMPLE.write_text(original)
"""


def test_a_test_that_restores_a_project_file_byte_for_byte_leaves_it_as_it_was(project):
    root = project({**LIB, "tests/example.txt": "a = 1\n", "tests/test_restores.py": RESTORES})
    f = one(verify([root / "tests/test_restores.py"], fast()))
    assert f.verdict is Verdict.ACCEPTED, f.gates[1].feedback
    # one that leaves other bytes behind is still told
    (root / "tests/test_restores.py").write_text(
        RESTORES.replace("write_text(original)", "write_text(original + ' ')")
    )
    f = one(verify([root / "tests/test_restores.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    assert "the tests changed project files: tests/example.txt" in f.gates[1].feedback


def test_a_file_of_a_unittest_loading_hook_is_unvalidated_not_a_compile_error(project):
    """Unidecode 1.4.0's tests/test_readme.py builds its doctests in `additional_tests()`, a
    setuptools hook pytest never calls: it was "REJECT: Gate 1 — COMPILE ERROR ... Fix the
    compile errors: check imports", for a file that imports and compiles."""
    root = project(
        {
            **LIB,
            "tests/test_readme.py": "import doctest\n\n\n"
            "def additional_tests():\n    return doctest.DocFileSuite('../README.rst')\n",
        }
    )
    f = one(verify([root / "tests/test_readme.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.UNVALIDATED, "compile"), f.gates[0].feedback
    feedback = f.gates[0].feedback
    assert feedback.startswith("UNVALIDATED: Gate 1 — TESTS PYTEST DOES NOT RUN"), feedback
    assert "built by additional_tests()" in feedback
    assert "COMPILE ERROR" not in feedback


def test_a_file_of_no_test_is_rejected_without_blaming_imports(project):
    root = project({**LIB, "tests/test_helpers.py": "def helper():\n    return 1\n"})
    f = one(verify([root / "tests/test_helpers.py"], fast()))
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "compile"), f.gates[0].feedback
    feedback = f.gates[0].feedback
    assert "no tests collected (no test_* functions or Test* classes)" in feedback
    assert "check imports" not in feedback
    assert "name the tests so" in feedback
