"""The Go engine's operators beyond gremlins' defaults (PIT's and StrykerJS's): a condition that is
no comparison negated, `&&` <-> `||`, `true` <-> `false`, a dropped call removed. Before them, code
made of calls and bare conditions (slug's SubstituteRune) had no mutant, and a test asserting
nothing of it passed gate 4 unmeasured."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from assay.mutation.tools.go import engine
from tests.mutation.test_tool_go import _verify_package

SUBST = """package subst

import (
	"bytes"
	"log"
	"sync"
)

var mu sync.Mutex

// Rune replaces each rune of s found in sub by its text.
func Rune(s string, sub map[rune]string) string {
	mu.Lock()
	defer mu.Unlock()
	var buf bytes.Buffer
	for _, c := range s {
		if d, ok := sub[c]; ok {
			buf.WriteString(d)
		} else {
			buf.WriteRune(c)
		}
	}
	log.Printf("replaced %d runes", len(s))
	return buf.String()
}
"""
WEAK = """package subst

import "testing"

func TestRuneRuns(t *testing.T) {
	if len(Rune("o a o", map[rune]string{'o': "no"})) == 0 {
		t.Fatal("empty")
	}
}
"""
EXACT = """package subst

import "testing"

func TestRuneExact(t *testing.T) {
	if got := Rune("o a o", map[rune]string{'o': "no"}); got != "no a no" {
		t.Fatalf("got %q", got)
	}
}
"""


@pytest.mark.slow  # builds assay's Go engine when its cache is cold (a few seconds)
def test_the_engine_mutates_bare_conditions_dropped_calls_logic_and_booleans(tmp_path):
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    source = tmp_path / "subst.go"
    source.write_text(
        SUBST.replace("return buf.String()", "ready = true && len(s) > 0\n\treturn buf.String()")
        + "\nvar ready bool\n"
    )
    listed = subprocess.run([str(engine()), str(source)], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    made = {
        (m["operator"], m["original"], m["replacement"])
        for m in map(json.loads, listed.stdout.splitlines())
    }
    assert ("INVERT_CONDITION", "ok", "!ok") in made
    # the receiver and arguments stay used: Go refuses a variable declared and not used
    assert ("CALL_REMOVAL", "buf.WriteString(d)", "_ = []interface{}{buf, d}") in made
    assert ("CALL_REMOVAL", "buf.WriteRune(c)", "_ = []interface{}{buf, c}") in made
    assert ("INVERT_LOGICAL", "&&", "||") in made
    assert ("BOOLEAN_LITERAL", "true", "false") in made
    # logging, locks (their removal hangs the binary) are left alone
    assert not {o for _, o, _ in made} & {"mu.Lock()", 'log.Printf("replaced %d runes", len(s))'}


@pytest.mark.slow  # gates 1-4 of a Go package twice: builds, coverage runs, mutants (30-80 s)
def test_a_test_asserting_nothing_of_calls_and_conditions_is_rejected(tmp_path):
    from assay.model import Verdict

    weak = _verify_package(tmp_path / "weak", "subst", SUBST, WEAK)
    assert weak.verdict is Verdict.REJECTED, [g.feedback for g in weak.gates]
    gate = next(g for g in weak.gates if g.gate == "mutation")
    assert "INVERT_CONDITION" in gate.feedback and "CALL_REMOVAL" in gate.feedback, gate.feedback
    exact = _verify_package(tmp_path / "exact", "subst", SUBST, EXACT)
    assert exact.verdict is Verdict.ACCEPTED, [g.feedback for g in exact.gates]
    gate = next(g for g in exact.gates if g.gate == "mutation")
    assert gate.details["killed"] >= 3 and gate.details["survived"] == 0, gate.details
