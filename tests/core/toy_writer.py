"""A toy writer, to prove that adding a writer is this module plus one line in `writers.WRITERS`: it
answers every target of `calc.py` with the same pytest file, naming its `--writer toy:ARG` argument
in the docstring, and answers feedback with the same file again."""

from __future__ import annotations

from assay.targets.model import Target
from assay.writers.base import Attempt, Feedback, WriteContext
from assay.writers.session import LoopWriter

SOURCE = '''"""Written by the toy writer ({arg})."""

from calc import add


def test_add():
    assert add(2, 3) == 5
    assert add(-4, 1) == -3
'''


class ToyWriter(LoopWriter):
    name = "toy"

    def write(self, target: Target, context: WriteContext) -> Attempt:
        return Attempt(
            target, context, SOURCE.format(arg=self.arg), "write", "adds small and negative numbers"
        )

    def revise(self, attempt: Attempt, feedback: Feedback) -> Attempt:
        return Attempt(
            attempt.target,
            attempt.context,
            attempt.source,
            "revise",
            attempt.rationale,
            parent=attempt,
        )
