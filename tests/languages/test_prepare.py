"""The prepare step: dependencies fetched by the user's own build tool, on the pristine project,
before any candidate runs; once per build files' hash; never with `offline`; a failure is one line
naming what is missing, and the file `unvalidated`."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from assay import api
from assay.languages.prepare import STEPS, missing, prepare
from tests.conftest import REPO, run_cli, tree_digest


def _reachable(host: str) -> bool:
    try:
        socket.create_connection((host, 443), timeout=3).close()
        return True
    except OSError:
        return False


@pytest.fixture
def fresh_machine(tmp_path, monkeypatch) -> Path:
    """An empty HOME (no ~/.m2, no ~/.cache/assay): a machine that never built the project."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("MAVEN_OPTS", raising=False)
    return home


def _java_example(tmp_path: Path) -> Path:
    """A copy of examples/java for a run that fetches from Maven Central (skips without mvn or
    the network)."""
    if shutil.which("mvn") is None:
        pytest.skip("Maven is not installed")
    if not _reachable("repo.maven.apache.org"):
        pytest.skip("Maven Central is unreachable")
    root = tmp_path / "java"
    shutil.copytree(REPO / "examples" / "java", root, ignore=shutil.ignore_patterns("target"))
    return root


@pytest.mark.slow
@pytest.mark.timeout(1200)  # the step now also fetches gate 4's PIT: more than 300 s under load
def test_java_verifies_on_an_empty_maven_cache_through_the_prepare_step(tmp_path, fresh_machine):
    root = _java_example(tmp_path)
    before = tree_digest(root)
    test = root / "src/test/java/com/acme/PriceTest.java"
    report = api.verify(
        [test], root=root, use_cache=False, overrides={"gates": ["compile", "green"]}
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
    assert (fresh_machine / ".m2/repository/org/junit/jupiter").is_dir()
    assert tree_digest(root) == before
    # prepared once: the marker stands for the same build files
    assert len(list((fresh_machine / ".cache/assay/prepared").iterdir())) == 1


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_java_gate_4_runs_on_an_empty_maven_cache_through_the_prepare_step(tmp_path, fresh_machine):
    """PIT, its JUnit 5 plugin and the junit-platform-launcher of the project's platform (which
    PIT's plugin loads and the project's build never fetches) come with the prepare step: gate 4
    was `unvalidated` on a fresh ~/.m2 ("org.pitest:pitest-maven:1.30.2 is not in ~/.m2", then
    "PIT could not load offline: ...junit-platform-launcher..."). Slow: Maven fetches the build,
    then PIT runs (2-6 min)."""
    root = _java_example(tmp_path)
    test = root / "src/test/java/com/acme/PriceTest.java"
    report = api.verify(
        [test], root=root, use_cache=False, overrides={"gates": ["compile", "green", "mutation"]}
    )
    f = report.files[0]
    gate = next(g for g in f.gates if g.gate == "mutation")
    assert gate.status.value == "pass", gate.feedback
    assert gate.details["tool"] == "pit" and gate.details["killed"] > 0
    assert f.verdict.value == "accepted"
    launcher = fresh_machine / ".m2/repository/org/junit/platform/junit-platform-launcher"
    assert launcher.is_dir() and any(launcher.iterdir())


def test_offline_never_prepares_and_a_failure_names_the_missing_module(tmp_path, fresh_machine):
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "mod"
    root.mkdir()
    (root / "go.mod").write_text(
        "module example.com/m\n\ngo 1.22\n\nrequire example.invalid/nothing v1.0.0\n"
    )
    assert prepare(root, "go", offline=True) is None
    assert not (fresh_machine / ".cache/assay/prepared").exists()
    problem = prepare(root, "go")
    assert problem is not None and problem.startswith("dependencies of ./go.mod could not be")
    assert "example.invalid/nothing" in problem and "\n" not in problem
    assert not (fresh_machine / ".cache/assay/prepared").exists()  # a failure is not kept


def test_the_missing_maven_artifact_is_named():
    maven = next(s for s in STEPS if s.build_file == "pom.xml")
    output = (
        "[ERROR] Failed to execute goal on project price: Could not resolve dependencies for "
        "project com.acme:price:jar:1.0: The following artifacts could not be resolved: "
        "org.junit.jupiter:junit-jupiter:jar:9.9.9 (absent): Could not find artifact\n"
    )
    assert missing(maven, output) == "could not fetch org.junit.jupiter:junit-jupiter:jar:9.9.9"


@pytest.mark.slow
def test_a_plugin_of_a_later_phase_that_cannot_be_fetched_does_not_stop_the_tests(
    tmp_path, monkeypatch
):
    """commons-codec's parent declares spotbugs and groovy plugins for `verify` and reports:
    `dependency:go-offline` cannot fetch them here, but `mvn test-compile` builds the tests, so
    every file was `unvalidated` for an artifact no test run needs. Slow: a real Maven run,
    served from the machine's own ~/.m2 as a file:// mirror (no network)."""
    if shutil.which("mvn") is None:
        pytest.skip("Maven is not installed")
    served = Path("~/.m2/repository").expanduser()
    if not (served / "org/apache/maven/plugins/maven-compiler-plugin/3.13.0").is_dir():
        pytest.skip("~/.m2 lacks the example's build plugins (run .ci/toolchains)")
    home = tmp_path / "home"
    (home / ".m2").mkdir(parents=True)
    (home / ".m2/settings.xml").write_text(
        "<settings><mirrors><mirror><id>here</id><mirrorOf>*</mirrorOf>"
        f"<url>{served.as_uri()}</url></mirror></mirrors></settings>"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MAVEN_OPTS", f"-Duser.home={home}")  # Maven reads settings from there
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    root = tmp_path / "java"
    shutil.copytree(REPO / "examples" / "java", root, ignore=shutil.ignore_patterns("target"))
    pom = root / "pom.xml"
    pom.write_text(
        pom.read_text().replace(
            "<plugins>",
            "<plugins><plugin><groupId>com.example.invalid</groupId>"
            "<artifactId>absent-maven-plugin</artifactId><version>1.0</version><executions>"
            "<execution><phase>verify</phase><goals><goal>check</goal></goals></execution>"
            "</executions></plugin>",
            1,
        )
    )
    before = tree_digest(root)
    assert prepare(root, "java") is None
    assert (home / ".m2/repository/org/junit/jupiter").is_dir()  # the tests' dependencies came
    assert len(list((home / ".cache/assay/prepared").iterdir())) == 1
    assert tree_digest(root) == before


def test_an_artifact_maven_remembers_as_missing_is_named():
    """A second attempt words it "was not found in ... during a previous attempt": it was
    taken for the project's own compile error and the step counted as done."""
    maven = next(s for s in STEPS if s.build_file == "pom.xml")
    output = (
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-plugin:3.8.1:"
        "resolve-plugins (default-cli) on project price: com.example:absent-maven-plugin:jar:1.0"
        " was not found in https://repo.maven.apache.org/maven2 during a previous attempt.\n"
    )
    assert missing(maven, output) == "could not fetch com.example:absent-maven-plugin:jar:1.0"


def test_gate_4s_maven_artifacts_are_wanted_by_the_projects_junit_platform(fresh_machine):
    """The launcher's version is the project's platform's (from its test class path): PIT's JUnit 5
    plugin loads that one, and `~/.m2` has only what the build fetched."""
    from assay.languages import maven_tools

    repo = fresh_machine / ".m2/repository"
    classpath = [
        str(
            repo
            / "org/junit/platform/junit-platform-commons/1.10.2/junit-platform-commons-1.10.2.jar"
        ),
        str(repo / "org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar"),
    ]
    # pitest-maven comes as a plugin (resolve-plugins on the copy's pom declaring it)
    pit = [f"org.pitest:pitest-junit5-plugin:{maven_tools.JUNIT5_PLUGIN_VERSION}"]
    launcher = "org.junit.platform:junit-platform-launcher:1.10.2"
    assert maven_tools.missing(classpath) == [*pit, launcher]
    assert maven_tools.missing(classpath[1:]) == pit  # no JUnit platform: no launcher
    for c in [*pit, launcher]:
        group, artifact, version = c.split(":")
        (repo / group.replace(".", "/") / artifact / version).mkdir(parents=True)
    assert maven_tools.missing(classpath) == []


# what `mvn` prints when a plugin before the compiler stops the build (commons-lang3 3.17.0's RAT
# check in `validate`, verbatim but for the path), and when the project's own code does not compile
RAT_STOP = (
    "[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.16.1:check (rat-check) on "
    "project commons-lang3: Too many files with unapproved license: 8 See RAT report in: "
    "/tmp/ws/project/target/rat.txt -> [Help 1]"
)
JAVAC_STOP = (
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:"
    "testCompile (default-testCompile) on project p: Compilation failure"
)


# commons-io with its package `build` left out of assay's copy: the main code's compile stopped
# before `process-classes` (maven-bundle-plugin, whose bndlib was then never fetched)
MAIN_JAVAC_STOP = (
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:"
    "compile (default-compile) on project p: Compilation failure"
)


@pytest.mark.parametrize(
    ("said", "remembered"), [(RAT_STOP, False), (JAVAC_STOP, True), (MAIN_JAVAC_STOP, False)]
)
def test_a_build_another_plugin_stopped_early_is_prepared_again_next_time(
    tmp_path, fresh_machine, monkeypatch, said, remembered
):
    """commons-lang3: the RAT check failed before Maven fetched build-helper's dependencies, the
    step was remembered as done, and every later run stayed `unvalidated` until the marker was
    deleted by hand. A compile failure of the tests comes after every fetch; one of the main code
    comes before the plugins of `process-classes` and later phases."""
    shims = tmp_path / "bin"
    shims.mkdir()
    calls = tmp_path / "calls.txt"
    (shims / "mvn").write_text(f"#!/bin/sh\necho run >> {calls}\necho '{said}'\nexit 1\n")
    (shims / "mvn").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}:{Path('/usr/bin')}:{Path('/bin')}")
    root = tmp_path / "p"
    root.mkdir()
    (root / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion></project>\n")
    assert prepare(root, "java") is None  # no missing artifact named: the build says the rest
    assert prepare(root, "java") is None
    runs = calls.read_text().count("run")
    assert (runs == 1) is remembered, runs  # remembered: the second call ran nothing


def _stub_maven(tmp_path: Path, monkeypatch, seconds: int) -> Path:
    """A project of one Java test, and `mvn` on PATH standing for Maven fetching the dependencies
    for `seconds` (a fresh ~/.m2 takes minutes)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mvn").write_text(f"#!/bin/sh\nsleep {seconds}\n")
    (bin_dir / "mvn").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "java"
    shutil.copytree(REPO / "examples" / "java", root, ignore=shutil.ignore_patterns("target"))
    return root


def test_the_prepare_step_says_what_it_runs_before_any_gate(tmp_path, fresh_machine, monkeypatch):
    """trials27c: nothing on stderr for the minutes Maven's prepare step took."""
    from assay.events import GateStarted, Preparing

    if shutil.which("java") is None:
        pytest.skip("Java is not installed")
    root = _stub_maven(tmp_path, monkeypatch, 0)
    events: list = []
    api.verify(
        [root / "src/test/java/com/acme/PriceTest.java"],
        root=root,
        use_cache=False,
        on_event=events.append,
        overrides={"gates": ["compile"]},
    )
    said = [e for e in events if isinstance(e, Preparing)]
    assert said[0] == Preparing(
        "java",
        "prepare: pom.xml's dependencies (`mvn -B -q "
        "-Dstyle.color=never dependency:resolve-plugins "
        "dependency:go-offline dependency:build-classpath process-test-classes`)",
    )
    assert said[-1] == Preparing("java")  # over: its line leaves the progress
    first_gate = next(i for i, e in enumerate(events) if isinstance(e, GateStarted))
    assert events.index(said[-1]) < first_gate


@pytest.mark.slow  # the stub's 7 s of Maven
def test_a_log_hears_the_prepare_step_every_5_s(tmp_path, fresh_machine, monkeypatch):
    if shutil.which("java") is None:
        pytest.skip("Java is not installed")
    root = _stub_maven(tmp_path, monkeypatch, 7)
    proc = run_cli("verify", "src/test/java/com/acme/PriceTest.java", "--format", "json", cwd=root)
    lines = [ln for ln in proc.stderr.splitlines() if "java dependencies: prepare:" in ln]
    assert lines, proc.stderr[-3000:]
    assert "`mvn -B -q -Dstyle.color=never dependency:resolve-plugins" in lines[0]
