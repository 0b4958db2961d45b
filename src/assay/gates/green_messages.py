"""Gate 2's headers and hints: what each kind of failure or environment gap tells the user."""

from __future__ import annotations

HEADER = "REJECT: Gate 2 — TEST FAILURE"
HINT = "Fix expected values or setup. Do not fit the test to the code: check the real contract."
# every failure a test that ran past the sandbox's limit: mccabe's property test of 1,000 examples
# takes about a minute quiet, and "fix expected values" said nothing of the limit
TIMEOUT_HINT = (
    "The test ran past assay's limit per run ([tool.assay.sandbox] timeout_s): make it faster, "
    "or raise the limit if it needs longer (a property test of many examples, a benchmark)."
)
# every failure was raised below the test, in the project's own code (validators' decorator)
PROJECT_HINT = (
    "Fix these first: the project's own code raised each error ({where}), not an assertion of the"
    " test. If the project is wrong there, fix the project; if the test calls it wrongly, fix the"
    " call. Do not fit the test to the code."
)
GAP_HEADER = "UNVALIDATED: Gate 2 — MISSING DEPENDENCY"
PYTHON_HEADER = "UNVALIDATED: Gate 2 — PYTHON TOO NEW FOR THE PROJECT"
PYTHON_HINT = (
    "Not judged: the project's code uses what this Python no longer has ({missing}); point "
    "assay at an interpreter the project supports (`[tool.assay.python] interpreter`)."
)
REMOVED = " in this Python (removed in "  # `no inspect.getargspec in this Python (removed in 3.11)`
GAP_HINT = (
    "Not judged: install {missing} for {python} and run again "
    "(the other tests went on through the gates)."
)
# zipp's big-O timings: a failure the test's author expects may happen is not a wrong expectation
MARKED = "failed, and its author marks it flaky (@pytest.mark.flaky)"
TIMED = "failed, and it compares durations it measures"
TIMED_HEADER = "UNVALIDATED: Gate 2 — A TEST THAT TIMES THE CODE FAILED"
TIMED_HINT = (
    "Not judged: a busy machine makes every duration it measures longer, so its failure here says "
    "nothing of the code; run it on a quiet machine, or count the work done instead of timing it "
    "(the other tests went on through the gates)."
)
MARKED_HEADER = "UNVALIDATED: Gate 2 — A TEST ITS AUTHOR MARKS FLAKY FAILED"
MARKED_HINT = (
    "Not judged: its author expects it may fail (a time measured on a busy machine, a race), so "
    "its failure here says nothing of its expectations; make it deterministic, or run it where "
    "it passes (the other tests went on through the gates)."
)
# a locale comes with the system, not with the interpreter nor pip
LOCALE_HEADER = "UNVALIDATED: Gate 2 — MISSING SYSTEM LOCALE"
LOCALE_HINT = (
    "Not judged: generate {missing} on this system (locale-gen, or the locales-all package) and "
    "run again (the other tests went on through the gates)."
)
# a program comes with the system too (a server a test starts, a CLI the project calls)
PROGRAM_HEADER = "UNVALIDATED: Gate 2 — MISSING PROGRAM"
PROGRAM_HINT = (
    "Not judged: install {missing} on this system, on PATH where the tests run, and run again (the "
    "other tests went on through the gates)."
)
JDK_HEADER = "UNVALIDATED: Gate 2 — JDK TOO NEW FOR THE TEST DEPENDENCIES"
JDK_HINT = (
    "Not judged: a library the tests run reflects into the JDK's closed packages ({missing}); run "
    "on a JDK the project supports, or open them to the tests' JVM (`--add-opens`), and run again "
    "(the other tests went on through the gates)."
)
# a non-strict xfail that passes (XPASS) passes for pytest and says nothing of the test either way;
# its author expects it to fail: unjudged, as an xfail is (pytest fails a strict one itself)
