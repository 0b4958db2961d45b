"""One real run of the offline writer on a small project (tests/offline/fixtures/ledger), shared by
the tests that read its report and its file: real sandbox, real pytest, real gates."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.writers.offline import OfflineReport, generate_offline
from tests.conftest import tree_digest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# generous: the probe ends when done, and the gates take what they take on a busy machine
BUDGET_S = 60.0
collect_ignore_glob = ["fixtures/*"]


@dataclass
class LedgerRun:
    root: Path
    before: dict[str, str]  # the project's files before the run
    report: OfflineReport
    wall_s: float


def ledger_copy(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("ledger") / "ledger"
    shutil.copytree(FIXTURES / "ledger", dest)
    return dest


@pytest.fixture(scope="session")
def ledger_run(tmp_path_factory) -> LedgerRun:
    root = ledger_copy(tmp_path_factory)
    before = tree_digest(root)
    start = time.monotonic()
    report = generate_offline(
        [root / "src" / "ledger" / "rules.py"], budget_s=BUDGET_S, crosshair=False
    )
    return LedgerRun(root, before, report, time.monotonic() - start)
