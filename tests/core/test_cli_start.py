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


# what a verify loaded, printed as it exits: the modules the start no longer pays for
LOADED = """import atexit, sys
heavy = ("pydantic", "pydantic_core", "importlib.metadata")
atexit.register(lambda: print("loaded:", sorted(m for m in heavy if m in sys.modules)))
sys.argv = ["assay", *sys.argv[1:]]
from assay.cli import main
main()
"""


def test_a_verify_imports_neither_pydantic_nor_the_package_metadata(tmp_path):
    """The settings are validated by `assay.section`, Typer's option values (a path, a number, a
    flag) without its pydantic adapters, and the version is read from `assay.version`: a verify's
    start (bench/README.md's F) pays for none of them. The verdict is the same."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_x.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    (tmp_path / "assay.toml").write_text('gates = ["compile"]\n[sandbox]\ntimeout_s = 30\n')
    proc = subprocess.run(
        [sys.executable, "-c", LOADED, "verify", "tests/test_x.py", "--jobs", "1"]
        + ["--timeout", "20.5", "--no-cache", "-q", "-f", "json", "-o", "out.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "src")},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "loaded: []", proc.stdout + proc.stderr
    assert '"verdict": "accepted"' in (tmp_path / "out.json").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jobs", "x"], "Invalid value for '--jobs': Input should be a valid integer, "),
        (["--timeout", "1e400"], "Invalid value for '--timeout': Input should be a finite number"),
        (["--timeout", "nan"], "Invalid value for '--timeout': Input should be a finite number"),
    ],
)
def test_a_bad_number_on_the_command_line_is_one_line_and_exit_2(args, message, tmp_path):
    """`--timeout 1e400` was taken as infinity and ended in an internal error (exit 3) where the
    sandbox made it a whole number of seconds."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_x.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    proc = subprocess.run(
        [sys.executable, "-m", "assay", "verify", "tests/test_x.py", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "src")},
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"assay: error: {message}"), proc.stderr
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
