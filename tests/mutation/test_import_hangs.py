"""A mutant that makes a module body loop at import (fixtures/importloop: `TOTAL = build(10)`, a
`while` whose step is mutated) hangs the re-import of its child's set-up, before any test. It is a
Timeout held to the CPU a set-up like it used (the test rule: 2 x + 4 x timeout_s), not to the
wall-clock set-up allowance, and never retried: it computed throughout, so more time would be spent
the same way (parsimonious, whose grammar is parsed at import: ~30 s of CPU per such mutant, and
the worker starved of cores went silent past the engine's watchdog)."""

from __future__ import annotations

import shutil

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import FIXTURES, run_engine


@pytest.mark.slow  # three hangs of a second of CPU each, and the other mutants
def test_a_module_body_that_loops_at_import_is_a_timeout_on_cpu_not_retried(tmp_path):
    root = tmp_path / "importloop"
    shutil.copytree(FIXTURES / "importloop", root)
    box = Sandbox(SandboxConfig(timeout_s=120), protect=root)
    run = run_engine(root, box, ["src/tbl/table.py"], ["tests/test_table.py"])
    loops = {
        (m.original, m.replacement): r for m, r in run.scored if m.line == 5
    }  # `i += 1`: `i -= 1`, `i = 1`, `i += 0` never reach 10
    assert len(loops) == 3, sorted(loops)
    for r in loops.values():
        assert r.status is Status.TIMEOUT
        assert "module body re-run computed for" in r.reason, r.reason
        assert "of CPU" in r.reason and r.reason.endswith("not retried"), r.reason
