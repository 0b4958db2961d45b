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
    assert brief(mutant, MutantResult(Status.SURVIVED)).suggested_test == "test_next_fnvalue"
