"""`assay generate` with the offline writer (the default with no model) as a user runs it: --dry-run
prints and writes nothing; bad input is one line and exit 2."""

from __future__ import annotations

import time

import pytest

from assay._assay_sandbox.offline.pace import MAX_SLOWDOWN
from assay.writers.offline import generate_offline
from tests.conftest import run_cli, tree_digest
from tests.offline.conftest import ledger_copy


def test_dry_run_prints_the_file_and_writes_nothing(tmp_path_factory):
    root = ledger_copy(tmp_path_factory)
    before = tree_digest(root)
    proc = run_cli(
        "generate",
        "src/ledger/rules.py::grade",
        "--writer",
        "offline",
        "--budget",
        "60s",
        "--dry-run",
        "-q",
        "--no-crosshair",
        "-f",
        f"json={root.parent / 'report.json'}",  # the report to a file, the dry run's text as ever
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"schema": "assay.generate-offline/1"' in (root.parent / "report.json").read_text()
    assert proc.stdout.startswith(
        "# --- tests/test_rules_characterization.py (not written: --dry-run) ---"
    )
    assert "def test_grade" in proc.stdout and "fee(" not in proc.stdout
    assert "characterization tests" in proc.stderr and "grade" in proc.stderr
    assert tree_digest(root) == before


def test_bad_input_is_one_line_and_exit_2(tmp_path_factory):
    root = ledger_copy(tmp_path_factory)
    cases = [
        (["src/ledger/nothing.py"], "no such file or directory"),
        (["src/ledger/rules.py::nope"], "no public function or method 'nope'"),
        (["src/ledger/rules.py", "--budget", "soon"], "--budget"),
        (["tests/test_rules.py"], "is a test file"),
        (["--since", "no-such-revision"], "--since"),
        (["src/ledger/rules.py", "-f", "json=/nonexistent/r.json"], "cannot write"),
    ]
    for args, message in cases:
        proc = run_cli("generate", *args, cwd=root)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_a_tight_budget_is_kept_and_the_report_says_what_it_cost(tmp_path_factory):
    root = ledger_copy(tmp_path_factory)
    before = tree_digest(root)
    start = time.monotonic()
    report = generate_offline(
        [root / "src" / "ledger" / "rules.py"], budget_s=10, dry_run=True, crosshair=False
    )
    took = time.monotonic() - start
    [module] = report.modules
    # the budget is in seconds of an idle machine (`pace`): the wall clock stretches with the load
    assert module.timings["idle"] <= 10 * 1.1
    assert module.duration_s <= 10 * 1.1 * MAX_SLOWDOWN and took <= 10 * 1.1 * MAX_SLOWDOWN + 3
    assert module.verdict == "accepted" or any("budget" in n for n in module.notes), module
    assert tree_digest(root) == before
