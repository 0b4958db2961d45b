"""Gate 1 of a Java file takes the module's other test classes out of the scratch copy (a broken
sibling cannot fail the candidate), but keeps those the candidate uses: commons-codec's
`SoundexTest extends AbstractStringEncoderTest<Soundex>` was rejected at compile ("cannot find
symbol getStringEncoder()") because its base class is named like a test."""

from __future__ import annotations

from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.project import Project
from assay.sandbox import Sandbox
from tests.languages.test_java_plan import java_project

BASE = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

abstract class AbstractCalcTest {
    abstract int factor();

    @Test
    void scales() {
        assertEquals(2 * factor(), Calc.twice(factor()));
    }
}
"""
USER = """package com.acme;

class TwiceTest extends AbstractCalcTest {
    @Override
    int factor() {
        return 3;
    }
}
"""
BROKEN = """package com.acme;

import org.junit.jupiter.api.Test;

class BrokenTest {
    @Test
    void broken() { int x = "no"; }
}
"""


def test_a_test_base_class_the_file_uses_stays_and_a_broken_sibling_goes(tmp_path):
    root = java_project(tmp_path / "proj")
    for name, text in {"AbstractCalcTest": BASE, "TwiceTest": USER, "BrokenTest": BROKEN}.items():
        (root / f"src/com/acme/{name}.java").write_text(text)
    settings = Settings(cache=False)
    runner = LANGUAGES["java"].runner(
        Sandbox(settings.sandbox, protect=root), Project.load(root), settings
    )
    with Workspace(root) as ws:
        compiled = runner.compile(ws, ["src/com/acme/TwiceTest.java"])
        assert compiled.ok, (compiled.errors, compiled.crash)
        assert ws.path("src/com/acme/AbstractCalcTest.java").is_file()
        assert not ws.path("src/com/acme/BrokenTest.java").exists()
        assert not ws.path("src/com/acme/OrderTest.java").exists()
