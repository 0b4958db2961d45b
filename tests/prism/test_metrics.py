"""The metric definitions of issue 12, checked exhaustively on small panels (pure functions,
no runs)."""

from __future__ import annotations

import itertools

import pytest

from assay.prism.metrics import aggregate, harmonic, task_metrics


def panels(max_correct: int = 3, max_faulty: int = 3):
    """Every acceptance pattern of panels with up to 3 correct and 3 faulty members."""
    for n_c, n_f in itertools.product(range(max_correct + 1), range(max_faulty + 1)):
        for fails, ref, flaky in itertools.product([True, False], repeat=3):
            for correct in itertools.product([True, False], repeat=n_c):
                for faulty in itertools.product([True, False], repeat=n_f):
                    yield fails, ref, list(correct), list(faulty), flaky


def test_jsf_never_exceeds_rar():
    for fails, ref, correct, faulty, flaky in panels():
        m = task_metrics(fails, ref, correct, faulty, flaky)
        assert m.jsf <= m.rar


def test_with_empty_correct_and_faulty_sets_jsf_equals_rar():
    for fails, ref, flaky in itertools.product([True, False], repeat=3):
        m = task_metrics(fails, ref, [], [], flaky)
        assert m.jsf == m.rar
        assert (m.var, m.irr) == (None, None)


def test_definitions_on_one_panel():
    m = task_metrics(True, True, [True, False, True], [True, True, False, True])
    assert (m.rar, m.var, m.irr, m.jsf) == (1, 2 / 3, 3 / 4, 0)
    # passes on original: not a reproduction
    assert task_metrics(False, True, [True], [True]).rar == 0
    assert task_metrics(True, False, [True], [True]).rar == 0
    assert task_metrics(True, True, [True, True], [True]).jsf == 1


def test_a_flaky_task_fails_rar_and_jsf_but_keeps_var_and_irr():
    m = task_metrics(True, True, [True, False], [True], flaky=True)
    assert (m.rar, m.jsf, m.var, m.irr) == (0, 0, 0.5, 1.0)


@pytest.mark.parametrize(
    "var, irr, h",
    [
        (0.0, 0.0, 0.0),
        (1.0, 1.0, 1.0),
        (1.0, 0.0, 0.0),
        (0.5, 1.0, 2 / 3),
        (1 / 3, 2 / 3, 4 / 9),
        (None, 1.0, None),
    ],
)
def test_h_is_the_harmonic_mean_and_zero_when_both_are_zero(var, irr, h):
    if h is None:
        assert harmonic(var, irr) is None
    else:
        assert harmonic(var, irr) == pytest.approx(h)


def test_aggregate_means_over_tasks_and_h_of_the_means():
    # RAR 0, VAR undefined, IRR 1
    ms = [
        task_metrics(True, True, [True, False], [False, False, True]),  # VAR 1/2, IRR 1/3
        task_metrics(True, True, [True], [True]),  # VAR 1,   IRR 1, JSF 1
        task_metrics(False, True, [], [True, True]),
    ]
    agg = aggregate(ms, change=[1.0, 0.5, None])
    assert agg["rar"] == pytest.approx(2 / 3)
    assert agg["jsf"] == pytest.approx(1 / 3)
    assert agg["var"] == pytest.approx(3 / 4)  # the task without correct members is left out
    assert agg["irr"] == pytest.approx((1 / 3 + 1 + 1) / 3)
    assert agg["h"] == pytest.approx(harmonic(3 / 4, 7 / 9))
    assert agg["change_coverage"] == pytest.approx(0.75)
    assert agg["evaluated"] == 3
