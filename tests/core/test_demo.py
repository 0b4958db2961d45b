"""`assay demo` end to end: every gate on the bundled example project, each file's verdict as the
example expects."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, run_cli, tree_digest


@pytest.mark.slow  # the whole demo: every gate on ten files
def test_demo_gives_every_expected_verdict():
    before = tree_digest(REPO / "examples" / "shop")
    proc = run_cli("demo")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "demo: all 10 example verdicts as expected" in proc.stdout
    for gate in ("compile", "green", "stability", "mutation", "smells"):
        assert gate in proc.stdout
    assert "REJECT: Gate 3 — FLAKY TESTS" in proc.stdout
    assert tree_digest(REPO / "examples" / "shop") == before
