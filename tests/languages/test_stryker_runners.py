"""Gate 4 on StrykerJS with the project's own test runner: vitest, jest and mocha through
Stryker's runner plugins with per-test coverage, node's runner through the command runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay import api
from assay.mutation.tools import stryker, stryker_runners

FIXTURE = Path(__file__).parent / "fixtures" / "jest"


def _jest_price(tmp_path: Path) -> Path:
    """A copy of the jest fixture (skips when StrykerJS's jest runner or jest is not installed)."""
    plugin = stryker.home() / "node_modules/@stryker-mutator/jest-runner/package.json"
    if not plugin.is_file():
        pytest.skip(f"StrykerJS's jest runner not installed: {stryker.install_command()}")
    if not (FIXTURE / "node_modules" / "jest").is_dir():
        pytest.skip(f"jest not installed in the fixture: npm ci --prefix {FIXTURE}")
    project = tmp_path / "price"
    shutil.copytree(FIXTURE, project, symlinks=True)
    return project


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


def test_gate_4_runs_the_runner_gates_1_to_3_ran_with_the_jest_config_they_were_told(tmp_path):
    """match-sorter (never seen) runs jest through `kcd-scripts test`: jest is no dependency of
    its own, only in `node_modules/.bin`. Gates 1-3 ran it (with `test_args` naming kcd's config);
    gate 4 chose node's own runner from package.json alone, found no test ("# todo 0") and said
    "StrykerJS failed". The runner is chosen as gates 1-3 choose it, and jest's config file and
    root directory from `test_args` reach Stryker's jest runner."""
    from assay.mutation.tools.stryker import runner, runner_config

    (tmp_path / "package.json").write_text(json.dumps({"devDependencies": {"kcd-scripts": "15"}}))
    assert runner(tmp_path, ".") == "node"
    (tmp_path / "node_modules" / ".bin").mkdir(parents=True)
    (tmp_path / "node_modules" / ".bin" / "jest").write_text("")
    assert runner(tmp_path, ".") == "jest"
    assert runner(tmp_path, ".", configured="mocha") == "mocha"
    args = ["--config", "node_modules/kcd-scripts/dist/config/jest.config.js", "--rootDir", "."]
    jest = runner_config("jest", ["src/a.test.ts"], {}, args)["jest"]
    assert jest["configFile"] == args[1] and jest["config"]["rootDir"] == "."
    assert "configFile" not in runner_config("jest", ["src/a.test.ts"], {})["jest"]


def test_jest_keeps_the_projects_ignore_patterns_and_hides_strykers_backups():
    from assay.mutation.tools.stryker import runner_config

    pkg = {"jest": {"testPathIgnorePatterns": ["/fixtures/"]}}
    config = runner_config("jest", ["test/a.test.js"], pkg)["jest"]["config"]
    assert config["testPathIgnorePatterns"] == ["/fixtures/", stryker_runners.HIDDEN]
    assert config["modulePathIgnorePatterns"] == [stryker_runners.HIDDEN]


@pytest.mark.slow
def test_a_weak_jest_test_is_rejected_at_gate_4_with_its_own_kills(tmp_path):
    """Slow (about 40-80 s): StrykerJS with jest on two files, gates 1, 2 and 4."""
    project = _jest_price(tmp_path)
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
    # code the weak file's test never runs (discount's and total's throws: NoCoverage, known
    # only per test) is out of its score, shown Ignored: 10 killed of 20, not of 24
    assert "no test runs this line" not in gate.feedback
    d = gate.details
    # `module.exports = { total, discount }` is top-level code, out of scope (its `{}` mutant
    # was the eleventh kill): 10 of 20
    assert (d["no_coverage"], d["ignored"], d["killed"], d["survived"]) == (0, 4, 10, 10), d
    assert d["score"] == round(100 * 10 / 20, 1), d


def _mte(statuses: list[str]) -> dict:
    mutants = [
        {
            "id": str(i),
            "mutatorName": "ConditionalExpression",
            "replacement": "true",
            "status": status,
            "location": {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 5}},
            "killedBy": ["0"] if status == "Killed" else [],
            "coveredBy": [] if status == "NoCoverage" else ["0"],
        }
        for i, status in enumerate(statuses)
    ]
    return {
        "files": {"src/price.js": {"source": "true;\n", "mutants": mutants}},
        "testFiles": {"test/a.test.js": {"tests": [{"id": "0", "name": "adds"}]}},
    }


def test_at_gate_4_code_no_test_of_the_file_runs_is_out_of_its_score():
    """jest, vitest and mocha give NoCoverage per test: gate 4 leaves those mutants out of the
    file's score (Ignored, with assay's reason), as Python's gate 4 and the command runner's V8
    scope do; before, they counted as survivors (the weak jest file: 11 of 25, not 11 of 21).
    `assay mutate` keeps them, and so does gate 4 when the tests run none of the code."""
    from assay.mutation.model import Status, score

    passing = ("test/a.test.js::adds",)
    data = _mte(["Killed", "Survived", "NoCoverage", "NoCoverage"])
    _, results, _ = stryker.read_report(data, ".", Path("."), passing, unrun_out=True)
    assert [results[f"stryker-{i}"].status for i in range(4)] == [
        Status.KILLED,
        Status.SURVIVED,
        Status.IGNORED,
        Status.IGNORED,
    ]
    assert results["stryker-2"].reason == stryker.UNRUN
    assert score(list(results.values())) == 0.5
    _, kept, _ = stryker.read_report(data, ".", Path("."), passing)  # assay mutate
    assert kept["stryker-2"].status is Status.NO_COVERAGE and score(list(kept.values())) == 0.25
    _, unrun, _ = stryker.read_report(_mte(["NoCoverage"] * 2), ".", Path("."), passing, True, True)
    assert {r.status for r in unrun.values()} == {Status.NO_COVERAGE}


def test_a_mutant_out_of_the_sample_is_not_counted_and_judges_no_test():
    """assay's sample checker (`stryker_sample.mjs`) reports the mutants it leaves out as
    CompileError with assay's reason: they are not run, not counted (`not_sampled`), and a test
    that covers only such mutants besides survivors is not called `low_value` by them (none of its
    kills were tried), as Python's proving limit leaves a test unjudged."""
    from assay.mutation.attribution import attribute
    from assay.mutation.model import SAMPLE_UNRUN, MutationResult, Status, score
    from assay.mutation.tools.stryker_scope import SAMPLE

    passing = ("test/a.test.js::adds", "test/a.test.js::subtracts")
    data = _mte(["Killed", "CompileError", "CompileError"])
    data["testFiles"]["test/a.test.js"]["tests"].append({"id": "1", "name": "subtracts"})
    for m in data["files"]["src/price.js"]["mutants"][1:]:
        m["statusReason"], m["coveredBy"] = SAMPLE, ["1"]
    mutants, results, sources = stryker.read_report(data, ".", Path("."), passing, unrun_out=True)
    left = results["stryker-1"]
    assert (left.status, left.reason) == (Status.IGNORED, SAMPLE_UNRUN), left
    assert left.covered_by == ["test/a.test.js::subtracts"], left
    assert score(list(results.values())) == 1.0
    run = MutationResult(mutants=mutants, results=results, sources=sources)
    assert run.unsampled == 2
    judged = attribute(run, list(passing), exact=False)
    assert not judged.low_value and "left out of the sample" in judged.unjudged[passing[1]]


def test_a_title_ending_in_spaces_keeps_its_own_mutants():
    """Stryker's vitest runner names a test by its titles joined and trimmed: destr's
    `it("{     ")` is "destr {", while gate 2's id keeps the spaces. The two were not matched, the
    test covered only what every test covers (module-level code), and was `low_value`."""
    passing = ("test/a.test.ts::destr > {     ", "test/a.test.ts::destr > parses")
    data = _mte(["Killed", "Survived"])
    data["testFiles"] = {"test/a.test.ts": {"tests": [{"id": "0", "name": "destr {"}]}}
    _, results, _ = stryker.read_report(data, ".", Path("."), passing)
    assert results["stryker-0"].killed_by == ["test/a.test.ts::destr > {     "]
    assert results["stryker-1"].covered_by == ["test/a.test.ts::destr > {     "]


@pytest.mark.slow
def test_module_top_level_code_is_out_of_gate_4s_scope_with_per_test_coverage(tmp_path):
    """knitwork 1.3 (vitest, never seen): every test file was rejected at gate 4 for survivors in
    a module-level `new Set(["Infinity", "NaN", "arguments", ...])` of reserved names and two
    regex constants: Stryker's per-test runners cover such static code with every test, so each
    file was charged with ~50 string mutants of a table it never tests. Module-level code is out
    of gate 4's scope, as in Python and through the command runner (listed, not judged); the
    functions' code, and code in a function declared at the top level, stays in it.
    Slow (about 40-80 s): StrykerJS with jest on one file, gates 1, 2 and 4."""
    project = _jest_price(tmp_path)
    (project / "test" / "weak.test.js").unlink()
    src = project / "src" / "price.js"
    names = ", ".join(f'"n{i}"' for i in range(12))
    src.write_text(
        f"const RESERVED = new Set([{names}]);\n\n"
        + src.read_text().replace(
            "module.exports = { total, discount };",
            "function safe(name) {\n  return RESERVED.has(name) ? `_${name}` : name;\n}\n\n"
            "module.exports = { total, discount, safe };",
        )
    )
    report = api.verify(
        [project / "test" / "price.test.js"],
        root=project,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"], "jobs": 2},
    )
    [f] = report.files
    gate = next(g for g in f.gates if g.gate == "mutation")
    assert f.verdict.value == "accepted", gate.feedback
    # the table's twelve strings (and the Set itself) are not counted: total's and discount's are
    assert '"n3"' not in gate.feedback
    # the functions' own survivors stay (a boundary and two messages): gate 4 still judges them
    assert {s["line"] for s in gate.details["survivors"]} == {6, 7, 16}, gate.details
    assert gate.details["survived"] == 3 and gate.details["killed"] >= 8, gate.details
