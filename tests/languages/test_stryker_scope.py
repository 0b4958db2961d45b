"""Gate 4 of a JavaScript file run by node's own runner (`node --test`, tape) is scoped to the code
its tests run, as Python's is: V8's coverage of the candidate's run says which, and Stryker's
command runner (no per-test coverage) gets assay's ignorer plugin. Before, every mutant of the
module counted: deepmerge's file testing one option was rejected at 47 %, and object-inspect's
`quoteStyle.js` hit the 600 s limit. Also: the command runner's one pseudo test ("All tests")
was credited with every kill, so each real test was `low_value` ("kills none of the
mutants")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from assay import api
from assay.mutation.model import Status
from assay.mutation.tools import stryker, stryker_scope
from assay.mutation.tools.stryker_scope import NO_COVERAGE, OUT, RUN

FIXTURE = Path(__file__).parent / "fixtures" / "nodetest"
TEST = "test/channel.test.js"


@pytest.fixture(scope="module")
def coverage(tmp_path_factory) -> tuple[dict[str, list[list[dict]]], str]:
    """V8's coverage of the fixture's test run (one node run for the module's tests)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    tmp_path = tmp_path_factory.mktemp("v8")
    project = tmp_path / "channel"
    shutil.copytree(FIXTURE, project)
    out = tmp_path / "v8"
    subprocess.run(
        ["node", "--test", TEST],
        cwd=project,
        env={**os.environ, "NODE_V8_COVERAGE": str(out)},
        check=True,
        capture_output=True,
    )
    return stryker_scope.read_coverage(out, project), (project / "index.js").read_text()


def _class_of(scope: stryker_scope.Scope, text: str, snippet: str) -> set[int]:
    """The classes of the segments the snippet's text lies in."""
    start = text.index(snippet)
    end = start + len(snippet)
    return {c for a, b, c in scope.segments["index.js"] if a < end and b > start}


def test_v8_coverage_splits_the_module_into_what_the_tests_run_and_the_rest(coverage):
    seen, text = coverage
    gate = stryker_scope.scope(seen, {"index.js": text}, executed_only=True)
    # a function the tests never run, and module code run when the file loads: out
    assert _class_of(gate, text, "var list = [];") == {OUT}
    assert _class_of(gate, text, "typeof WeakMap === 'function'") == {OUT}
    # a function they run, and in it a branch they never take
    assert _class_of(gate, text, "if (typeof value === 'string')") == {RUN}
    assert _class_of(gate, text, "return quote + value + quote;") == {OUT}
    assert _class_of(gate, text, "var map = new WeakMap();") == {RUN}
    assert "describe:38" in gate.functions["index.js"]
    assert not any(name.startswith("listStore") for name in gate.functions["index.js"])
    # `assay mutate`: every mutant counts; never run is NoCoverage (known without a run)
    every = stryker_scope.scope(seen, {"index.js": text}, executed_only=False)
    assert _class_of(every, text, "var list = [];") == {NO_COVERAGE}
    assert _class_of(every, text, "typeof WeakMap === 'function'") == {RUN}
    assert every.functions == {}


def test_a_target_whose_coverage_does_not_span_its_text_is_left_whole(coverage):
    """A transpiled file (V8 ran other text than the file's) cannot be scoped by offsets."""
    seen, text = coverage
    scope = stryker_scope.scope(seen, {"index.js": text + "\n// more"}, executed_only=True)
    assert scope.whole == ["index.js"] and scope.segments == {}
    assert stryker_scope.scope({}, {"src/a.ts": "x"}, True).whole == ["src/a.ts"]


def _mutant(i: int, status: str, reason: str = "", killed: list[str] | None = None) -> dict:
    loc = {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 4}}
    return {
        "id": str(i),
        "mutatorName": "BooleanLiteral",
        "replacement": "false",
        "location": loc,
        "status": status,
        "statusReason": reason,
        "killedBy": killed or [],
        "coveredBy": [],
    }


def test_the_command_runners_all_tests_stands_for_the_files_tests_and_scope_reasons_are_read():
    passing = ("test/a.test.js::one", "test/a.test.js::two")
    data = {
        "files": {
            "index.js": {
                "source": "true;\n",
                "mutants": [
                    _mutant(1, "Killed", killed=["0"]),
                    _mutant(2, "Survived"),
                    _mutant(3, "Ignored", stryker_scope.REASONS[OUT]),
                    _mutant(4, "Ignored", stryker_scope.REASONS[NO_COVERAGE]),
                    _mutant(5, "Ignored", "disabled by a // Stryker disable comment"),
                ],
            }
        },
        "testFiles": {"": {"tests": [{"id": "0", "name": "All tests"}]}},
    }
    mutants, results, _ = stryker.read_report(data, ".", Path("."), passing, whole_file=True)
    assert [m.id for m in mutants] == [f"stryker-{i}" for i in range(1, 6)]
    killed, survived = results["stryker-1"], results["stryker-2"]
    assert killed.killed_by == list(passing) and killed.covered_by == list(passing)
    assert survived.killed_by == [] and survived.covered_by == list(passing)
    assert "stryker-3" not in results  # out of gate 4's scope: listed, not judged
    assert results["stryker-4"].status is Status.NO_COVERAGE
    assert results["stryker-5"].status is Status.IGNORED  # the project's own directive


def test_the_command_runner_gets_the_scope_plugin_and_a_cpu_limit_from_the_files_run(tmp_path):
    """One sandboxed run of the candidate under V8's coverage sets Stryker's config: the ignorer
    plugin, its data beside it, and the mutants' command under a CPU limit at that run's time
    + 1 s (a mutant that loops for ever cost Stryker's timeout, x1.5 + 5 s of wall)."""
    from assay.config import Settings
    from assay.execution.workspace import Workspace
    from assay.mutation.tools import ToolRequest
    from assay.project import Project
    from assay.sandbox import Sandbox

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    project = tmp_path / "channel"
    shutil.copytree(FIXTURE, project)
    settings = Settings(cache=False)
    with Workspace(project) as ws:
        request = ToolRequest(
            root=ws.project,
            project=Project.load(project),
            settings=settings,
            sandbox=Sandbox(settings.sandbox, protect=project),
            tests=(TEST,),
            targets=("index.js",),
            workspace=ws,
            passing=(f"{TEST}::a value set is got back by its key",),
            executed_only=True,
        )
        config = stryker.runner_config("node", [TEST], {})
        scope = stryker.Stryker("javascript")._command_scope(request, ".", config)
        assert scope is not None and scope.segments["index.js"]
        assert config["ignorers"] == ["assay-scope"]
        plugin = Path(config["plugins"][0])
        assert plugin.is_file() and (plugin.parent / "scope.json").is_file()
        data = json.loads((plugin.parent / "scope.json").read_text())
        assert str(ws.project / "index.js") in data["files"]
        command = config["commandRunner"]["command"]
        assert command.startswith("ulimit -S -t ") and command.endswith(f"node --test {TEST}")
        assert int(command.split()[3]) >= 2


@pytest.mark.slow
def test_a_node_test_file_is_judged_on_the_code_it_runs(tmp_path):
    """Slow (StrykerJS's command runner, a node process per mutant: 30-80 s): the file tests the
    channel's get/set; the list store (used where WeakMap is missing), the module's top-level
    choice of store and describe()'s branches for strings and arrays never run. Before, they
    took the file to 31 % (50 survivors), rejected; and each test was `low_value`."""
    if not (stryker.home() / "node_modules" / stryker.CORE / "package.json").is_file():
        pytest.skip(f"StrykerJS not installed: {stryker.install_command()}")
    f, gate = _gates_1_2_4(FIXTURE, tmp_path / "channel", TEST)
    assert gate.status.value == "pass", gate.feedback
    assert f.verdict.value == "accepted"
    assert all(t.verdict.value == "accepted" for t in f.tests), f.tests
    # describe()'s quoting, which the test's key (7) never reaches: not counted (the observer)
    survivors = gate.details["survivors"] + gate.details["unexercised_mutants"]
    assert survivors and all(s["line"] >= 38 for s in survivors), survivors  # no listStore line
    assert gate.details["killed"] >= 20 and gate.details["survived"] <= 10
    assert "index.js::describe:38" in json.dumps(gate.details)


LOADTIME = Path(__file__).parent / "fixtures" / "loadtime"  # nanoid's shape


def test_code_a_target_runs_only_while_it_loads_is_out_of_gate_4s_scope(tmp_path):
    """nanoid's `index.js` calls `customAlphabet(urlAlphabet)` at its top level; a file that
    imports only `urlAlphabet` from it was charged with `customAlphabet`'s mutants (V8 saw the
    function run). A run importing the target alone says what its load runs; that is taken off."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    project = tmp_path / "loadtime"
    shutil.copytree(LOADTIME, project)
    env = {**os.environ, "NODE_V8_COVERAGE": str(tmp_path / "v8")}
    subprocess.run(["node", "--test", "test/shortid.test.js"], cwd=project, env=env, check=True)
    targets = ["index.js", "non-secure/index.js"]
    env["NODE_V8_COVERAGE"] = str(tmp_path / "v8-load")
    loaded = subprocess.run(
        ["node", "-e", stryker_scope.LOAD_SCRIPT, *(str(project / t) for t in targets)],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    assert loaded.stdout.splitlines() == [f"assay-loaded {project / t}" for t in targets]
    sources = {t: (project / t).read_text() for t in targets}
    loading = stryker_scope.load_counts(
        stryker_scope.read_coverage(tmp_path / "v8-load", project), sources, set(targets)
    )
    seen = stryker_scope.read_coverage(tmp_path / "v8", project)
    gate = stryker_scope.scope(seen, sources, executed_only=True, loading=loading)
    text = sources["index.js"]
    for snippet in ("alphabet.length === 0", "Math.ceil((1.6 * mask", "let id = ''"):
        start = text.index(snippet)
        end = start + len(snippet)
        assert {c for a, b, c in gate.segments["index.js"] if a < end and b > start} == {OUT}
    assert gate.functions["index.js"] == []
    assert {c for _, _, c in gate.segments["non-secure/index.js"]} >= {RUN}
    assert gate.functions["non-secure/index.js"] == ["shortId:1"]
    # `assay mutate` and a file whose tests run only the load keep every mutant, as before
    every = stryker_scope.scope(seen, {"index.js": text}, executed_only=True, loading=loading)
    assert RUN in {c for _, _, c in every.segments["index.js"]}


@pytest.mark.slow
def test_a_file_importing_a_constant_is_not_charged_with_the_code_that_builds_it(tmp_path):
    """Slow (StrykerJS's command runner, a node process per mutant: 30-90 s). Before:
    `customAlphabet`'s checks and arithmetic, run only when `index.js` loads, survived and took
    the file below the bar (rejected at gate 4, as nanoid's `non-secure.test.js` was)."""
    if not (stryker.home() / "node_modules" / stryker.CORE / "package.json").is_file():
        pytest.skip(f"StrykerJS not installed: {stryker.install_command()}")
    f, gate = _gates_1_2_4(LOADTIME, tmp_path / "loadtime", "test/shortid.test.js")
    assert gate.status.value == "pass", gate.feedback
    assert not any(s["file"] == "index.js" for s in gate.details["survivors"]), gate.details


def _gates_1_2_4(fixture, project, test: str):
    """Gates 1, 2 and 4 of `test` in a copy of `fixture`: the file's report and its gate 4."""
    shutil.copytree(fixture, project)
    report = api.verify(
        [project / test],
        root=project,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"]},
    )
    f = report.files[0]
    return f, next(g for g in f.gates if g.gate == "mutation")
