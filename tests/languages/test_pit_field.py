"""PIT on a project of JUnit 4 tests: assay added PIT's JUnit 5 plugin to every build, and on a
class path without the JUnit platform its coverage minion died (`NoClassDefFoundError:
org/junit/platform/commons/PreconditionViolationException`): ulid-creator's UlidTest, gates 1-3
passed, gate 4 `unvalidated` "Coverage generator Minion exited abnormally". PIT runs JUnit 4 by
itself; the plugin is added only to a build on the JUnit platform."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import api
from assay.languages.maven_tools import add_pit_plugin, on_junit_platform
from assay.model import GateStatus, Verdict
from tests.languages.conftest import copy_example, tool_missing

JUNIT4 = """package com.acme;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class PriceJUnit4Test {
    @Test
    public void totalAddsPrices() {
        assertEquals(350, Price.total(100, 250));
    }

    @Test(expected = IllegalArgumentException.class)
    public void totalRejectsNegativePrices() {
        Price.total(100, -1);
    }

    @Test
    public void discountRoundsDown() {
        assertEquals(66, Price.discount(95, 30));
        assertEquals(95, Price.discount(95, 0));
        assertEquals(0, Price.discount(95, 100));
    }
}
"""
JUPITER = """    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.14.1</version>
      <scope>test</scope>
    </dependency>"""
JUNIT = """    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
      <scope>test</scope>
    </dependency>"""


def _gate4(tmp_path, name: str, text: str, junit4: bool = False):
    """The Java example with `text` as its only test class (on JUnit 4 if told), verified: the
    file's report and its gate 4."""
    if shutil.which("mvn") is None or tool_missing("java"):
        pytest.skip(tool_missing("java") or "mvn not installed")
    root = copy_example("java", tmp_path)
    if junit4:
        pom = root / "pom.xml"
        pom.write_text(pom.read_text().replace(JUPITER, JUNIT))
    for old in (root / "src/test/java/com/acme").iterdir():
        old.unlink()
    test = root / f"src/test/java/com/acme/{name}.java"
    test.write_text(text)
    (entry,) = api.verify([test], root=root, use_cache=False).files
    return entry, next(g for g in entry.gates if g.gate == "mutation")


def test_the_junit5_plugin_goes_only_into_a_build_on_the_junit_platform(tmp_path):
    pom = tmp_path / "pom.xml"
    project = "<project><dependencies>\n{}\n</dependencies><build></build></project>"
    pom.write_text(project.format(JUNIT))
    add_pit_plugin(pom, on_junit_platform(pom, tmp_path))
    assert "pitest-maven" in pom.read_text() and "pitest-junit5-plugin" not in pom.read_text()
    pom.write_text(project.format(JUPITER))
    add_pit_plugin(pom, on_junit_platform(pom, tmp_path))
    assert "pitest-junit5-plugin" in pom.read_text()
    (tmp_path / "module").mkdir()  # a module whose parent build names the platform
    (tmp_path / "module/pom.xml").write_text(project.format(""))
    assert on_junit_platform(tmp_path / "module/pom.xml", tmp_path)
    assert not on_junit_platform(tmp_path / "module/pom.xml", tmp_path / "module")


@pytest.mark.slow
def test_gate_4_measures_a_junit4_test_with_pit(tmp_path):
    entry, gate = _gate4(tmp_path, "PriceJUnit4Test", JUNIT4, junit4=True)
    assert gate.status is GateStatus.PASS, gate.feedback
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]


TOTAL_ONLY = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PriceTotalTest {
    @Test
    void addsPrices() {
        assertEquals(350, Price.total(100, 250));
        assertEquals(0, Price.total());
    }

    @Test
    void rejectsNegativePrices() {
        assertThrows(IllegalArgumentException.class, () -> Price.total(100, -1));
    }
}
"""


@pytest.mark.slow
def test_gate_4_judges_a_java_test_by_the_methods_it_runs(tmp_path):
    """ulid-creator's UlidTest calls `UlidCreator.getUlid()` to make a value and was rejected for
    the rest of UlidCreator (17.6%): PIT's NoCoverage mutants of methods the file never runs are out
    of its scope, as in Python, Go, Rust and JavaScript."""
    _, gate = _gate4(tmp_path, "PriceTotalTest", TOTAL_ONLY)
    assert gate.status is GateStatus.PASS, gate.feedback
    assert "discount" not in gate.feedback


ABOVE_ONLY = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PriceDiscountTest {
    @Test
    void rejectsMoreThanAll() {
        assertEquals(66, Price.discount(95, 30));
        assertThrows(IllegalArgumentException.class, () -> Price.discount(95, 101));
    }
}
"""


@pytest.mark.slow
def test_pits_removed_conditional_is_shown_as_the_operand_it_changes(tmp_path):
    """`if (pct < 0 || pct > 100)`: PIT's "replaced comparison check with true" on `pct < 0` makes
    it false (javac jumps into the body when it holds); it survives a test that never passes a
    negative percentage and is shown as such, not as a condition that always throws."""
    _, gate = _gate4(tmp_path, "PriceDiscountTest", ABOVE_ONLY)
    shown = {(s["original"], s["mutated"]) for s in gate.details["survivors"]}
    assert ("if (pct < 0 || pct > 100) {", "if (false || pct > 100) {") in shown, shown
    assert not any("replaced comparison check" in mutated for _, mutated in shown), shown


JACOCO = "0.8.12"
# commons-parent's `jacoco` profile: prepare-agent after test-compile, and surefire's argLine
# built on the `${argLine}` it sets
LATE_ARGLINE = f"""      <plugin>
        <groupId>org.jacoco</groupId>
        <artifactId>jacoco-maven-plugin</artifactId>
        <version>{JACOCO}</version>
        <executions>
          <execution>
            <id>prepare-agent</id>
            <phase>process-test-classes</phase>
            <goals><goal>prepare-agent</goal></goals>
          </execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.5.2</version>
        <configuration><argLine>${{argLine}} -Duser.language=en</argLine></configuration>
      </plugin>"""


@pytest.mark.slow
def test_pit_runs_where_surefires_arg_line_is_set_after_test_compile(tmp_path):
    """Slow: Maven and PIT on the Java example (200 s at load 30). commons-validator 1.9.0 (as
    cloned, with commons-parent's JaCoCo profile on): PIT ran after `test-compile`, before
    prepare-agent set `${argLine}`, and its minion JVM took `${argLine}` for its main class: every
    file `unvalidated` at gate 4, "Coverage generator Minion exited abnormally due to
    MINION_DIED"."""
    if not (Path.home() / f".m2/repository/org/jacoco/jacoco-maven-plugin/{JACOCO}").is_dir():
        pytest.skip(f"jacoco-maven-plugin {JACOCO} is not in ~/.m2 (.ci/toolchains fetches it)")
    if shutil.which("mvn") is None or tool_missing("java"):
        pytest.skip(tool_missing("java") or "mvn not installed")
    root = copy_example("java", tmp_path)
    pom = root / "pom.xml"
    text = pom.read_text()
    start = text.index(
        "      <plugin>\n        <groupId>org.apache.maven.plugins</groupId>\n"
        "        <artifactId>maven-surefire-plugin</artifactId>"
    )
    end = text.index("</plugin>", start) + len("</plugin>")
    pom.write_text(text[:start] + LATE_ARGLINE + text[end:])
    for old in (root / "src/test/java/com/acme").iterdir():
        old.unlink()
    test = root / "src/test/java/com/acme/PriceTotalTest.java"
    test.write_text(TOTAL_ONLY)
    (entry,) = api.verify([test], root=root, use_cache=False).files
    gate = next(g for g in entry.gates if g.gate == "mutation")
    assert gate.status is GateStatus.PASS, gate.feedback
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]
