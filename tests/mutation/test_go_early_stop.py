"""Gate 4's early stop for Go, as Python's: once the kills so far pass the file whatever the mutants
left do, those run only to prove the tests that have not killed yet. Each Go mutant is a build and
a link; with the engine's fuller operators (slug 33 -> 57 mutants) a good file ran them all."""

from __future__ import annotations

import pytest

from tests.mutation.test_tool_go import _verify_package

CALC = """package calc

func Clamp(x, lo, hi int) int {
	if lo > hi {
		lo, hi = hi, lo
	}
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func Mid(a, b int) int {
	return a + (b-a)/2
}

func Poly(x int) int {
	return x*x*x + 2*x*x + 3*x + 4
}

func Sign(x int) int {
	if x < 0 {
		return -1
	}
	if x > 0 {
		return 1
	}
	return 0
}
"""
CALC_TEST = """package calc

import "testing"

func TestClamp(t *testing.T) {
	for _, c := range [][4]int{{5, 0, 10, 5}, {-1, 0, 10, 0}, {11, 0, 10, 10}, {0, 0, 10, 0},
		{10, 0, 10, 10}, {5, 10, 0, 5}, {11, 10, 0, 10}} {
		if got := Clamp(c[0], c[1], c[2]); got != c[3] {
			t.Fatalf("Clamp%v = %d", c[:3], got)
		}
	}
}

func TestSign(t *testing.T) {
	if Sign(-3) != -1 || Sign(0) != 0 || Sign(4) != 1 {
		t.Fatal("sign")
	}
}

func TestPoly(t *testing.T) {
	if Poly(2) != 26 || Poly(3) != 58 {
		t.Fatal("poly")
	}
}

func TestMidSmall(t *testing.T) {
	if Mid(0, 4) != 2 {
		t.Fatal("mid")
	}
}

func TestMidZero(t *testing.T) {
	if Mid(0, 0) != 0 {
		t.Fatal("mid of nothing")
	}
}
"""


@pytest.mark.slow  # gates 1-4 of a Go package: builds, coverage runs, mutants (20-60 s)
def test_a_sure_pass_stops_early_and_still_proves_every_test(tmp_path):
    from assay.model import Verdict

    entry = _verify_package(tmp_path, "calc", CALC, CALC_TEST)
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]
    gate = next(g for g in entry.gates if g.gate == "mutation")
    assert gate.details.get("early_stop", 0) >= 1, gate.details
    verdicts = {t.id.split("::")[1]: t.verdict for t in entry.tests}
    # Mid(0, 0) is 0 under every mutant of Mid: its test is low value, proven on all of them;
    # TestMidSmall kills only Mid's, which may come after the stop: proven there, not low value
    assert verdicts == {
        "TestClamp": Verdict.ACCEPTED,
        "TestSign": Verdict.ACCEPTED,
        "TestPoly": Verdict.ACCEPTED,
        "TestMidSmall": Verdict.ACCEPTED,
        "TestMidZero": Verdict.LOW_VALUE,
    }, entry.tests
    # partial kill sets tell no redundancy
    assert not any("redundant" in t.note for t in entry.tests), entry.tests
