"""Each language's example project through every gate with its real toolchain: a good, a
non-compiling, a failing and a flaky test, with the verdicts the example expects
(`assay-expected.toml`, as `assay demo --language` checks), compact compiler feedback at the test
file's lines; gate 4 on the language's own tool (PIT, StrykerJS) where one is registered: the good
file accepted, a weak one rejected with survivors as file:line and original → mutant; elsewhere the
mutation skip visible in every report format."""

from __future__ import annotations

import json

import pytest

from assay.demo import surprises
from assay.mutation.tools import REGISTRY
from assay.report import junit, markdown, text
from tests.languages.conftest import EXAMPLES, digest, tool_missing

pytestmark = pytest.mark.slow
LANGS = list(EXAMPLES)


@pytest.mark.parametrize("lang", LANGS)
def test_example_verdicts_are_as_expected(examples, lang):
    if tool_missing(lang):
        pytest.skip(tool_missing(lang))
    project, report = examples.report(lang)
    assert surprises(report, project / "assay-expected.toml") == []
    assert {f.language for f in report.files} == {lang}


@pytest.mark.parametrize("lang", LANGS)
def test_compile_feedback_is_compact_and_at_the_test_files_lines(examples, lang):
    _, report = examples.report(lang)
    bad = next(f for f in report.files if f.rejected_at == "compile")
    gate = bad.gates[0]
    lines = gate.feedback.splitlines()
    assert lines[0] == "REJECT: Gate 1 — COMPILE ERROR"
    body = lines[1:-1]
    assert body and all(ln.startswith(f"{bad.path}:") for ln in body), gate.feedback
    assert any(w in gate.feedback.lower() for w in ("pricing", "package", "import")), gate.feedback
    assert len(lines) <= 50
    assert gate.details["raw_lines"] >= len(body) and gate.details["compile_errors"] == len(body)
    noise = ("[INFO]", "Downloading", "warning:", "Compiling ", "npm warn")
    assert not any(n in gate.feedback for n in noise)


@pytest.mark.parametrize("lang", LANGS)
def test_failing_and_flaky_tests_are_named_with_the_runners_own_words(examples, lang):
    _, report = examples.report(lang)
    wrong = next(f for f in report.files if f.rejected_at == "green")
    feedback = next(g for g in wrong.gates if g.gate == "green").feedback
    # expected and actual, from the structured result
    assert "67" in feedback and "66" in feedback, feedback
    rejected = [t for t in wrong.tests if t.verdict.value == "rejected"]
    assert len(rejected) == 1 and rejected[0].id.startswith(wrong.path + "::")
    flaky = next(f for f in report.files if f.verdict.value == "flaky")
    assert [t.verdict.value for t in flaky.tests].count("flaky") == 1


SOURCES = {
    "java": "src/main/java/com/acme/Price.java",
    "typescript": "src/price.ts",
    "go": "price/price.go",
    "rust": "src/lib.rs",
}


# every example has a weak test file for gate 4: through `assay verify`, its targets found from the
# test's own names (Go and Rust had none: their gate 4 skipped, "no target", and accepted it)
@pytest.mark.parametrize("lang", list(SOURCES))
def test_gate_4_runs_the_languages_tool_and_rejects_the_weak_file(examples, lang):
    if tool_missing(lang):
        pytest.skip(tool_missing(lang))
    _, report = examples.report(lang)
    good = next(f for f in report.files if f.verdict.value == "accepted")
    mutation = next(g for g in good.gates if g.gate == "mutation")
    # Go's engine finds that one good test kills none of its operators' mutants: a warning
    assert mutation.status.value in ("pass", "warn"), mutation.feedback
    assert mutation.details["tool"] == REGISTRY[lang].name and mutation.details["killed"] > 0
    # a tool without per-test kills (cargo-mutants) makes no good test `low_value`, nor redundant
    assert sum(t.verdict.value == "accepted" for t in good.tests) >= 2, good.tests
    if not REGISTRY[lang].per_test_kills:
        assert not mutation.notes, mutation.notes
    weak = next(f for f in report.files if f.rejected_at == "mutation")
    lines = weak.gates[-1].feedback.splitlines()
    assert lines[0].startswith("REJECT: Gate 4 — LOW MUTATION SCORE"), lines
    assert lines[1].startswith(f"1. File: {SOURCES[lang]}, line "), lines
    assert lines[2].startswith("   Mutation: `") and "` → `" in lines[2], lines
    assert any(ln.startswith(f"   Closest tests: {weak.path}::") for ln in lines), lines


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang not in REGISTRY])
def test_good_file_is_accepted_with_the_mutation_skip_in_every_format(examples, lang):
    _, report = examples.report(lang)
    good = next(f for f in report.files if f.verdict.value == "accepted")
    assert len(good.tests) == 3 and all(t.verdict.value == "accepted" for t in good.tests)
    gates = {g.gate: g for g in good.gates}
    assert gates["smells"].status.value == "pass"
    reason = f"not available for {lang} yet"
    assert (
        gates["mutation"].status.value == "skip" and reason in gates["mutation"].details["reason"]
    )
    assert f"mutation skipped: {reason}" in text.render(report)
    assert reason in json.dumps(report.to_json())
    assert reason in junit.render(report)
    assert reason in markdown.render(report)


@pytest.mark.parametrize("lang", LANGS)
def test_user_tree_is_left_as_it_was(examples, lang):
    project, _ = examples.report(lang)
    assert digest(project) == examples.before[lang]
