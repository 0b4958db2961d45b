"""The bundled benchmark against hand-computed expectations, from one session run per suite set.

Per task (fails_original, RAR, VAR, IRR, JSF), worked out from the suites in examples/prism-suites
and the members in examples/prism (see docs/prism.md, "The bundled example"):
- strong: every suite fails on original, accepts all of P and rejects all of F.
- overfit: each adds one test pinned to the reference: "Straße" -> "strae" (rejects
  correct/casefold), exact tuples from merge (rejects correct/stack, which returns lists), the
  ValueError's wording (rejects correct/digits).
- weak: slugify catches only drops-accents (1 of 3), merge catches none of 4, roman passes
  on original/.
"""

from __future__ import annotations

import json

import pytest

from assay.report import PRISM_FORMATS

pytestmark = pytest.mark.slow  # the bundled prism bench: every suite set against every panel member

EXPECTED = {
    "strong": {
        "slugify-unicode": (True, 1, 1, 1, 1),
        "interval-merge": (True, 1, 1, 1, 1),
        "roman-numerals": (True, 1, 1, 1, 1),
    },
    "overfit": {
        "slugify-unicode": (True, 1, 1 / 2, 1, 0),
        "interval-merge": (True, 1, 2 / 3, 1, 0),
        "roman-numerals": (True, 1, 1 / 2, 1, 0),
    },
    "weak": {
        "slugify-unicode": (True, 1, 1, 1 / 3, 0),
        "interval-merge": (True, 1, 1, 0, 0),
        "roman-numerals": (False, 0, 1, 0, 0),
    },
}
AGGREGATE = {  # rar, var, irr, jsf, h
    "strong": (1, 1, 1, 1, 1),
    "overfit": (1, 5 / 9, 1, 0, 5 / 7),
    "weak": (2 / 3, 1, 1 / 9, 0, 1 / 5),
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_per_task_metrics_match_the_hand_computed_values(bench_runs, kind):
    report = bench_runs[0][kind]
    for task in report.tasks:
        assert task.status == "evaluated", task.reason
        m = task.metrics
        fails, rar, var, irr, jsf = EXPECTED[kind][task.id]
        assert (m.fails_original, m.rar, m.jsf) == (fails, rar, jsf), task.id
        assert m.var == pytest.approx(var) and m.irr == pytest.approx(irr), task.id
        assert not task.flaky
        assert m.jsf <= m.rar


@pytest.mark.parametrize("kind", list(AGGREGATE))
def test_aggregates_and_h(bench_runs, kind):
    agg = bench_runs[0][kind].aggregate
    assert [agg[k] for k in ("rar", "var", "irr", "jsf", "h")] == pytest.approx(
        list(AGGREGATE[kind])
    )
    assert agg["evaluated"] == 3 and bench_runs[0][kind].exit_code == 0


def test_rar_and_jsf_diverge_by_category(bench_runs):
    weak = bench_runs[0]["weak"].by("category")
    assert weak["bug-fix"]["rar"] == pytest.approx(1 / 2) and weak["bug-fix"][
        "irr"
    ] == pytest.approx(1 / 6)
    assert weak["feature"]["rar"] == 1 and weak["feature"]["jsf"] == 0
    assert set(bench_runs[0]["weak"].by("language")) == {"python"}


def test_change_and_entry_coverage(bench_runs):
    """roman: the changed executable lines are NUMERALS (both sides), the `if` and the `raise`: the
    weak suite never passes a bad number, so it misses the raise (3 of 4)."""
    strong = {t.id: t for t in bench_runs[0]["strong"].tasks}
    weak = {t.id: t for t in bench_runs[0]["weak"].tasks}
    assert (
        strong["roman-numerals"].change_coverage["covered"],
        strong["roman-numerals"].change_coverage["total"],
    ) == (4, 4)
    roman = weak["roman-numerals"].change_coverage
    assert (roman["covered"], roman["total"]) == (3, 4)
    missed = [(x["side"], x["line"]) for x in roman["lines"] if not x["executed"]]
    assert missed == [("reference", 10)]
    assert bench_runs[0]["weak"].aggregate["change_coverage"] == pytest.approx((1 + 1 + 0.75) / 3)
    assert weak["roman-numerals"].entry_coverage == {
        "called": ["roman.convert:to_roman"],
        "missed": [],
        "ratio": 1.0,
    }
    # no entry points declared: the functions the reference changes
    assert weak["interval-merge"].entry_coverage["called"] == ["intervals.py:merge"]


def test_the_matrix_names_over_fitting_tests_and_uncaught_faulty_members(bench_runs):
    overfit = {t.id: t for t in bench_runs[0]["overfit"].tasks}
    assert overfit["slugify-unicode"].overfitting_tests() == {
        "test_slugify.py::test_sharp_s": ["correct/casefold"]
    }
    assert overfit["roman-numerals"].overfitting_tests() == {
        "test_roman.py::test_message_names_the_number": ["correct/digits"]
    }
    weak = {t.id: t for t in bench_runs[0]["weak"].tasks}
    assert weak["slugify-unicode"].uncaught_faulty() == ["faulty/keeps-edges", "faulty/no-collapse"]
    matrix = weak["slugify-unicode"].matrix()
    assert matrix["test_slugify.py::test_accent"] == {
        "original": "failed",
        "reference": "passed",
        "correct/casefold": "passed",
        "correct/regex-sub": "passed",
        "faulty/drops-accents": "failed",
        "faulty/keeps-edges": "passed",
        "faulty/no-collapse": "passed",
    }
    strong = {t.id: t for t in bench_runs[0]["strong"].tasks}
    assert strong["interval-merge"].caught_by()["faulty/no-touch"] == [
        "test_merge.py::test_touching_intervals_merge"
    ]


def test_the_reference_runs_three_times_and_the_benchmark_is_never_written(bench_runs):
    reports, before, after = bench_runs
    for task in reports["strong"].tasks:
        reference = next(m for m in task.members if m.role == "reference")
        assert reference.runs == [True, True, True]
    assert before == after


def test_json_follows_the_schema(bench_runs):
    data = json.loads(PRISM_FORMATS["json"](bench_runs[0]["overfit"]))
    assert data["schema"] == "assay.prism/1"
    assert set(data) >= {
        "benchmark",
        "suites",
        "executor",
        "runs",
        "aggregate",
        "by_category",
        "by_language",
        "tasks",
        "notes",
    }
    task = next(t for t in data["tasks"] if t["id"] == "interval-merge")
    assert set(task) >= {
        "id",
        "status",
        "fails_original",
        "rar",
        "var",
        "irr",
        "jsf",
        "flaky",
        "change_coverage",
        "entry_coverage",
        "members",
        "matrix",
        "overfitting_tests",
        "uncaught_faulty",
    }
    assert (
        task["matrix"]["test_merge.py::test_overlapping_intervals_merge"]["correct/stack"]
        == "failed"
    )
    assert data["runs"]["total"] == 29


def test_text_markdown_and_html_show_the_same_numbers(bench_runs):
    report = bench_runs[0]["weak"]
    text = PRISM_FORMATS["text"](report)
    assert "roman-numerals: the suite passes on original/" in text
    assert "slugify-unicode: no test catches faulty/no-collapse" in text
    markdown = PRISM_FORMATS["markdown"](report)
    assert "| all | 3 | 3 | 0.67 | 0.67 | 1 | 0.11 | 0 | 0.2 | 0.92 | 1 |" in markdown
    html = PRISM_FORMATS["html"](report)
    assert html.startswith("<!doctype html>") and "test_slugify.py::test_accent" in html
    assert "<script" not in html
