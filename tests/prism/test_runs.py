"""Runs beyond the bundled numbers: flakiness, an interrupted run that resumes, the Dask executor,
`check` with a mislabelled member, and `build` from mutants."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from assay.prism.api import prism_build, prism_check, prism_run
from assay.prism.task import load_task
from tests.prism.conftest import SUITES, copy_task

# leaves 1 correct, 1 faulty
SMALL = ("correct/casefold", "faulty/keeps-edges", "faulty/drops-accents")
FLAKY = """import os

import pytest


@pytest.mark.parametrize("n", range(10))
def test_coin(n):
    assert os.urandom(1)[0] % 2
"""


def test_a_suite_that_disagrees_with_itself_on_the_reference_is_flaky(tmp_path):
    task = copy_task("slugify-unicode", tmp_path, SMALL)
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "test_coin.py").write_text(FLAKY)
    report = prism_run(task, suite=tmp_path / "suite", workers=2, use_cache=False)
    (result,) = report.tasks
    assert result.flaky and result.flaky_tests  # 10 fair coins agree three times with chance 4^-10
    assert (result.metrics.rar, result.metrics.jsf) == (0, 0)
    assert report.aggregate["flaky"] == 1


def _stored(db) -> int:
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT count(*) FROM entries WHERE namespace='prism'").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_an_interrupted_run_resumes_without_repeating_finished_runs(tmp_path):
    task = copy_task("slugify-unicode", tmp_path, SMALL)
    args = [
        sys.executable,
        "-m",
        "assay",
        "prism",
        "run",
        str(task),
        "--suite",
        str(SUITES / "strong" / "slugify-unicode"),
        "--workers",
        "1",
        "--state",
        str(tmp_path),
        "-f",
        "json",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = tmp_path / ".assay" / "assay.db"
    deadline = time.monotonic() + 120
    while _stored(db) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    kept = _stored(db)
    assert 2 <= kept < 6
    again = subprocess.run(args, capture_output=True, text=True, timeout=300)
    data = json.loads(again.stdout)
    assert data["runs"]["cached"] == kept and data["runs"]["executed"] == 6 - kept
    assert data["tasks"][0]["jsf"] == 1


@pytest.mark.slow
def test_the_dask_executor_on_a_local_cluster_with_a_shell_command(tmp_path):
    """A test command the Python runner does not take runs as given; per-test outcomes come from
    JUnit XML. Slow lane, as test_executor.py: a real Dask LocalCluster of two worker processes
    (their start-up made it the costliest call of the fast lane but two)."""
    distributed = pytest.importorskip("distributed")
    task = copy_task("slugify-unicode", tmp_path, SMALL)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("{suite}", "--junitxml={junit} {suite}"))
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        report = prism_run(
            task,
            suite=SUITES / "weak" / "slugify-unicode",
            executor="dask",
            scheduler=cluster.scheduler_address,
            use_cache=False,
        )
    assert report.executor == {"kind": "dask", "scheduler": cluster.scheduler_address, "workers": 2}
    (result,) = report.tasks
    m = result.metrics
    # no-collapse slips through
    assert (m.fails_original, m.rar, m.var, m.irr, m.jsf) == (True, 1, 1.0, 0.0, 0)
    workers = {member.worker for member in result.members}
    assert not any(w.endswith(f":{os.getpid()}") for w in workers) and len(workers) == 2
    assert result.matrix()["test_slugify::test_accent"]["faulty/no-collapse"] == "passed"
    assert result.change_coverage is None  # measured on the Python runner's path only


def test_check_names_the_member_whose_label_the_validator_contradicts(tmp_path, state_dir):
    bench = tmp_path / "bench"
    task = copy_task("roman-numerals", bench)
    shutil.move(task / "correct" / "digits", task / "faulty" / "digits")
    (bench / "no-toml").mkdir()
    report = prism_check(bench, workers=2, state=state_dir)
    by_id = {t.id: t for t in report.tasks}
    assert by_id["no-toml"].status == "invalid" and by_id["no-toml"].reason == "missing task.toml"
    roman = by_id["roman-numerals"]
    assert roman.status == "mislabelled"
    assert roman.faults == ["faulty/digits: the validator passes on it, but it must fail"]
    assert report.exit_code == 1


def test_build_adds_diverse_faulty_members_the_validator_kills(tmp_path, state_dir):
    task = copy_task("roman-numerals", tmp_path)
    validator = task / "validator" / "test_roman_validator.py"
    # without its out-of-range tests the validator cannot kill mutants of the range check
    # (lines 9-10)
    text = validator.read_text()
    start = text.index('@pytest.mark.parametrize("bad"')
    end = text.index("@pytest.mark.parametrize", start + 1)
    validator.write_text(text[:start] + text[end:])
    report = prism_build(task, 2, workers=2, state=state_dir, limit=6)
    assert report.candidates == 6 and report.killed < report.candidates
    assert [m.path for m in report.added] == ["faulty/mutant-1.patch", "faulty/mutant-2.patch"]
    assert all(m.line not in (9, 10) for m in report.added)
    assert len({tuple(m.failing) for m in report.added}) == 2  # different failing validator tests
    reloaded = load_task(task)
    assert reloaded.problem is None
    assert [m.name for m in reloaded.faulty] == [
        "mutant-1",
        "mutant-2",
        "no-ninety",
        "upper-4000",
        "zero-ok",
    ]


def test_a_missing_toolchain_makes_tasks_unvalidated_and_an_unknown_language_invalid(tmp_path):
    from assay.config import Settings

    bench = tmp_path / "bench"
    copy_task("slugify-unicode", bench)
    other = copy_task("roman-numerals", bench)
    toml = other / "task.toml"
    toml.write_text(toml.read_text().replace('language = "python"', 'language = "cobol"'))
    settings = Settings.model_validate({"python": {"interpreter": str(tmp_path / "no-python")}})
    report = prism_run(bench, SUITES / "strong", settings=settings, use_cache=False)
    by_id = {t.id: t for t in report.tasks}
    assert by_id["slugify-unicode"].status == "unvalidated"
    assert "no-python" in by_id["slugify-unicode"].reason
    assert by_id["roman-numerals"].status == "invalid"
    assert by_id["roman-numerals"].reason.startswith("unknown language 'cobol' (known: ")
    assert report.runs["total"] == 0 and report.exit_code == 2
