"""The prepare step: dependencies fetched by the user's own build tool, on the pristine project,
before any candidate runs; once per build files' hash; never with `offline`; a failure is one line
naming what is missing, and the file `unvalidated`."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from assay import api
from assay.languages.prepare import STEPS, missing, prepare
from tests.conftest import REPO, tree_digest


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


@pytest.mark.slow
def test_java_verifies_on_an_empty_maven_cache_through_the_prepare_step(tmp_path, fresh_machine):
    if shutil.which("mvn") is None:
        pytest.skip("Maven is not installed")
    if not _reachable("repo.maven.apache.org"):
        pytest.skip("Maven Central is unreachable")
    root = tmp_path / "java"
    shutil.copytree(REPO / "examples" / "java", root, ignore=shutil.ignore_patterns("target"))
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
