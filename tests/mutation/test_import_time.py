"""Import-time mutants: the re-run module body is diffed against the live one to pick the tests that
can see it."""

from __future__ import annotations

import shutil

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import FIXTURES, run_engine, tree_digest

TESTS = [
    "test_scale",
    "test_first_word",
    "test_limit",
    "test_limit2_through_a_helper",
    "test_registry",
    "test_suffix",
]


@pytest.fixture(scope="module")
def tables_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("tables") / "tables"
    shutil.copytree(FIXTURES / "tables", root)
    before = tree_digest(root)
    run = run_engine(
        root,
        Sandbox(SandboxConfig(timeout_s=30), protect=root),
        ["src/tables/rules.py", "src/tables/plugins.py"],
        ["tests/test_rules.py"],
    )
    assert tree_digest(root) == before
    return run


def _one(run, file, original, replacement=None, line=None):
    found = [
        r
        for m, r in run.scored
        if m.file == f"src/tables/{file}"
        and m.original == original
        and (replacement is None or m.replacement == replacement)
        and (line is None or m.line == line)
    ]
    assert len(found) == 1, found
    return found[0]


def _tests(result):
    return sorted(t.split("::")[-1] for t in result.covered_by)


def test_an_empty_namespace_diff_is_ignored(tables_run):
    # LIMIT = max(1, 0) -> max(1, 1): same value
    result = _one(tables_run, "rules.py", "0", "1", line=14)
    assert result.status is Status.IGNORED
    assert result.reason.startswith("equivalent: re-running the module body")


def test_a_table_mutant_runs_only_the_tests_of_the_function_reading_it(tables_run):
    killed = _one(tables_run, "rules.py", "1000")
    assert killed.status is Status.KILLED and _tests(killed) == ["test_scale"]
    survived = _one(tables_run, "rules.py", "1000000")  # "m" is never tested
    assert survived.status is Status.SURVIVED and _tests(survived) == ["test_scale"]
    assert survived.tests_completed == 1
    beta = _one(tables_run, "rules.py", '"beta"')
    assert beta.status is Status.SURVIVED and _tests(beta) == ["test_first_word"]
    assert _one(tables_run, "rules.py", '"alpha"').status is Status.KILLED


def test_a_name_read_by_a_helper_runs_every_test(tables_run):
    # LIMIT2, read by a helper no test maps to
    result = _one(tables_run, "rules.py", "2", "3", line=15)
    assert result.status is Status.SURVIVED
    assert _tests(result) == sorted(TESTS) and result.tests_completed == len(TESTS)


def test_effects_outside_the_module_run_every_test(tables_run):
    for original in ('"scale"', 'registry.register("scale")'):  # a changed, a dropped registration
        result = _one(tables_run, "plugins.py", original)
        assert result.status is not Status.IGNORED
        assert _tests(result) == sorted(TESTS)


def test_what_any_re_run_changes_is_not_the_mutants_doing(tables_run):
    # MASK is built by a function writing into its own bytearray: safe, and read by no test
    result = _one(tables_run, "rules.py", "7")
    assert result.status is Status.SURVIVED and _tests(result) == []


def test_a_call_at_import_changing_a_table_in_place_runs_its_readers(tables_run):
    # inflection's `_irregular(...)` calls insert into PLURALS, a name another statement binds
    result = _one(tables_run, "rules.py", '"es"')
    assert result.status is Status.KILLED and "test_suffix" in _tests(result)
    result = _one(tables_run, "rules.py", "SUFFIXES.insert(0, text)")
    assert result.status is Status.KILLED and "test_suffix" in _tests(result)
