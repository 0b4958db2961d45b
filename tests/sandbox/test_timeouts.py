"""An endless loop says "timed out after N s" at the gate where it happened, naming the test: Go's
own `-timeout` panic is read as a timeout (it was a bare goroutine dump, after a second full run),
and a `node --test` collection run that never ends is a timeout at gate 1, not a compile error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.api import verify
from assay.config import Settings
from tests.languages.conftest import copy_example

GO_SPIN = 'package price\n\nimport "testing"\n\nfunc TestSpin(t *testing.T) {\n\tfor {\n\t}\n}\n'
JS_SPIN = 'const test = require("node:test");\n\ntest("spin", () => {\n  for (;;) {}\n});\n'


def _settings() -> Settings:
    settings = Settings(gates=["compile", "green"], cache=False)
    settings.sandbox.timeout_s = 2
    return settings


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("go") is None, reason="`go` not on PATH")
def test_go_endless_loop_is_a_timeout_at_green(tmp_path):
    """Slow: a Go test build, then a run that waits out its timeout."""
    root = copy_example("go", tmp_path)
    (root / "price/spin_test.go").write_text(GO_SPIN)
    f = verify([root / "price/spin_test.go"], _settings()).files[0]
    assert f.rejected_at == "green"
    assert "price/spin_test.go::TestSpin: timed out after 2 s" in f.gates[-1].feedback
    assert f.gates[-1].duration_s < 2 * 2 + 30  # one run, not the build retried after it


@pytest.mark.skipif(shutil.which("node") is None, reason="`node` not on PATH")
def test_node_test_endless_loop_is_a_timeout_at_compile(tmp_path: Path):
    root = tmp_path / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "version": "1.0.0"}\n')
    (root / "test/spin.test.js").write_text(JS_SPIN)
    f = verify([root / "test/spin.test.js"], _settings()).files[0]
    assert f.rejected_at == "compile"
    feedback = f.gates[-1].feedback
    assert feedback.startswith("REJECT: Gate 1 — TIMEOUT"), feedback
    assert "timed out after 2 s" in feedback and "COMPILE ERROR" not in feedback
