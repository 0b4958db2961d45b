"""The README's own set-up: a virtualenv inside the project (`.venv/`) with pytest, the project and
assay installed in it. The worker keeps the project's code out of its imports by dropping modules
loaded from the user's tree; the interpreter's own environment is not the user's tree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

from tests.conftest import REPO, write_project


def test_assay_installed_in_a_venv_inside_the_project_mutates(tmp_path):
    root = write_project(
        tmp_path / "proj",
        {
            "src/calc.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
            "tests/test_calc.py": (
                "from calc import clamp\n\n"
                "def test_clamp():\n"
                "    assert clamp(5, 0, 3) == 3\n"
                "    assert clamp(-1, 0, 3) == 0\n"
                "    assert clamp(2, 0, 3) == 2\n"
            ),
        },
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    )
    env_dir = root / ".venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    # assay itself inside the project's venv; its dependencies (and pytest) through a .pth
    shutil.copytree(
        REPO / "src" / "assay", purelib / "assay", ignore=shutil.ignore_patterns("__pycache__")
    )
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    out = subprocess.run(
        [str(python), "-m", "assay", "mutate", "src/calc.py", "--tests", "tests/test_calc.py"]
        + ["-f", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["score"] == 100.0, report  # every mutant of clamp is killed
