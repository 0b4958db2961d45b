"""The real `assay prism` CLI in a subprocess: formats, resume from the session's state, and bad
input (one line per task, the rest still evaluated, exit 1; exit 2 when nothing could be evaluated
or the input is unusable)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import run_cli
from tests.prism.conftest import BENCH, SUITES, copy_task

# The tests of bench_runs (the bundled benchmark, every suite set against every panel member, the
# costliest set-up of the fast lane) run in the slow lane, which runs that benchmark anyway for
# test_bench.py: the fast lane paid it a second time for these reruns from its store.


@pytest.mark.slow
def test_a_rerun_comes_from_the_cache_in_every_format(bench_runs, state_dir, tmp_path):
    """Slow lane (see above): a rerun of the overfit suites from bench_runs' store."""
    args = [
        "prism",
        "run",
        str(BENCH),
        "--suites",
        str(SUITES / "overfit"),
        "--state",
        str(state_dir),
    ]
    proc = run_cli(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["runs"] == {"total": 29, "cached": 29, "executed": 0}
    assert data["aggregate"]["jsf"] == 0 and data["aggregate"]["rar"] == 1
    text = run_cli(*args)
    assert "over-fits: test_slugify.py::test_sharp_s fails on correct/casefold" in text.stdout
    page = tmp_path / "prism.html"
    html = run_cli(*args, "--format", "html", "--output", str(page))
    assert html.returncode == 0 and page.read_text().startswith("<!doctype html>")


@pytest.mark.slow
def test_one_task_with_its_suite(bench_runs, state_dir):
    """Slow lane (see above): one task of the bench, its runs from bench_runs' store."""
    proc = run_cli(
        "prism",
        "run",
        str(BENCH / "roman-numerals"),
        "--suite",
        str(SUITES / "weak" / "roman-numerals"),
        "--state",
        str(state_dir),
        "--format",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    (task,) = json.loads(proc.stdout)["tasks"]
    assert (task["fails_original"], task["rar"], task["irr"]) == (False, 0, 0)


@pytest.mark.slow
def test_bad_tasks_are_invalid_one_line_each_and_the_rest_is_evaluated(
    bench_runs, state_dir, tmp_path
):
    """Slow lane (see above): the valid tasks' runs come from bench_runs' store."""
    bench, suites = tmp_path / "bench", tmp_path / "suites"
    copy_task("slugify-unicode", bench)
    shutil.copytree(SUITES / "strong" / "slugify-unicode", suites / "slugify-unicode")
    (bench / "no-toml").mkdir()
    bad_patch = copy_task("interval-merge", bench)
    (bad_patch / "faulty" / "no-max.patch").write_text(
        "--- a/intervals.py\n+++ b/intervals.py\n@@ -1 +1 @@\n-x\n+y\n"
    )
    shutil.copytree(SUITES / "strong" / "interval-merge", suites / "interval-merge")
    copy_task("roman-numerals", bench)  # its suite is missing
    proc = run_cli(
        "prism", "run", str(bench), "--suites", str(suites), "--state", str(state_dir), "-f", "json"
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [
        "assay: interval-merge: invalid: faulty/no-max: "
        "no-max.patch does not apply: intervals.py: hunk 1 "
        "(@@ -1 +1 @@) does not match the file",
        "assay: no-toml: invalid: missing task.toml",
        f"assay: roman-numerals: invalid: no suite: {suites / 'roman-numerals'} does not exist",
    ]
    data = json.loads(proc.stdout)
    slug = next(t for t in data["tasks"] if t["id"] == "slugify-unicode")
    assert (slug["status"], slug["jsf"]) == ("evaluated", 1)
    # copies hit the cache
    assert data["aggregate"]["invalid"] == 3 and data["runs"]["executed"] == 0


def test_nothing_evaluable_exits_2(tmp_path):
    (tmp_path / "bench" / "empty-task").mkdir(parents=True)
    (tmp_path / "suites").mkdir()
    proc = run_cli(
        "prism", "run", str(tmp_path / "bench"), "--suites", str(tmp_path / "suites"), "--no-cache"
    )
    assert proc.returncode == 2
    assert "empty-task: invalid: missing task.toml" in proc.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "{bench}"], "is a benchmark: give the suites with --suites DIR"),
        (["run", "{bench}/slugify-unicode"], "is a task: give its suite with --suite DIR"),
        (
            ["run", "/nonexistent", "--suites", "/tmp"],
            "no such benchmark or task directory: /nonexistent",
        ),
        (
            ["run", "{bench}", "--suites", "{suites}", "--executor", "dask"],
            "--executor dask needs --scheduler",
        ),
        (
            ["run", "{bench}", "--suites", "{suites}", "--writer", "openai:gpt"],
            "--writer writes the suites",
        ),
        (["run", "{bench}", "--writer", "openai:gpt"], "--writer needs --out DIR"),
        (
            [
                "run",
                "{bench}",
                "--suites",
                "{suites}",
                "--executor",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:9",
            ],
            "cannot reach the Dask scheduler at tcp://127.0.0.1:9",
        ),
        (
            ["build", "{bench}/roman-numerals", "--faulty-from-mutants", "0"],
            "--faulty-from-mutants must be at least 1",
        ),
    ],
)
def test_unusable_input_is_one_line_and_exit_2(args, message, tmp_path):
    filled = [a.format(bench=BENCH, suites=SUITES / "strong") for a in args]
    proc = run_cli("prism", *filled, "--state", str(tmp_path), timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
