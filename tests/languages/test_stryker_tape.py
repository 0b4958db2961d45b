"""Gate 4 of a tape file runs through assay's Stryker test runner plugin (`stryker_tape.mjs`): the
file in Stryker's own worker instead of a process per mutant, with coverage per top-level tape
test. Through the command runner qs's `test/utils.js` (773 mutants, 2-4 s each under load) passed
gate 4's 600 s and was `unvalidated`. What a process per mutant gave is kept: a mutant that
pollutes a built-in fails its test and its worker is not reused; one that loops for ever is a
Timeout by Stryker's hit limit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay.mutation.model import Status
from assay.mutation.tools import stryker, stryker_tape

FIXTURE = Path(__file__).parent / "fixtures" / "tape"
TEST = "test/merge.test.js"
TAPE_ENTRY = "module.exports = tape; function getHarness(o) {} if (exit === false) {}\n"


def _project(root: Path, pkg: dict, test: str, tape_entry: str = TAPE_ENTRY) -> Path:
    (root / "test").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "package.json").write_text(json.dumps({"name": "p", **pkg}))
    (root / "src/a.js").write_text("module.exports = 1;\n")
    (root / "test/a.test.js").write_text(test)
    (root / "node_modules/tape").mkdir(parents=True)
    (root / "node_modules/tape/index.js").write_text(tape_entry)
    return root


TAPE_TEST = "const test = require('tape');\ntest('a', (t) => t.end());\n"


@pytest.mark.parametrize(
    "pkg,test,tape_entry,expected",
    [
        ({}, TAPE_TEST, TAPE_ENTRY, True),
        # node cannot unload an ES module: each mutant's run would see the first one's
        ({"type": "module"}, TAPE_TEST, TAPE_ENTRY, False),
        ({}, "import test from 'tape';\ntest('a', (t) => t.end());\n", TAPE_ENTRY, False),
        ({}, TAPE_TEST + "import('../src/a.js');\n", TAPE_ENTRY, False),
        # node:test, or a script of asserts: the command runner
        ({}, "const test = require('node:test');\ntest('a', () => {});\n", TAPE_ENTRY, False),
        # a tape whose harness takes no `exit: false` would end Stryker's worker
        ({}, TAPE_TEST, "module.exports = tape;\n", False),
    ],
)
def test_the_plugin_takes_commonjs_tape_files_only(tmp_path, pkg, test, tape_entry, expected):
    root = _project(tmp_path, pkg, test, tape_entry)
    assert stryker_tape.fits(root, ".", ["test/a.test.js"], ["src/a.js"]) is expected
    assert stryker_tape.fits(root, ".", ["test/a.test.js"], ["src/a.mjs"]) is False


def test_the_fixtures_tape_takes_the_harness_options_the_plugin_uses():
    if not (FIXTURE / "node_modules/tape").is_dir():
        pytest.skip(f"tape not installed in the fixture: npm ci --prefix {FIXTURE}")
    assert stryker_tape.fits(FIXTURE, ".", [TEST], ["src/merge.js"])


@pytest.mark.slow
def test_a_tape_file_runs_in_strykers_worker_with_its_hangs_and_pollution_caught(tmp_path):
    """Slow (StrykerJS on 30-odd mutants: 30-100 s under load), through `assay mutate`. The
    plugin's statuses: the loop's mutants are Timeouts by Stryker's hit limit (a count; the
    command runner stopped them by a CPU limit or Stryker's wall clock), the mutant letting
    `__proto__` through is killed by the test that checks it (its worker replaced: the next
    mutants' runs do not see the polluted prototype), `double` (never run) NoCoverage unrun."""
    from assay import api

    if not (stryker.home() / "node_modules" / stryker.CORE / "package.json").is_file():
        pytest.skip(f"StrykerJS not installed: {stryker.install_command()}")
    if not (FIXTURE / "node_modules/tape").is_dir():
        pytest.skip(f"tape not installed in the fixture: npm ci --prefix {FIXTURE}")
    project = tmp_path / "merge"
    shutil.copytree(FIXTURE, project, symlinks=True)
    run = api.mutate(
        [project / "src/merge.js"], [project / TEST], root=project, use_cache=False
    ).run
    got = {(m.line, m.original, m.replacement): run.results[m.id] for m in run.mutants}
    proto = got[(10, 'key === "__proto__"', "false")]
    # killed by the test that checks it: Stryker knows each top-level tape test (the command
    # runner's one pseudo test, "All tests", stood for them all)
    assert proto.status is Status.KILLED
    assert proto.killed_by == [f"{TEST}::refuses __proto__"], proto
    loops = [r for (_, original, _), r in got.items() if r.status is Status.TIMEOUT]
    assert len(loops) == 2 and all(r.reason.startswith("Hit limit reached") for r in loops), got
    doubled = [r for (line, _, _), r in got.items() if line in (32, 33)]
    assert doubled and all(r.status is Status.NO_COVERAGE for r in doubled), doubled
    assert {r.status for r in got.values()} <= {
        Status.KILLED,
        Status.SURVIVED,
        Status.TIMEOUT,
        Status.NO_COVERAGE,
    }, got
