"""Deadlines follow the pace of the tests against the baseline, both ways, within bounds."""

from assay._assay_sandbox.mutation.children import PACE_RANGE, pace


def test_too_few_tests_say_nothing_about_the_pace():
    assert pace([0.2] * 7) == 1.0


def test_a_baseline_taken_under_load_shrinks_the_deadlines_down_to_a_third():
    assert pace([0.5] * 8) == 0.5
    assert pace([0.05] * 30) == PACE_RANGE[0]


def test_a_busier_machine_stretches_them_and_one_odd_test_does_not_move_the_median():
    assert pace([3.0] * 20 + [0.01]) == 3.0
    assert pace([400.0] * 9) == PACE_RANGE[1]
