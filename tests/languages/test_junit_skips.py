"""A JUnit test that is skipped is `unvalidated` with its reason: the JUnit console launcher writes
it as the `<skipped>` element's text (not a `message` attribute, as Surefire does), and a bare
`@Disabled` as JUnit's own "void com.acme.T.m() is @Disabled". The reason read was empty
("skipped:")."""

from __future__ import annotations

import shutil

import pytest

from assay import api
from assay.languages import junit_xml
from tests.languages.conftest import copy_example

SKIPS = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class PriceSkipTest {
    @Test
    void totalAddsPrices() {
        assertEquals(350, Price.total(100, 250));
    }

    @Disabled("rounding rule not settled")
    @Test
    void discountWithReason() {
        assertEquals(66, Price.discount(95, 30));
    }

    @Disabled
    @Test
    void discountWithoutReason() {
        assertEquals(66, Price.discount(95, 30));
    }
}
"""

# as junit-platform-console-standalone 1.14.1 wrote it for SKIPS (trimmed to the test cases)
LAUNCHER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="JUnit Jupiter" tests="3" skipped="2" failures="0" errors="0" time="0.096">
<testcase name="totalAddsPrices()" classname="com.acme.PriceSkipTest" time="0.01"/>
<testcase name="discountWithReason()" classname="com.acme.PriceSkipTest" time="0">
<skipped><![CDATA[rounding rule not settled]]></skipped>
</testcase>
<testcase name="discountWithoutReason()" classname="com.acme.PriceSkipTest" time="0">
<skipped><![CDATA[void com.acme.PriceSkipTest.discountWithoutReason() is @Disabled]]></skipped>
</testcase>
<testcase name="surefire()" classname="com.acme.PriceSkipTest" time="0">
<skipped message="skipped by Surefire's words"/>
</testcase>
</testsuite>
"""


def test_the_skip_reason_is_the_elements_text_and_a_bare_disabled_is_named(tmp_path):
    xml = tmp_path / "TEST-junit-jupiter.xml"
    xml.write_text(LAUNCHER_XML)
    results = junit_xml.read([xml], lambda cls, name: name.removesuffix("()"))
    assert results["totalAddsPrices"].message == ""
    assert results["discountWithReason"].message == "rounding rule not settled"
    assert results["discountWithoutReason"].message == "@Disabled"
    assert results["surefire"].message == "skipped by Surefire's words"


@pytest.mark.slow
def test_disabled_tests_of_the_java_example_are_unvalidated_with_their_reason(tmp_path):
    """Slow (a Maven build and a JVM, 10-40 s): gates 1 and 2 on the Java example."""
    if shutil.which("mvn") is None:
        pytest.skip("Maven is not installed")
    project = copy_example("java", tmp_path)
    test = project / "src/test/java/com/acme/PriceSkipTest.java"
    test.write_text(SKIPS)
    report = api.verify(
        [test], root=project, use_cache=False, overrides={"gates": ["compile", "green"]}
    )
    f = report.files[0]
    reasons = {t.id.rsplit("::", 1)[1]: t.reason for t in f.tests}
    assert reasons["discountWithReason"] == "skipped: rounding rule not settled", reasons
    assert reasons["discountWithoutReason"] == "skipped: @Disabled", reasons


def test_a_skip_without_a_reason_says_so(tmp_path):
    """mocha's `this.skip()` (body-parser's zstandard tests on Node 20) gives no reason: the line
    read "skipped:", as if cut off."""
    from assay.dependencies import Dependencies
    from assay.execution.runner import Outcome
    from assay.execution.runner import TestResult as Result
    from assay.execution.runner import TestRun as Run
    from assay.gates.green_outcomes import judge_run

    run = Run(tests={"t.js::zstd": Result("t.js::zstd", Outcome.SKIPPED, message="")})
    [outcome], _, _ = judge_run(run, "green", Dependencies(tmp_path, [], set()), "javascript")
    assert outcome.reason == "skipped (no reason given)"
