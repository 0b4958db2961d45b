"""Gate 1's advice for a file it cannot judge fits the cause: only a dependency missing from the
cache is "fetched". commons-text's RAT licence check stopping Maven, a Go package whose own code
does not build, and a compiler out of time all read "Fetch the project's dependencies once (the
sandbox has no network)" and, in the summary, "install it there and run again" (trials27c)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.model import FileReport, Verdict
from assay.pipeline import cacheable

FETCH = "Fetch the project's dependencies"
POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>price</artifactId>
  <version>1.0</version>
</project>
"""
JAVA_TEST = """package com.acme;

import org.junit.jupiter.api.Test;

class PriceTest {
    @Test
    void adds() {}
}
"""
# Maven's words when the RAT check of `validate` stops the build (commons-text, commons-lang3)
RAT = (
    "[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.16.1:check (rat-check) on "
    "project price: Too many files with unapproved license: 3 See RAT report in: "
    "$PWD/target/rat.txt -> [Help 1]"
)


def _java(root: Path, compile_command: list[str]) -> Path:
    """A Maven project whose gate-1 build is `compile_command` (the user's own, as
    `[java] compile_command` allows)."""
    test = root / "src/test/java/com/acme/PriceTest.java"
    test.parent.mkdir(parents=True)
    test.write_text(JAVA_TEST)
    (root / "pom.xml").write_text(POM)
    # a TOML array as JSON writes it
    (root / "assay.toml").write_text(f"[java]\ncompile_command = {json.dumps(compile_command)}\n")
    return test


def _gate_1(tests: list[Path], root: Path, **overrides: object) -> tuple[api.Report, FileReport]:
    report = api.verify(
        tests,
        root=root,
        use_cache=False,
        overrides={"gates": ["compile"], "offline": True, **overrides},
    )
    f = report.files[0]
    assert f.verdict is Verdict.UNVALIDATED, f.gates[0].feedback
    assert not cacheable(f)
    return report, f


def _needs(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def test_a_licence_check_stopping_maven_is_not_a_missing_dependency(tmp_path):
    _needs("java", "javac", "mvn")
    root = tmp_path / "price"
    tests = [
        _java(root, ["sh", "-c", f'echo "{RAT}"; exit 1']),
    ]
    report, f = _gate_1(tests, root)
    feedback = f.gates[0].feedback
    assert "apache-rat-plugin:0.16.1:check" in feedback
    assert FETCH not in feedback
    assert "a build plugin other than the compiler stopped the build" in feedback
    # the report Maven names is the project's target/rat.txt, not a deleted scratch copy's
    assert "See RAT report in: target/rat.txt" in feedback
    assert "/project/target" not in feedback
    [gap] = report.environment_gaps()
    assert gap.describe().endswith(
        "(1 file unvalidated; fix what that plugin reports and run again)"
    )


def test_a_maven_build_out_of_time_is_the_machines_whatever_it_printed():
    """A build killed at its timeout after Maven said "offline mode" (as it does resolving from the
    local repository) is out of time, not short of a dependency: no "fetch" advice."""
    from assay.languages.java_compile import build_failure
    from assay.languages.tooling import Ran
    from assay.sandbox.process import RunResult

    said = "[INFO] Cannot access central in offline mode and the artifact has not been downloaded"
    ran = Ran(RunResult(-9, said, "", 600.0, timed_out=True), ("/tmp/ws/project", "/tmp/ws"))
    result = build_failure(ran, "src/test/java/PriceTest.java", ".", "maven", 1, 600.0)
    [problem] = result.errors
    assert problem.kind == "timeout", problem
    assert "maven did not finish in 600 s" in problem.message
    # the same words in a build that ended by itself are a dependency gap, fetched
    ran = Ran(RunResult(1, said, "", 3.0), ("/tmp/ws/project", "/tmp/ws"))
    [problem] = build_failure(ran, "src/test/java/PriceTest.java", ".", "maven", 1, 3.0).errors
    assert problem.kind == "environment" and problem.hint.startswith(FETCH), problem


def test_a_go_package_whose_own_code_does_not_build_says_to_fix_it_not_to_fetch(tmp_path):
    _needs("go")
    root = tmp_path / "price"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/price\n\ngo 1.21\n")
    (root / "price.go").write_text(
        'package price\n\nfunc Total(a, b int) int {\n\treturn a + b + "x"\n}\n'
    )
    test = root / "price_test.go"
    test.write_text(
        'package price\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {\n'
        "\tif Total(1, 2) != 3 {\n\t\tt.Fatal(Total(1, 2))\n\t}\n}\n"
    )
    report, f = _gate_1([test], root)
    feedback = f.gates[0].feedback
    assert "the package does not build without this file: price.go:4:" in feedback
    assert FETCH not in feedback
    assert "the project's own code does not compile here" in feedback
    [gap] = report.environment_gaps()
    assert gap.describe().endswith("(1 file unvalidated; fix the project's build and run again)")
