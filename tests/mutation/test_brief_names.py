"""The name a survivor brief suggests for the killing test, in the code's own language:
go-multierror's feedback said "(e.g. test_less_CONDITIONALS_BOUNDARY)", a name `go test` never
runs."""

from __future__ import annotations

from assay.mutation.briefs import killing_test_name


def test_a_suggested_test_is_named_as_its_language_names_tests():
    go = killing_test_name("sort.go", "less", "CONDITIONALS_BOUNDARY")
    assert go == "TestLessConditionalsBoundary"
    assert killing_test_name("src/main/java/a/Hex.java", "encode_hex", "at_boundary") == (
        "encodeHexAtBoundary"
    )
    assert killing_test_name("src/lib.rs", "decode", "CONDITIONALS_NEGATION") == (
        "test_decode_conditionals_negation"
    )
    assert killing_test_name("pkg/span.py", "span", "arithmetic") == "test_span_arithmetic"


def test_a_rust_methods_brief_is_named_after_the_method():
    """hex: "(e.g. test__impl_iterator_for_bytestohexchars_a_next_FnValue)"."""
    from dataclasses import replace

    from assay._assay_sandbox.mutation.protocol import Status
    from assay.mutation.briefs import brief
    from assay.mutation.model import MutantResult
    from assay.mutation.tools.base import span_mutant

    source = "fn next(&mut self) -> Option<char> {\n    self.inner.next()\n}\n"
    mutant = span_mutant("m", "src/lib.rs", source, (2, 5), (2, 22), "None", "FnValue")
    mutant = replace(mutant, function="<impl Iterator for BytesToHexChars<'a>>::next")
    # cargo-mutants' FnValue is a return-value mutant: named, and advised, as Python's are
    assert brief(mutant, MutantResult(Status.SURVIVED)).suggested_test == "test_next_returns_value"


def _survivor(file: str, source: str, span: tuple, text: str, operator: str, function: str = ""):
    from dataclasses import replace

    from assay._assay_sandbox.mutation.protocol import Status
    from assay.mutation.briefs import brief
    from assay.mutation.model import MutantResult
    from assay.mutation.tools.base import span_mutant

    mutant = span_mutant("m", file, source, span[0], span[1], text, operator)
    return brief(replace(mutant, function=function), MutantResult(Status.SURVIVED))


NANOID = (
    "export function customAlphabet(alphabet, defaultSize = 21) {\n"
    "  if (alphabet.length > 256) {\n    return slow(alphabet)\n  }\n}\n"
)


def test_a_javascript_survivors_brief_names_a_test_as_vitest_jest_and_node_test_do():
    """nanoid (StrykerJS): "(e.g. test_module_blockstatement)", "(e.g.
    test_module_equalityoperator)" - pytest's names - and "a result that differs between `export
    function customAlphabet(…) …` and `export function customAlphabet(…) …`"."""
    b = _survivor(
        "index.js", NANOID, ((2, 6), (2, 28)), "alphabet.length >= 256", "EqualityOperator"
    )
    assert b.suggested_test == 'test("index both sides")'
    assert b.must_assert == "the result on both sides of `alphabet.length > 256`"
    b = _survivor("index.js", NANOID, ((1, 62), (5, 1)), "{}", "BlockStatement")
    assert b.suggested_test == 'test("customAlphabet has effect")'
    assert b.must_assert == "what `customAlphabet` returns or does (the mutant's body is empty)"
    b = _survivor(
        "src/price.ts",
        "const f = (a) => a + 1;\n",
        ((1, 18), (1, 23)),
        "a - 1",
        "ArithmeticOperator",
        "f",
    )
    assert b.suggested_test == 'test("f arithmetic")'
    assert b.must_assert.startswith("the exact result of `const f = (a) => a + 1;`")


def test_a_java_survivors_brief_is_advised_by_what_pits_mutator_changes():
    """PIT's mutator names fell through to the generic advice and into the name
    (`totalConditionalsboundarymutator`)."""
    source = "    if (c < 0) {\n"
    b = _survivor(
        "src/main/java/a/Price.java",
        source,
        ((1, 9), (1, 14)),
        "c <= 0",
        "ConditionalsBoundaryMutator",
        "a.Price.total",
    )
    assert b.suggested_test == "totalAtBoundary"
    assert b.must_assert.startswith("the result for an input exactly on the boundary of `c < 0`")
    b = _survivor(
        "src/main/java/a/Price.java",
        source,
        ((1, 9), (1, 14)),
        "c >= 0",
        "NegateConditionalsMutator",
        "a.Price.total",
    )
    assert b.suggested_test == "totalBothSides"


def test_cargo_mutants_binary_operator_is_advised_by_the_operators_it_swaps():
    """strsim: cargo-mutants names every operator swap `BinaryOperator` (`&&`, `==` and `>`
    alike), which fell to "a result that differs between `…` and `…`"."""
    source = "    if a.len() > b && c == 1 {\n        x += a - 1;\n"

    def advice(start: tuple, end: tuple, text: str) -> str:
        return _survivor(
            "src/lib.rs", source, (start, end), text, "BinaryOperator", "f"
        ).must_assert

    assert advice((1, 20), (1, 22), "||").startswith("the result for inputs where only one operand")
    assert advice((1, 16), (1, 17), ">=").startswith(
        "the result for an input exactly on the boundary"
    )
    assert advice((1, 16), (1, 17), "==").startswith("the result on both sides of")
    assert advice((1, 25), (1, 27), "!=").startswith("the result on both sides of")
    assert advice((2, 16), (2, 17), "+").startswith("the exact result of")
    assert advice((2, 11), (2, 13), "-=").startswith("the exact value after")
    assert (
        _survivor(
            "src/lib.rs", source, ((1, 20), (1, 22)), "||", "BinaryOperator", "f"
        ).suggested_test
        == "test_f_boolean_operator"
    )


def test_a_camel_case_function_keeps_its_words_in_the_suggested_name():
    """go-version: `newVersion` gave "(e.g. TestNewversionAtBoundary)"."""
    assert killing_test_name("version.go", "newVersion", "at_boundary") == (
        "TestNewVersionAtBoundary"
    )
    assert killing_test_name("src/main/java/a/Hex.java", "encodeHex", "both_sides") == (
        "encodeHexBothSides"
    )
    assert killing_test_name("pkg/url.py", "parseURL", "arithmetic") == "test_parse_url_arithmetic"


def test_an_else_if_brief_names_its_condition():
    """smetrics' soundex.go: "the result on both sides of `} else if c < 'A' || c > 'Z' {`"."""
    source = "\tif c >= 'a' {\n\t\tc -= 32\n\t} else if c < 'A' || c > 'Z' {\n\t\tcontinue\n\t}\n"
    said = _survivor(
        "soundex.go", source, ((3, 14), (3, 21)), "c >= 'A'", "CONDITIONALS_NEGATION", "Soundex"
    )
    assert said.must_assert == "the result on both sides of `c < 'A' || c > 'Z'`"
