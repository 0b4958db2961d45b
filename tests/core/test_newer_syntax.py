"""A project module in syntax newer than assay's own Python: gate 4 names it, never "measured
nothing" (pyee 16.1's `def on[Handler: Callable](...)` under assay on 3.11, its tests on 3.12)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from assay.gates.newer_syntax import unparsed
from tests.conftest import run_cli


def _newer_python() -> str | None:
    """An interpreter newer than this one (on PATH, or pyenv's), for the project's venv."""
    minor = sys.version_info[1]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"), "versions")
    for newer in range(minor + 1, minor + 5):
        name = f"python3.{newer}"
        # a pyenv shim on PATH may refuse a version not selected: each candidate is tried
        for found in [shutil.which(name), *map(str, sorted(pyenv.glob(f"3.{newer}.*/bin/{name}")))]:
            if found and subprocess.run([found, "-c", "pass"], check=False).returncode == 0:
                return found
    return None


@pytest.mark.slow  # a venv of a newer Python and gate 4: 10-18 s under load
def test_a_module_assays_python_cannot_parse_is_named_at_gate_4(project, tmp_path):
    newer = _newer_python()
    if newer is None:
        pytest.skip("no Python newer than assay's own on this machine")
    root = project(
        {
            "src/gen.py": """
                def first[T](items: list[T]) -> T:
                    if not items:
                        raise ValueError("empty")
                    return items[0]
                """,
            "tests/test_gen.py": """
                from gen import first


                def test_first():
                    assert first([3, 4]) == 3
                """,
        },
        "[tool.pytest.ini_options]\npythonpath = ['src']\n"
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
        '[tool.assay.python]\ninterpreter = ".venv/bin/python"\n',
    )
    assert "src/gen.py" in unparsed({"src/gen.py": (root / "src/gen.py").read_text()})
    # the project's venv on the newer Python, with this pytest (pure Python) on its path
    subprocess.run([newer, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    version = subprocess.run(
        [str(root / ".venv/bin/python"), "-c", "import sys; print(*sys.version_info[:2], sep='.')"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site = root / ".venv/lib" / f"python{version}" / "site-packages"
    (site / "borrowed.pth").write_text(str(Path(pytest.__file__).parents[1]) + "\n")
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", "text", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    # before: accepted, "measured nothing: no mutant in scope (the tests run no function ...)"
    assert (f["verdict"], f["rejected_at"]) == ("unvalidated", "mutation"), proc.stdout[-2000:]
    said = proc.stdout
    assert "gate 4 could not mutate src/gen.py:2: " in said, said[-2000:]
    assert f"assay's own Python {sysconfig.get_python_version()} cannot parse it" in said
    assert proc.returncode == 1
