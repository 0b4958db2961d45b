"""The other languages' mutation tools read back: PIT's XML and StrykerJS's
mutation-testing-elements JSON (captured from real runs on the Java and TypeScript examples,
`fixtures/tools/`) as assay's mutants, with the tools' test names mapped onto gate 2's ids, source
spans that reproduce each mutant, and a report that validates against the official schema; the
copy's pom gets PIT once, where Maven reads plugins; the sandbox's private loopback for tools whose
workers talk over it."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from assay.config import SandboxConfig
from assay.mutation.model import MutationResult, Status
from assay.mutation.tools.pit import _add_plugin, junit_id, read_mutations
from assay.mutation.tools.stryker import read_report
from assay.report.mutation_elements import elements
from assay.sandbox import Profile, Sandbox
from tests.conftest import REPO

TOOLS = Path(__file__).parent / "fixtures" / "tools"
SCHEMA = json.loads((TOOLS / "mutation-testing-report-schema.json").read_text())
PRICE = "src/main/java/com/acme/Price.java"
PRICE_TEST = "src/test/java/com/acme/PriceTest.java"


def _java_run() -> MutationResult:
    source = (REPO / "examples/java" / PRICE).read_text()
    mutants, results = read_mutations(
        TOOLS / "pit-mutations.xml",
        {PRICE: source},
        {"com.acme.Price": PRICE},
        {"com.acme.PriceTest": PRICE_TEST},
    )
    return MutationResult(mutants, results, {PRICE: source})


def test_pit_xml_becomes_assays_mutants_with_gate_2s_test_ids():
    run = _java_run()
    assert run.counts["Killed"] == 9 and run.counts["Survived"] == 3 and len(run.mutants) == 12
    survivors = run.survivors()
    m, r = survivors[0]
    assert (m.file, m.line, m.operator) == (PRICE, 11, "ConditionalsBoundary")
    assert m.before == "if (c < 0) {" and m.after == "if (c <= 0) {"
    assert r.covered_by == [
        f"{PRICE_TEST}::totalAddsPrices",
        f"{PRICE_TEST}::totalRejectsNegativePrices",
    ]
    killed = [r for _, r in run.scored if r.status is Status.KILLED]
    assert all(r.killed_by and set(r.killed_by) <= set(r.covered_by) for r in killed)
    jsonschema.validate(elements(run), SCHEMA)


def test_pit_names_nested_classes_and_leaves_unknown_ones_alone():
    tests = {"com.acme.PriceTest": PRICE_TEST}
    nested = (
        "com.acme.PriceTest.[engine:junit-jupiter]/[class:com.acme.PriceTest]/"
        "[nested-class:Discount]/[method:roundsDown()]"
    )
    assert junit_id(nested, tests) == f"{PRICE_TEST}::Discount.roundsDown"
    assert junit_id("other.Test.[engine:x]/[class:other.Test]/[method:m()]", tests).startswith(
        "other.Test."
    )
    # JUnit 4, which PIT runs by itself (no JUnit platform on the class path)
    assert junit_id("com.acme.PriceTest.total(com.acme.PriceTest)", tests) == f"{PRICE_TEST}::total"
    inner = "com.acme.PriceTest$Discount.rounds[2](com.acme.PriceTest$Discount)"
    assert junit_id(inner, tests) == f"{PRICE_TEST}::Discount.rounds"


def test_stryker_json_becomes_assays_mutants_with_exact_spans():
    data = json.loads((TOOLS / "stryker-mutation.json").read_text())
    passing = (
        "test/price.test.ts::total > adds prices",
        "test/price.test.ts::discount > rounds down",
    )
    mutants, results, sources = read_report(data, ".", Path("/nonexistent"), passing)
    source = sources["src/price.ts"]
    assert len(mutants) == 24
    for m in mutants:  # the span and replacement reproduce the mutant on the file
        mutated = source[: m.start] + m.replacement + source[m.end :]
        assert mutated != source and m.original == source[m.start : m.end]
    block = next(m for m in mutants if m.id == "stryker-1")
    assert (block.line, block.operator, block.replacement) == (6, "BlockStatement", "{}")
    assert results["stryker-1"].killed_by == ["test/price.test.ts::total > adds prices"]
    # a test gate 2 did not pass keeps Stryker's name, in the same shape
    assert "test/price.test.ts::total rejects negative prices" in results["stryker-1"].covered_by
    run = MutationResult(mutants, results, sources)
    assert 0.5 < (run.score or 0) < 0.6
    report = elements(run)
    assert report["files"]["src/price.ts"]["language"] == "typescript"
    jsonschema.validate(report, SCHEMA)


POMS = {
    "plugins": "<project><build><pluginManagement><plugins><plugin><artifactId>x</artifactId>"
    "</plugin></plugins></pluginManagement><plugins><plugin><artifactId>y</artifactId></plugin>"
    "</plugins></build></project>",
    "managed only": "<project><build><pluginManagement><plugins></plugins></pluginManagement>"
    "</build></project>",
    "no build": "<project><modelVersion>4.0.0</modelVersion></project>",
    # commons-codec: <reporting> after <build>; PIT went into the reporting plugins (malformed)
    "reporting after": "<project><build><plugins><plugin><artifactId>y</artifactId></plugin>"
    "</plugins></build><reporting><plugins><plugin><artifactId>r</artifactId></plugin></plugins>"
    "</reporting></project>",
    "profile builds after": "<project><build><defaultGoal>x</defaultGoal></build><profiles>"
    "<profile><build><plugins></plugins></build></profile></profiles><reporting><plugins>"
    "</plugins></reporting></project>",
}


@pytest.mark.parametrize("kind", list(POMS))
def test_pit_goes_into_the_builds_own_plugins_once(tmp_path, kind):
    pom = tmp_path / "pom.xml"
    pom.write_text(POMS[kind])
    _add_plugin(pom)
    _add_plugin(pom)
    root = ET.fromstring(pom.read_text())
    found = root.findall("./build/plugins/plugin[artifactId='pitest-maven']")
    assert len(found) == 1 and len(root.findall(".//plugin[artifactId='pitest-maven']")) == 1
    dep = found[0].find("./dependencies/dependency/artifactId")
    assert dep is not None and dep.text == "pitest-junit5-plugin"


@pytest.mark.parametrize("backend", ["builtin", "bwrap"])
def test_loopback_profile_reaches_its_own_127_0_0_1_and_nothing_else(
    backend, tmp_path, monkeypatch
):
    """Under bwrap the private namespace's loopback is always up (bwrap 0.8 brings it up itself):
    every run reaches its own 127.0.0.1, still nothing outside (tests/core/test_sandbox.py)."""
    monkeypatch.delenv("ASSAY_SANDBOX_BACKEND", raising=False)
    sandbox = Sandbox(SandboxConfig(backend=backend), protect=tmp_path)
    if not sandbox.use_unshare:
        pytest.skip("no network namespace here")
    if sandbox.backend.name != backend:
        pytest.skip(f"bwrap cannot run here: {sandbox.backend.why_not_bwrap}")
    serve = (
        "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n"
        "c = socket.create_connection(s.getsockname(), timeout=2)\nprint('connected')\n"
    )
    env = sandbox.env_for(tmp_path / "home")
    results = {
        loopback: sandbox.run(
            [sys.executable, "-c", serve], tmp_path, env, 20, Profile(loopback=loopback)
        )
        for loopback in (False, True)
    }
    assert results[True].stdout.strip() == "connected", results[True].stderr
    if backend == "bwrap":
        assert results[False].stdout.strip() == "connected", results[False].stderr
    else:
        assert results[False].returncode != 0 and "connected" not in results[False].stdout


def test_the_files_a_test_imports_are_what_gate_4_mutates(tmp_path):
    from assay.languages import LANGUAGES
    from assay.project import Project

    files = {
        "pom.xml": "<project/>",
        "src/main/java/com/acme/Price.java": "package com.acme; class Price {}",
        "src/main/java/com/acme/util/Money.java": "package com.acme.util; class Money {}",
        "src/main/java/com/acme/Unused.java": "package com.acme; class Unused {}",
        "package.json": "{}",
        "src/price.ts": "export const p = 1;",
        "src/util/index.ts": "export const u = 1;",
        "test/helper.test.ts": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    project = Project.load(tmp_path)
    java = (
        "package com.acme;\nimport static com.acme.util.Money.cents;\nimport java.util.List;\n"
        "class PriceTest { void t() { Price.total(); } }\n"
    )
    assert LANGUAGES["java"].targets_of(project, java, "src/test/java/com/acme/PriceTest.java") == [
        "src/main/java/com/acme/util/Money.java",
        "src/main/java/com/acme/Price.java",
    ]
    ts = (
        'import { p } from "../src/price.js";\nimport { u } from "../src/util";\n'
        'import "./helper.test";\nimport { it } from "vitest";\n'
    )
    assert LANGUAGES["typescript"].targets_of(project, ts, "test/price.test.ts") == [
        "src/price.ts",
        "src/util/index.ts",
    ]


def test_pit_on_gradle_is_unvalidated_in_one_line_and_plain_javac_has_no_tool(tmp_path):
    """A Gradle build: `unvalidated` (a problem), naming gradle and its PIT plugin; no build
    file at all (plain javac): not available, as for a language with no tool."""
    from assay.config import Settings
    from assay.mutation.tools import REGISTRY, ToolRequest
    from assay.project import Project

    request = ToolRequest(
        root=tmp_path,
        project=Project.load(tmp_path),
        settings=Settings(),
        sandbox=Sandbox(SandboxConfig(), protect=tmp_path),
        tests=("src/test/java/PriceTest.java",),
        targets=("src/main/java/Price.java",),
    )
    pit = REGISTRY["java"]
    assert "has no pom.xml or build.gradle" in (pit.unavailable(request) or "")
    (tmp_path / "build.gradle").write_text("plugins { id 'java' }\n")
    assert pit.unavailable(request) is None
    problem = pit.problem(request) or ""
    assert problem.startswith("gradle: ") and "info.solidsoft.pitest" in problem
    assert "\n" not in problem
    (tmp_path / "pom.xml").write_text("<project/>")
    assert pit.unavailable(request) is None
    assert not (pit.problem(request) or "").startswith("gradle")


def test_pit_names_the_artifact_it_could_not_load_offline():
    """commons-codec: PIT's JUnit 5 plugin wanted junit-platform-launcher 1.10.2, which the
    project's build never fetches; the file said "fetch PIT once", which was there already."""
    from assay.mutation.tools.pit import offline_problem

    output = (
        "[ERROR] Failed to execute goal org.pitest:pitest-maven:1.30.2:mutationCoverage: "
        "Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the "
        "artifact org.junit.platform:junit-platform-launcher:jar:1.10.2 has not been downloaded "
        "from it before. -> [Help 1]\n"
    )
    assert offline_problem(output) == (
        "PIT could not load offline: org.junit.platform:junit-platform-launcher:jar:1.10.2 is not"
        " in ~/.m2 (fetch it once with the network: mvn dependency:get "
        "-Dartifact=org.junit.platform:junit-platform-launcher:1.10.2)"
    )
    pit = output.replace("org.junit.platform:junit-platform-launcher:jar", "org.pitest:pitest:jar")
    assert offline_problem(pit).startswith("PIT could not load offline (fetch PIT once")


def test_a_pit_failure_is_told_in_pits_words_not_its_bug_report_boilerplate():
    """joda-convert 2.2.4's PIT run (`fixtures/tools/pit-minion-failure.log`, Maven's output as
    captured): the gate said "PIT failed: exit 1" above `-Dmaven.home=...` input lines and the
    JVM's version, the tail of PIT's bug-report request; the cause was three lines up."""
    from assay.mutation.tools.pit import failure

    said = failure((TOOLS / "pit-minion-failure.log").read_text())
    assert said.splitlines()[0].endswith(
        "PIT >> SEVERE : Coverage generator Minion exited abnormally due to UNKNOWN_ERROR"
    )
    assert "Coverage generation minion exited abnormally! (UNKNOWN_ERROR)" in said
    assert "-Dmaven.home" not in said and "Vendor" not in said


def test_a_pit_run_whose_build_does_not_compile_says_what_javac_said():
    """commons-io 2.16.1: PIT's Maven run compiles every test class, and JMH's annotation
    processor failed on the benchmarks; the gate said "Compilation failure: Compilation failure:"
    and nothing of the cause."""
    from assay.mutation.tools.pit import failure

    output = (
        "[INFO] Compiling 541 source files to /ws/target/test-classes\n"
        "[ERROR] COMPILATION ERROR : \n"
        "[ERROR] Annotation generator had thrown the exception. javax.annotation.processing."
        "FilerException: Attempt to recreate a file for type org.apache.commons.io.jmh.X_jmhTest\n"
        "  \tat jdk.compiler/com.sun.tools.javac.processing.JavacFiler.checkNameAndExistence"
        "(JavacFiler.java:732)\n"
        "[ERROR] /ws/src/test/java/org/a/BTest.java:[12,8] cannot find symbol\n"
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:"
        "testCompile (default-testCompile) on project commons-io: Compilation failure: "
        "Compilation failure:\n"
        "[ERROR] -> [Help 1]\n"
    )
    said = failure(output).splitlines()
    assert said[0].startswith("[ERROR] Failed to execute goal")
    assert "FilerException: Attempt to recreate a file" in said[1]
    assert said[2] == "[ERROR] /ws/src/test/java/org/a/BTest.java:[12,8] cannot find symbol"
    assert not any("JavacFiler.java" in line for line in said)
