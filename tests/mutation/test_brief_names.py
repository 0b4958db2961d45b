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
