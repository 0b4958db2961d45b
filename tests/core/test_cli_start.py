"""What a command imports before it does anything (assay's fixed start, bench/README.md's F)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

PROBE = """import atexit, sys
atexit.register(lambda: print("click" in sys.modules, sys.modules.get("click.exceptions")))
sys.argv = ["assay", *sys.argv[1:]]
from assay.cli import main
main()
"""


@pytest.mark.parametrize(
    ("args", "code"),
    [(["smells", "tests"], None), (["verify", "--bogus"], 2), (["smells", "--bogus"], 2)],
)
def test_a_command_imports_no_click_package_when_typer_vendors_it(args, code, tmp_path):
    """Typer 0.29 vendors Click (`typer._click`) and raises only its classes: the `click`
    package another dependency installs is not imported; a usage error is still one line, exit 2."""
    pytest.importorskip("typer._click.exceptions")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_x.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "src")},
    )
    assert proc.stdout.splitlines()[-1] == "False None", proc.stdout + proc.stderr
    if code is not None:
        assert proc.returncode == code
        assert proc.stderr.startswith("assay: error: No such option: --bogus")
        assert len(proc.stderr.splitlines()) == 1
