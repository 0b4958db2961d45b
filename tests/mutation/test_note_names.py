"""Gate 4's notes name a test as it is named within its file, class and all."""

from __future__ import annotations

from assay.mutation.model import MutationResult
from assay.mutation.summary import unobserved_note


def test_the_unobserved_note_names_a_mixins_tests_by_their_class():
    """Unidecode 1.4.0's test_all_to_ascii runs under three TestCase classes of one mixin: the note
    read "2 tests ran unobserved (...): test_all_to_ascii, test_all_to_ascii"."""
    run = MutationResult(
        mutants=[],
        results={},
        sources={},
        unobserved=(
            [
                "tests/test_u.py::TestPlain::test_all_to_ascii",
                "tests/test_u.py::TestAscii::test_all_to_ascii",
            ],
            "observed, slower than 3 x its own time",
        ),
    )
    note = unobserved_note(run)
    assert note is not None
    assert "TestPlain::test_all_to_ascii, TestAscii::test_all_to_ascii;" in note
    assert "tests/test_u.py" not in note
