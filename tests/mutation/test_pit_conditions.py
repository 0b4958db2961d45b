"""PIT names a conditional mutant by the bytecode jump it rewrites; javac jumps into the body of
`if (a || b)` when `a` is true, so PIT's "replaced equality check with true" on `a` makes it
false. ulid-creator's `if (random == null || random.length != RANDOM_BYTES) throw` showed such a
survivor as "→ removed conditional - replaced equality check with true", which reads as a
constructor that always throws and still passes. The mutant is now shown as the operand it changes
(`if (false || ...)`), with a brief about that operand. The XML is PIT 1.30.2's own form
(`mutations.xml` with `fullMutationMatrix`), trimmed to the fields assay reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.mutation.briefs import brief
from assay.mutation.tools.pit import read_mutations
from assay.mutation.tools.pit_conditions import operands

SOURCE = """package com.acme;

public final class Range {
    public static int clamp(int pct, String name) {
        if (pct < 0 || pct > 100) {
            throw new IllegalArgumentException(name);
        }
        if (name == null && pct == 0) {
            return 1;
        }
        return pct;
    }
}
"""
MAIN = "src/main/java/com/acme/Range.java"
TEST = "src/test/java/com/acme/RangeTest.java"
# (line, mutator, bytecode index, description, status)
MUTATIONS = [
    (5, "RemoveConditionalMutator_ORDER_IF", 7, "replaced comparison check with true", "SURVIVED"),
    (5, "RemoveConditionalMutator_ORDER_IF", 11, "replaced comparison check with true", "KILLED"),
    (5, "RemoveConditionalMutator_ORDER_ELSE", 7, "replaced comparison check with false", "KILLED"),
    (
        5,
        "RemoveConditionalMutator_ORDER_ELSE",
        11,
        "replaced comparison check with false",
        "KILLED",
    ),
    (5, "ConditionalsBoundaryMutator", 11, "changed conditional boundary", "SURVIVED"),
    (5, "ConditionalsBoundaryMutator", 7, "changed conditional boundary", "SURVIVED"),
    (8, "NegateConditionalsMutator", 30, "negated conditional", "KILLED"),
    (8, "NegateConditionalsMutator", 26, "negated conditional", "KILLED"),
    (8, "RemoveConditionalMutator_EQUAL_IF", 26, "replaced equality check with true", "SURVIVED"),
    (8, "RemoveConditionalMutator_EQUAL_IF", 30, "replaced equality check with true", "KILLED"),
]


def _xml(tmp_path: Path, rows=MUTATIONS) -> Path:
    body = "".join(
        f"<mutation detected='{s == 'KILLED'}' status='{s}' numberOfTestsRun='1'>"
        "<sourceFile>Range.java</sourceFile><mutatedClass>com.acme.Range</mutatedClass>"
        "<mutatedMethod>clamp</mutatedMethod><methodDescription>(ILjava/lang/String;)I"
        f"</methodDescription><lineNumber>{line}</lineNumber><mutator>"
        f"org.pitest.mutationtest.engine.gregor.mutators.{mutator}</mutator><indexes><index>"
        f"{index}</index></indexes><blocks><block>0</block></blocks><killingTests>"
        + ("com.acme.RangeTest.clamps(com.acme.RangeTest)" if s == "KILLED" else "")
        + "</killingTests><succeedingTests>"
        + ("" if s == "KILLED" else "com.acme.RangeTest.clamps(com.acme.RangeTest)")
        + f"</succeedingTests><description>{desc}</description></mutation>"
        for line, mutator, index, desc, s in rows
    )
    xml = tmp_path / "mutations.xml"
    xml.write_text(f"<?xml version='1.0' encoding='UTF-8'?><mutations>{body}</mutations>")
    return xml


def _read(xml: Path, source: str = SOURCE):
    return read_mutations(
        xml, {MAIN: source}, {"com.acme.Range": MAIN}, {"com.acme.RangeTest": TEST}
    )


def test_a_removed_conditional_reads_as_the_operand_it_changes(tmp_path):
    mutants, results = _read(_xml(tmp_path))
    shown = [(m.line, m.after) for m in mutants]
    assert shown == [
        (5, "if (false || pct > 100) {"),  # javac jumps into the body when `pct < 0`
        (5, "if (pct < 0 || true) {"),  # and past it when `pct > 100` is false
        (5, "if (true || pct > 100) {"),
        (5, "if (pct < 0 || false) {"),
        (5, "if (pct < 0 || pct >= 100) {"),  # ordered by PIT's bytecode index, not the file
        (5, "if (pct <= 0 || pct > 100) {"),
        (8, "if (name == null && pct != 0) {"),
        (8, "if (name != null && pct == 0) {"),
        (8, "if (true && pct == 0) {"),
        (8, "if (name == null && true) {"),
    ]
    survivor = mutants[0]
    assert (survivor.original, survivor.replacement) == ("pct < 0", "false")
    said = brief(survivor, results[survivor.id]).must_assert
    assert "`pct < 0` is true" in said and "||" not in said


@pytest.mark.parametrize(
    "line",
    [
        "        int x = pct < 0 ? 0 : pct;",  # a ternary: no statement to split
        "        if ((pct < 0 || pct > 100) && name != null) {",  # logic inside an operand
        "        if (name.equals(a == b ? x : y)) {",  # a jump inside a call's argument
        "        if (items.stream().anyMatch(i -> i > 0)) {",  # a lambda: another method's jumps
        "        } while (pct < 0);",  # do/while: javac jumps back when it holds
        "        if (pct < 0 ||",  # the condition goes on below
        "        if (a < b) return c == d;",  # more jumps after the condition
    ],
)
def test_lines_it_cannot_split_keep_pits_words(line):
    assert operands(line) is None


def test_a_count_that_does_not_match_keeps_pits_words(tmp_path):
    # one ORDER jump on a line with two ORDER operands: which one it is cannot be told
    rows = [
        (5, "RemoveConditionalMutator_ORDER_IF", 7, "replaced comparison check with true", "KILLED")
    ]
    (mutant,), _ = _read(_xml(tmp_path, rows))
    assert mutant.after == "replaced comparison check with true"
    assert mutant.before == "if (pct < 0 || pct > 100) {"


def test_strings_and_loops():
    (op,) = operands("        for (int i = 0; i < s.length(); i++) {") or []
    assert (op.kind, op.jumps_when_true) == ("ORDER", False)
    found = operands('        if (s == null || s.equals("a || b < c")) {') or []
    assert [(o.kind, o.jumps_when_true) for o in found] == [("EQUAL", True), ("EQUAL", False)]


AND = """package com.acme;

public final class Range {
    public static boolean both(boolean left, boolean right) {
        return left && right;
    }
}
"""


def test_a_returned_chain_reads_as_the_operand_it_changes(tmp_path):
    """jsemver's `return left.interpret(version) && right.interpret(version);` showed two
    survivors alike, "→ removed conditional - replaced equality check with true": which operand
    was not said. javac jumps to the false value when an operand of `&&` is false, as for `if`."""
    eq_if, eq_else = "RemoveConditionalMutator_EQUAL_IF", "RemoveConditionalMutator_EQUAL_ELSE"
    rows = [
        (5, eq_if, 1, "replaced equality check with true", "SURVIVED"),
        (5, eq_if, 5, "replaced equality check with true", "SURVIVED"),
        (5, eq_else, 1, "replaced equality check with false", "KILLED"),
        (5, eq_else, 5, "replaced equality check with false", "KILLED"),
    ]
    mutants, _ = _read(_xml(tmp_path, rows), AND)
    assert [m.after for m in mutants] == [
        "return true && right;",
        "return left && true;",
        "return false && right;",
        "return left && false;",
    ]
    (op,) = operands("        return count == 0;") or []
    assert (op.kind, op.jumps_when_true) == ("EQUAL", False)
    assert operands("        return a ? b : c;") is None
    assert operands("        return items.stream().anyMatch(i -> i > 0);") is None
