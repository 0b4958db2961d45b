"""Gate 1 of a Java file takes the module's other test classes out of the scratch copy (a broken
sibling cannot fail the candidate), but keeps those the candidate uses: commons-codec's
`SoundexTest extends AbstractStringEncoderTest<Soundex>` was rejected at compile ("cannot find
symbol getStringEncoder()") because its base class is named like a test."""

from __future__ import annotations

import pytest

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


@pytest.mark.slow
def test_a_class_of_inherited_tests_collects_and_runs_them(tmp_path):
    """Slow: javac and a JVM, 13 s at load 35. commons-validator's LuhnCheckDigitTest declares
    only a `@BeforeEach`; its seven tests are those of AbstractCheckDigitTest, which it extends:
    the file was rejected at gate 1, "no tests collected", where `mvn test
    -Dtest=LuhnCheckDigitTest` runs seven."""
    root = java_project(tmp_path / "proj")
    base = BASE.replace("package com.acme;", "package com.acme.base;").replace(
        "import org.junit", "import com.acme.Calc;\nimport org.junit"
    )
    base = base.replace("abstract class", "public abstract class").replace(
        "    abstract int factor();", "    protected abstract int factor();"
    )
    (root / "src/com/acme/base").mkdir()
    (root / "src/com/acme/base/AbstractCalcTest.java").write_text(base)
    user = USER.replace(
        "package com.acme;", "package com.acme;\n\nimport com.acme.base.AbstractCalcTest;"
    ).replace("    int factor()", "    protected int factor()")
    (root / "src/com/acme/TwiceTest.java").write_text(user)
    settings = Settings(cache=False)
    runner = LANGUAGES["java"].runner(
        Sandbox(settings.sandbox, protect=root), Project.load(root), settings
    )
    with Workspace(root) as ws:
        compiled = runner.compile(ws, ["src/com/acme/TwiceTest.java"])
        assert compiled.ok, (compiled.errors, compiled.crash)
        assert compiled.collected == ["src/com/acme/TwiceTest.java::scales"]
        ran = runner.run(ws, ["src/com/acme/TwiceTest.java"], compiled.collected)
        assert {t: r.outcome.value for t, r in ran.tests.items()} == {
            "src/com/acme/TwiceTest.java::scales": "passed"
        }, ran
