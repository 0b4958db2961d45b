"""`[tool.assay.python] interpreter` as the README writes it (`.venv/bin/python`): relative to the
config file, not to the scratch copy the tests run in; one that cannot run pytest is a
configuration error (one line, exit 2), never a verdict on a test."""

from __future__ import annotations

import sysconfig
import venv

from tests.conftest import run_cli

FILES = {
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
CONFIG = (
    '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
    "[tool.assay]\ngates = ['compile', 'green']\n"
    '[tool.assay.python]\ninterpreter = "{python}"\n'
)


def test_a_relative_interpreter_is_the_projects_own_venv(project, tmp_path):
    root = project(FILES, CONFIG.format(python=".venv/bin/python"))
    venv.EnvBuilder(with_pip=False).create(root / ".venv")
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # pytest, from here
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = run_cli("verify", str(root / "tests"), cwd=elsewhere)
    assert out.returncode == 0, out.stdout[-1500:] + out.stderr[-1500:]
    assert "1 file: 1 accepted" in out.stdout


def test_a_missing_interpreter_is_one_line_and_exit_2(project):
    root = project(FILES, CONFIG.format(python=".venv/bin/python"))
    out = run_cli("verify", "tests", cwd=root)
    assert out.returncode == 2, out.stdout[-1500:] + out.stderr[-1500:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "interpreter" in lines[0], out.stderr
    assert str(root / ".venv" / "bin" / "python") in lines[0]
    assert "Traceback" not in out.stderr and out.stdout == ""
