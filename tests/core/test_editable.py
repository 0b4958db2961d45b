"""With the project installed in editable mode, the code under test must still come from the
scratch copy."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from tests.conftest import bare_venv, tree_digest, write_project

PYPROJECT_HEAD = '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'


def editable_env(tmp_path: Path, project: Path) -> str:
    """A fresh venv that sees our packages (pytest, hatchling) and has `project` installed with
    `pip -e`."""
    python, purelib = bare_venv(tmp_path)
    # sorts before the `_editable_impl_*.pth` files, so the editables finder can import
    (Path(purelib) / "00_base_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-e",
            str(project),
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        pytest.fail(f"editable install failed: {proc.stderr[-2000:]}")
    where = subprocess.run(
        [python, "-c", "import victim; print(victim.__file__)"],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(project)), "the editable install does not point at the user's tree"
    return python


@pytest.mark.parametrize("exact", [False, True], ids=["pth-path", "import-finder"])
def test_editable_install_does_not_leak_the_users_tree(tmp_path, exact):
    extra = '[tool.hatch.build.targets.wheel]\npackages = ["src/victim"]\n'
    extra += "dev-mode-exact = true\n" if exact else ""
    root = tmp_path / "proj"
    write_project(
        root,
        {
            "src/victim/__init__.py": "",
            "src/victim/data.py": "def load():\n    return 'data'\n",
            "tests/test_wreck.py": f"""
            import shutil
            from pathlib import Path
            import victim.data

            def test_wreck():
                home = Path(victim.data.__file__).resolve()
                assert not str(home).startswith({str(root)!r}), home
                assert victim.data.load() == "data"
                shutil.rmtree(home.parent)
            """,
        },
    )
    pyproject = root / "pyproject.toml"
    pyproject.write_text(PYPROJECT_HEAD + pyproject.read_text() + extra)
    python = editable_env(tmp_path, root)
    before = tree_digest(root)
    settings = Settings(gates=["compile", "green"], cache=False)
    settings.python.interpreter = python
    f = verify([root / "tests/test_wreck.py"], settings).files[0]
    feedback = f.gates[-1].feedback
    # the test itself passed (its module came from the scratch copy) and then was caught wrecking
    # that copy
    assert "AssertionError" not in feedback and "Read-only" not in feedback, feedback
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    assert "the tests deleted project files: src/victim/__init__.py, src/victim/data.py" in feedback
    assert f.gates[1].details["leaked_imports"] == []
    assert tree_digest(root) == before
