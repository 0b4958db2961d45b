"""Real projects' troubles, reproduced small (fixtures/state): module state filled before a
mutant runs, test ids that change between processes, a hang in C code, a module body that raises,
slow tests."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys

import pytest
from rich.console import Console

from assay.config import SandboxConfig
from assay.mutation.engine import MutationError
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from bench.diskcheck import detected, rerun_from_disk
from tests.mutation._mutation_support import FIXTURES, run_engine

pytestmark = pytest.mark.slow  # real projects' module-state troubles, each a whole mutation run

TARGETS = [
    "src/state/dates.py",
    "src/state/table.py",
    "src/state/hang.py",
    "src/state/broken.py",
    "src/state/words.py",
    "src/state/memo.py",
    "src/state/noise.py",
]
TESTS = [
    "tests/test_dates.py",
    "tests/test_table.py",
    "tests/test_hang.py",
    "tests/test_broken.py",
    "tests/test_slow.py",
    "tests/test_words.py",
    "tests/test_sub.py",
    "tests/test_memo.py",
    "tests/test_noise.py",
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    dest = tmp_path_factory.mktemp("state") / "state"
    shutil.copytree(FIXTURES / "state", dest)
    return dest


@pytest.fixture(scope="module")
def box(root):
    return Sandbox(SandboxConfig(timeout_s=30), protect=root)


@pytest.fixture(scope="module")
def runs(root, box):
    """Two runs without cache: the second one checks determinism."""
    return [run_engine(root, box, TARGETS, TESTS, timeout_s=0.5) for _ in range(2)]


def _pick(run, file, original, operator, replacement=None, line=None):
    found = [
        (m, r)
        for m, r in run.scored
        if m.file == f"src/state/{file}"
        and m.original == original
        and m.operator == operator
        and replacement in (None, m.replacement)
        and line in (None, m.line)
    ]
    assert len(found) == 1, found
    return found[0]


def test_a_cache_filled_by_an_earlier_test_does_not_hide_a_mutant(runs, root, box):
    # only the first test runs `add("-long")`: the second one reads the cache - and fails in a
    # fresh process
    m, r = _pick(runs[0], "dates.py", 'add(kind + "-long")', "call_removal")
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_dates.py::test_known[a-long]"]
    text = (root / m.file).read_text()
    assert (
        rerun_from_disk(root, m, text, ["tests/test_dates.py"], sys.executable, box, ["src"])
        is Status.KILLED
    )


def test_a_pattern_the_worker_compiled_before_forking_does_not_hide_a_mutant_of_it(runs):
    # the worker compiles the baseline's patterns once (warm.py): a mutated pattern is another
    # cache key
    _, r = _pick(runs[0], "words.py", 'r"[^a-z]+"', "string")
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_words.py::test_slug"]


def test_a_memo_cache_of_code_the_mutant_cannot_reach_adds_no_readers(runs):
    # test_split fills halves' cache; a mutant of split cannot change what the cache holds for a key
    _, r = _pick(runs[0], "memo.py", "+", "arithmetic")
    assert r.status is Status.KILLED and r.covered_by == ["tests/test_memo.py::test_split"]
    _, r = _pick(runs[0], "memo.py", "//", "arithmetic")  # in the cached function: its readers run
    assert sorted(r.covered_by) == [
        "tests/test_memo.py::test_pair",
        "tests/test_memo.py::test_split",
    ]


def test_a_function_called_while_collecting_is_judged_in_a_fresh_import(runs, root, box):
    # build() ran only while test_table.py was imported
    m, r = _pick(runs[0], "table.py", "2", "number")
    assert r.status is Status.KILLED
    text = (root / m.file).read_text()
    assert (
        rerun_from_disk(root, m, text, ["tests/test_table.py"], sys.executable, box, ["src"])
        is Status.KILLED
    )


def test_a_table_read_while_collecting_is_judged_after_a_fresh_collection(runs, root, box):
    # test_short's parameters come from the table
    m, r = _pick(runs[0], "words.py", '"sheep"', "string")
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_words.py::test_short[XXsheepXX]"]
    # an id the worker never collected runs first: that is where the mutant shows
    assert r.tests_completed == 1
    text = (root / m.file).read_text()
    assert (
        rerun_from_disk(root, m, text, ["tests/test_words.py"], sys.executable, box, ["src"])
        is Status.KILLED
    )


def test_a_function_a_test_module_calls_at_import_is_judged_after_that_module_is_collected_again(
    runs, root, box
):
    # STEMS in test_words.py holds what `stem` returned at import: patching the function alone would
    # miss it
    assert runs[0].modes["recollect"] >= 1
    m, r = _pick(runs[0], "words.py", "-", "unary_minus_removal", line=17)
    assert r.status is Status.KILLED
    assert r.killed_by[0].startswith("tests/test_words.py::test_stem_drops_one_letter[")
    text = (root / m.file).read_text()
    assert (
        rerun_from_disk(root, m, text, ["tests/test_words.py"], sys.executable, box, ["src"])
        is Status.KILLED
    )


def test_a_default_value_runs_only_the_tests_that_call_its_function(runs):
    _, r = _pick(runs[0], "words.py", '"s"', "default_argument")
    assert r.status is Status.KILLED
    assert r.covered_by == r.killed_by == ["tests/test_words.py::test_plural"]


def test_a_literal_default_next_to_one_that_is_not_runs_only_the_tests_that_call_its_function(runs):
    _, r = _pick(runs[0], "words.py", "3", "default_argument")  # `limit=3` beside `sep=SEPARATOR`
    assert r.status is Status.KILLED
    assert r.covered_by == r.killed_by == ["tests/test_words.py::test_join"]


def test_a_failing_unittest_subtest_kills(runs):
    _, r = _pick(runs[0], "words.py", "-", "unary_minus_removal", line=12)  # word[:-1] -> word[:1]
    assert r.status is Status.KILLED
    assert r.killed_by == ["tests/test_sub.py::SingularTests::test_singular"]


def test_verdicts_match_a_fresh_process_from_disk(runs, root, box):
    scored = [
        (m, r) for m, r in runs[0].scored if m.file in ("src/state/dates.py", "src/state/table.py")
    ]
    survivors = [(m, r) for m, r in scored if r.status is Status.SURVIVED]
    sample = survivors + [(m, r) for m, r in scored if r.status is Status.KILLED][:3]
    assert survivors
    texts = {m.file: (root / m.file).read_text() for m, _ in sample}
    for m, r in sample:
        disk = rerun_from_disk(root, m, texts[m.file], TESTS[:2], sys.executable, box, ["src"])
        assert detected(disk) == detected(r.status), (
            m.line,
            m.original,
            m.replacement,
            r.status,
            disk,
        )


def test_two_runs_give_the_same_verdicts(runs):
    first, second = ({k: v.status for k, v in run.results.items()} for run in runs)
    assert first == second


def test_a_test_that_draws_random_data_draws_the_same_in_every_run(runs):
    # `if x < 0.5` made `if True` fails test_halfN when its draw is 0.5 or more, `if False` when it
    # is less: eight coins per run, each seeded from the test's id - not from the worker's state,
    # new in each run
    def coins(run):
        found = {
            (m.function, m.replacement): r.status
            for m, r in run.scored
            if m.file == "src/state/noise.py" and m.operator == "condition"
        }
        assert len(found) == 16, found
        return found

    first, second = coins(runs[0]), coins(runs[1])
    assert first == second
    for k in range(8):  # the same draw under both mutants: exactly one of them is killed
        assert {first[(f"half{k}", "True")], first[(f"half{k}", "False")]} == {
            Status.KILLED,
            Status.SURVIVED,
        }
    # the draws differ between tests
    assert len({first[(f"half{k}", "True")] for k in range(8)}) == 2


def test_a_mutant_stuck_in_c_code_is_killed_by_the_parent_and_names_the_test(runs, box):
    _, r = _pick(runs[0], "hang.py", "n >= 0", "condition", "False")
    assert r.status is Status.TIMEOUT
    assert r.killed_by == ["tests/test_hang.py::test_first"]
    assert r.reason.startswith("tests/test_hang.py::test_first did not finish within")
    # the parent's per-test deadline ended it, not the sandbox's own timeout of the whole worker
    # (a wall bound of 10 s failed at CI's load: 13.2 s, the deadline counts CPU, not waiting)
    assert r.duration_s < box.config.timeout_s


def test_a_hang_does_not_hide_a_test_that_fails(runs):
    # `step = 2` hangs test_settle_three and test_settle_five, which run first, and fails
    # test_settle_zero: Killed, in every run, past both hangs
    for run in runs:
        step = [r for m, r in run.scored if m.file == "src/state/hang.py" and m.original == "1"]
        assert step and all(r.status is Status.KILLED for r in step), step
        assert all(r.killed_by == ["tests/test_hang.py::test_settle_zero"] for r in step)


def test_a_module_body_that_raises_is_reported_with_its_exception_in_every_format(runs):
    from assay.mutation.summary import MutateReport
    from assay.report import MUTATE_FORMATS
    from assay.report.mutation_text import print_report

    run = runs[0]
    report = MutateReport(run, 0, "pure")
    m, r = _pick(run, "broken.py", '"a"', "string", line=3)
    assert r.status is Status.RUNTIME_ERROR
    assert r.reason == "the module body raises at import: KeyError: 'a' (line 4)"
    data = json.loads(MUTATE_FORMATS["json"](report))
    assert next(x for x in data["mutants"] if x["id"] == m.id)["reason"] == r.reason
    elements = json.loads(MUTATE_FORMATS["mutation-testing-elements"](report))
    entry = next(x for x in elements["files"]["src/state/broken.py"]["mutants"] if x["id"] == m.id)
    assert (entry["status"], entry["statusReason"]) == ("RuntimeError", r.reason)
    assert "KeyError: 'a' (line 4)" in MUTATE_FORMATS["html"](report)  # the MTE JSON it embeds
    out = io.StringIO()
    print_report(Console(file=out, width=200), report)
    assert f"RuntimeError src/state/broken.py:3 `{m.before}`" in out.getvalue()
    assert "KeyError: 'a' (line 4)" in out.getvalue()


def test_the_run_lists_the_slowest_tests_and_deselect_leaves_them_out(runs, root, box):
    slow = next(t for t in runs[0].slowest if t.id == "tests/test_slow.py::test_slow_known")
    assert slow.duration >= 0.3 and 0 < slow.share <= 1  # hung tests cost more: they are listed too
    assert runs[0].longest_mutant.seconds > 0
    assert runs[0].baseline.untraced_s > 0 and runs[0].baseline.tracer
    run = run_engine(root, box, ["src/state/dates.py"], TESTS, deselect=["tests/test_slow.py"])
    assert run.deselected == 1
    assert all("test_slow" not in t for r in run.results.values() for t in r.covered_by)


def _ids_under_seed(root, seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root / "src")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_ids.py",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in out.stdout.splitlines() if line.startswith("tests/")]


def test_ids_from_another_hash_seed_name_the_cause_or_map_back(root, box):
    ours = _ids_under_seed(root, "0")
    theirs = next(
        ids
        for seed in map(str, range(1, 40))
        if set(ids := _ids_under_seed(root, seed)) != set(ours)
    )
    missing = [i for i in theirs if i not in ours]
    with pytest.raises(MutationError) as err:
        run_engine(root, box, ["src/state/dates.py"], [missing[0]])
    message = str(err.value)
    assert "parameter ids differ between processes" in message and "PYTHONHASHSEED" in message
    assert "no tests collected" not in message
    # every parameter asked for: the same tests
    run = run_engine(root, box, ["src/state/dates.py"], theirs)
    assert len(run.tests) == 5
