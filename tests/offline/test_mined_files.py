"""Which test files the offline writer reads for inputs, and what their names stand for (modules it
never saw, issue 28): toposort 1.9's `test_all` imports the module inside the test, which made the
file's `toposort` the module for every test (no input for the function, so no test of a cycle);
titlecase 2.4.1 and roman 5.2 keep their suites in a `tests.py` (0 files read), and roman writes
its error cases `assertRaises(NotIntegerError, toRoman, '1')` (no call of `toRoman` to read)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.project import Project
from assay.writers.offline import generate_offline
from assay.writers.offline.functions import functions_of
from assay.writers.offline.mine import mine
from assay.writers.offline.place import tests_dir as dir_of_tests

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _mined(root: Path, dotted: str, rel: str, function: str) -> list[tuple[list, dict]]:
    mined = mine(root, dotted, (root / rel).read_text(), {function: "function"}, {dotted: rel})
    return [(i["args"], i["kwargs"]) for i in mined.inputs.get(function, [])]


def test_an_import_inside_one_test_does_not_rebind_the_files_import_for_the_others():
    root = FIXTURES / "shadow"
    calls = _mined(root, "order", "src/order.py", "order")
    assert (["{'a': {'b'}, 'b': {'a'}}"], {}) in calls, calls
    assert (["{'b': {'a'}, 'a': set()}"], {}) in calls, calls


def test_a_suite_named_as_unittest_finds_it_is_read_for_inputs():
    root = FIXTURES / "unittested"
    calls = _mined(root, "titles", "src/titles/__init__.py", "title")
    assert (["'the lord of the rings'"], {}) in calls, calls
    assert (["'war and peace'"], {"small": "('and',)"}) in calls, calls
    # `self.assertRaises(AttributeError, title, 5)` is the call `title(5)` (roman's error cases)
    assert (["5"], {}) in calls, calls
    # the written file still goes to a test directory, not into the package beside `tests.py`
    assert dir_of_tests(Project.load(root), "src/titles/__init__.py") == "tests"


@pytest.mark.slow  # the offline writer end to end: probe, sandbox, gates 1-5
def test_the_function_named_as_its_module_gets_a_test_of_its_cycle(tmp_path):
    root = tmp_path / "shadow"
    shutil.copytree(FIXTURES / "shadow", root)
    report = generate_offline(
        [root / "src" / "order.py"], budget_s=30, dry_run=True, crosshair=False
    )
    [module] = report.modules
    assert module.text is not None, [f.reason for f in module.functions]
    assert "pytest.raises(CycleError" in module.text, module.text


def test_a_function_that_rebinds_module_globals_is_skipped_with_the_reason():
    """titlecase 2.4.1: the written file called `set_small_word_list("b")`, which left the
    module's small words at "b" for every test after it in the session."""
    source = (FIXTURES / "globals" / "src" / "smallwords" / "__init__.py").read_text()
    skips = {f.name: f.skip for f in functions_of(source)}
    assert skips["set_small_word_list"] == (
        "rebinds the module's SMALL_WORDS (global): a test of it would change the module for "
        "the tests after it"
    )
    assert skips["reset"] == f"calls set_small_word_list, which {skips['set_small_word_list']}"
    assert skips["title"] is None
