"""Gate 4 on StrykerJS with the project's own test runner: vitest, jest and mocha through
Stryker's runner plugins with per-test coverage, node's runner through the command runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.mutation.tools import stryker

FIXTURE = Path(__file__).parent / "fixtures" / "jest"


@pytest.mark.parametrize(
    "deps,expected",
    [
        ({"devDependencies": {"vitest": "3"}}, "vitest"),
        ({"devDependencies": {"jest": "29"}}, "jest"),
        ({"dependencies": {"mocha": "10", "chai": "5"}}, "mocha"),
        ({"devDependencies": {"tape": "5"}}, "node"),
    ],
)
def test_the_runner_is_the_projects_and_per_test_coverage_is_on_with_its_plugin(
    tmp_path, deps, expected
):
    from assay.mutation.tools.stryker import runner, runner_config

    (tmp_path / "package.json").write_text(json.dumps({"name": "p", **deps}))
    assert runner(tmp_path, ".") == expected
    config = runner_config(expected, ["test/a.test.js"], deps)
    if expected == "node":
        assert config["testRunner"] == "command" and config["coverageAnalysis"] == "off"
        return
    assert config["testRunner"] == expected and config["coverageAnalysis"] == "perTest"
    assert config["plugins"][0].endswith(f"{expected}-runner/dist/src/index.js")
    if expected == "mocha":
        assert config["mochaOptions"]["spec"] == ["test/a.test.js"]


def test_jest_keeps_the_projects_ignore_patterns_and_hides_strykers_backups():
    from assay.mutation.tools.stryker import runner_config

    pkg = {"jest": {"testPathIgnorePatterns": ["/fixtures/"]}}
    config = runner_config("jest", ["test/a.test.js"], pkg)["jest"]["config"]
    assert config["testPathIgnorePatterns"] == ["/fixtures/", stryker.HIDDEN]
    assert config["modulePathIgnorePatterns"] == [stryker.HIDDEN]


@pytest.mark.slow
def test_a_weak_jest_test_is_rejected_at_gate_4_with_its_own_kills(tmp_path):
    """Slow (about 40-80 s): StrykerJS with jest on two files, gates 1, 2 and 4."""
    plugin = stryker.home() / "node_modules/@stryker-mutator/jest-runner/package.json"
    if not plugin.is_file():
        pytest.skip(f"StrykerJS's jest runner not installed: {stryker.install_command()}")
    if not (FIXTURE / "node_modules" / "jest").is_dir():
        pytest.skip(f"jest not installed in the fixture: npm ci --prefix {FIXTURE}")
    project = tmp_path / "price"
    shutil.copytree(FIXTURE, project, symlinks=True)
    report = api.verify(
        [project / "test"],
        root=project,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"], "jobs": 2},
    )
    files = {f.path: f for f in report.files}
    weak, good = files["test/weak.test.js"], files["test/price.test.js"]
    assert (weak.verdict.value, weak.rejected_at) == ("rejected", "mutation")
    assert good.verdict.value == "accepted"
    gate = next(g for g in weak.gates if g.gate == "mutation")
    # per-test coverage: survivors name the weak file's own test, never Stryker's backups or
    # the command runner's "All tests"
    assert "test/weak.test.js::total is positive" in gate.feedback
    assert ".assay-stryker" not in gate.feedback and "All tests" not in gate.feedback
    assert "no test runs this line" in gate.feedback  # NoCoverage, known only per test
