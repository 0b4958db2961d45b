"""Gate 5 inside the real pipeline (`assay.pipeline.verify`, compile gate first, real
pytest collection)."""

from __future__ import annotations

from assay.api import verify
from assay.config import Settings
from assay.model import GateStatus, Verdict
from assay.report import text
from tests.smells.shop_lib import SHOP_LIB


def settings(**smells) -> Settings:
    s = Settings(gates=["compile", "smells"], cache=False)
    s.sandbox.timeout_s = 30
    for k, v in smells.items():
        setattr(s.smells, k, v)
    return s


def gate5(report):
    (f,) = report.files
    return f, f.gates[-1]


def test_reject_findings_reject_the_file_with_feedback_and_per_test_outcomes(project):
    root = project(
        {
            **SHOP_LIB,
            "tests/test_cart.py": """
        import pytest
        from shop.model import Item

        def test_runs():
            Item("a", 2).total(3)

        @pytest.mark.parametrize("n", [1, 2])
        def test_always(n):
            assert True

        def test_ok():
            print("checking")
            assert Item("a", 2).total(3) == 6
        """,
        }
    )
    f, g = gate5(verify([root / "tests/test_cart.py"], settings()))
    assert (f.verdict, f.rejected_at, g.gate, g.status) == (
        Verdict.REJECTED,
        "smells",
        "smells",
        GateStatus.REJECT,
    )
    assert g.feedback.splitlines() == [
        "REJECT: Gate 5 — TEST SMELLS",
        "tests/test_cart.py:5 AS001 test_runs: no assertion",
        "tests/test_cart.py:10 AS006 test_always: tautology: `assert True` always passes",
        "tests/test_cart.py:13 AS015 test_ok: print in a test (a warning: not what fails the file)",
        g.feedback.splitlines()[-1],
    ]
    assert g.feedback.splitlines()[-1].startswith("Add assertions on the observable result")
    assert {
        "rule": "AS001",
        "level": "reject",
        "line": 5,
        "col": 1,
        "message": "no assertion",
        "test": "test_runs",
    } in g.details["findings"]
    outcomes = {t.id: (t.verdict, t.gate, t.reason) for t in f.tests if t.gate == "smells"}
    assert outcomes == {
        "tests/test_cart.py::test_runs": (Verdict.REJECTED, "smells", "AS001 no assertion"),
        "tests/test_cart.py::test_always[1]": (
            Verdict.REJECTED,
            "smells",
            "AS006 tautology: `assert True` always passes",
        ),
        "tests/test_cart.py::test_always[2]": (
            Verdict.REJECTED,
            "smells",
            "AS006 tautology: `assert True` always passes",
        ),
    }
    assert f.to_json()["gates"][-1]["findings"] == g.details["findings"]


def test_low_value_verdict_rejects_or_warns_by_setting(project):
    root = project(
        {
            **SHOP_LIB,
            "tests/test_label.py": """
        from shop.model import Item

        def test_label():
            assert Item("a", 2).label() == "a"

        def test_total():
            assert Item("a", 2).total(3) == 6
        """,
        }
    )
    f, g = gate5(verify([root / "tests/test_label.py"], settings()))
    assert (f.verdict, g.status, g.verdict) == (
        Verdict.LOW_VALUE,
        GateStatus.REJECT,
        Verdict.LOW_VALUE,
    )
    assert g.feedback.splitlines()[0] == "REJECT: Gate 5 — LOW-VALUE TESTS"
    assert [(t.id, t.verdict) for t in f.tests if t.gate == "smells"] == [
        ("tests/test_label.py::test_label", Verdict.LOW_VALUE)
    ]

    f, g = gate5(verify([root / "tests/test_label.py"], settings(fail_on_low_value=False)))
    assert (f.verdict, g.status) == (Verdict.LOW_VALUE, GateStatus.WARN)
    assert g.feedback.splitlines()[0] == "WARN: Gate 5 — LOW-VALUE TESTS"


def test_clean_file_passes_and_warnings_do_not_reject(project):
    root = project(
        {
            **SHOP_LIB,
            "tests/test_good.py": """
        import time
        from shop.model import Item

        def test_total():
            assert Item("a", 2).total(3) == 6

        def test_total_later():
            time.sleep(0)
            assert Item("a", 5).total(2) == 10
        """,
        }
    )
    report = verify([root / "tests/test_good.py"], settings())
    f, g = gate5(report)
    assert (f.verdict, g.status) == (Verdict.ACCEPTED, GateStatus.WARN)
    assert g.feedback.splitlines()[:2] == [
        "WARN: Gate 5 — TEST SMELLS",
        "tests/test_good.py:9 AS010 test_total_later: time.sleep in a unit test",
    ]
    # the terminal's warning line names the rule, what it is about and the tests
    assert (
        "tests/test_good.py — smells: 1 warning: AS010 (time.sleep in a unit test): "
        "test_total_later" in " ".join(text.render(report).split())
    )
    f, g = gate5(verify([root / "tests/test_good.py"], settings(levels={"AS010": "off"})))
    assert (f.verdict, g.status, g.feedback) == (Verdict.ACCEPTED, GateStatus.PASS, "")


def test_feedback_stays_within_50_lines(project):
    body = "".join(f"def test_{i}():\n    total({i})\n\n" for i in range(80))
    root = project({**SHOP_LIB, "tests/test_many.py": body})
    f, g = gate5(verify([root / "tests/test_many.py"], settings()))
    lines = g.feedback.splitlines()
    assert len(lines) <= 50 and lines[-2].startswith("... (")
    assert len(g.details["findings"]) == 80


def test_under_a_reject_each_warning_says_it_is_not_what_fails_the_file(project):
    """python-box 8.0.0's test_box_list.py: 2 rejecting lines and 14 warnings in one list under
    "REJECT: Gate 5 — TEST SMELLS"; which of them failed the file was not told."""
    root = project(
        {
            **SHOP_LIB,
            "tests/test_cart.py": """
        from shop.model import Item

        def test_runs():
            Item("a", 2).total(3)

        def test_cases():
            for n in (1, 2, 3):
                assert Item("a", 2).total(n) == 2 * n
        """,
        }
    )
    f, g = gate5(verify([root / "tests/test_cart.py"], settings()))
    assert (f.verdict, g.status) == (Verdict.REJECTED, GateStatus.REJECT), g.feedback
    lines = g.feedback.splitlines()
    (rejecting,) = [ln for ln in lines if " AS001 " in ln]
    (warning,) = [ln for ln in lines if " AS011 " in ln]
    assert "warning" not in rejecting
    assert warning.endswith("(a warning: not what fails the file)")
