"""A JDK newer than the project's test libraries: semver4j's tests mock with mockito 1.10, whose
cglib defines classes through `ClassLoader.defineClass`, which JDK 16 and later keep closed to
the class path (`InaccessibleObjectException`). SemverTest was `rejected` at gate 2, "Fix expected
values or setup", for tests that pass on the JDKs the project supports; RequirementTest's later
mocks said only "Could not initialize class …ClassImposterizer$3". Both are the environment's:
`unvalidated`, with what to do, and the file's other tests go on (gate 3's JVM plan used to stop at
the first run where the unjudged test failed again)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import api
from assay.dependencies import Dependencies
from assay.execution.runner import Outcome
from assay.execution.runner import TestResult as Result
from assay.execution.runner import TestRun as Run
from assay.gates.green_outcomes import judge_run
from assay.model import GateStatus, Verdict
from tests.languages.conftest import copy_example, tool_missing

# semver4j's first mock on JDK 17, as JUnit's XML gives it (cut)
CLOSED = (
    "java.lang.ExceptionInInitializerError\n"
    "Caused by: java.lang.reflect.InaccessibleObjectException: Unable to make protected final "
    "java.lang.Class java.lang.ClassLoader.defineClass(java.lang.String,byte[],int,int,"
    "java.security.ProtectionDomain) throws java.lang.ClassFormatError accessible: module "
    'java.base does not "opens java.lang" to unnamed module @6c4980d3\n'
    "  at org.mockito.cglib.core.KeyFactory$Generator.generateClass(KeyFactory.java:167)"
)
LATER = "Could not initialize class org.mockito.internal.creation.cglib.ClassImposterizer$3"


def test_a_closed_jdk_package_is_the_environments_and_so_are_its_later_failures(tmp_path):
    run = Run(
        tests={
            "T.java::mocksFirst": Result("T.java::mocksFirst", Outcome.FAILED, message=CLOSED),
            "T.java::mocksAgain": Result("T.java::mocksAgain", Outcome.FAILED, message=LATER),
            "T.java::asserts": Result("T.java::asserts", Outcome.FAILED, message="expected 1"),
            "T.java::passes": Result("T.java::passes", Outcome.PASSED),
        }
    )
    outcomes, body, gaps = judge_run(run, "green", Dependencies(tmp_path, [], set()), "java")
    verdicts = {o.id: o.verdict for o in outcomes}
    assert verdicts == {
        "T.java::mocksFirst": Verdict.UNVALIDATED,
        "T.java::mocksAgain": Verdict.UNVALIDATED,
        "T.java::asserts": Verdict.REJECTED,  # a failure of its own stays the test's
    }
    assert gaps == {
        "no reflective access to java.base/java.lang": ["T.java::mocksFirst", "T.java::mocksAgain"]
    }
    assert [line.split(":")[0] for line in body] == ["T.java"]  # only the assertion's
    # without a closed package in the run, an initializer's failure is the test's
    alone = Run(tests={"T.java::x": Result("T.java::x", Outcome.FAILED, message=LATER)})
    outcomes, _, gaps = judge_run(alone, "green", Dependencies(tmp_path, [], set()), "java")
    assert outcomes[0].verdict is Verdict.REJECTED and not gaps


# a test helper that reflects into java.lang as mockito 1.10's cglib does
PROXIES = """package com.acme;

import java.lang.reflect.Method;

final class OldProxies {
    static void define() throws Exception {
        Method define = ClassLoader.class.getDeclaredMethod(
            "defineClass", String.class, byte[].class, int.class, int.class);
        define.setAccessible(true);
    }
}
"""
MOCKING = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PriceMockTest {
    @Test
    void totalIsNotNegative() {
        assertTrue(Price.total(100, 250) >= 0);
    }

    @Test
    void totalThroughAProxy() throws Exception {
        OldProxies.define();
        assertEquals(100, Price.total(100));
    }
}
"""


@pytest.mark.slow
def test_a_file_with_a_test_the_jdk_stops_is_unvalidated_and_its_others_judged(tmp_path):
    if shutil.which("mvn") is None or tool_missing("java"):
        pytest.skip(tool_missing("java") or "mvn not installed")
    root: Path = copy_example("java", tmp_path)
    tests = root / "src/test/java/com/acme"
    for old in tests.iterdir():
        old.unlink()
    (tests / "OldProxies.java").write_text(PROXIES)
    test = tests / "PriceMockTest.java"
    test.write_text(MOCKING)
    (entry,) = api.verify([test], root=root, use_cache=False).files
    gates = {g.gate: g for g in entry.gates}
    assert entry.verdict is Verdict.UNVALIDATED, [g.feedback for g in entry.gates]
    assert "JDK TOO NEW" in gates["green"].feedback
    assert gates["stability"].status is GateStatus.PASS, gates["stability"].feedback
    # PIT measured the test that ran (it had stopped: "did not pass without mutation"); its
    # survivors may be the unjudged test's to kill, so the score is not judged either
    mutation = gates["mutation"]
    assert mutation.status is GateStatus.SKIP and mutation.details["killed"] > 0, mutation.feedback
    assert "(gate 2 says what is missing)" in mutation.feedback
    by_id = {t.id.rsplit("::", 1)[1]: t for t in entry.tests}
    assert "--add-opens java.base/java.lang" in by_id["totalThroughAProxy"].reason
