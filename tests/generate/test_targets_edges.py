"""`assay targets` on a project it has never seen: coverage.py missing from the project's
interpreter, modules no test imports, scripts outside the project's packages (issue 25)."""

from __future__ import annotations

import sysconfig
import venv
from pathlib import Path

from tests.conftest import run_cli

FILES = {
    "slug/__init__.py": "",
    "slug/core.py": """\
        def slugify(text, sep="-"):
            if not text:
                return ""
            return sep.join(text.lower().split())
        """,
    "slug/extra.py": '''\
        def shout(text):
            """Nobody imports this module."""
            loud = text.upper()
            return loud + "!"
        ''',
    "tools/release.py": "def bump(version):\n    return version + 1\n",
    "setup.py": "def build():\n    return 1\n",
    "tests/test_core.py": """\
        from slug.core import slugify

        def test_slugify():
            assert slugify("A B") == "a-b"
        """,
}


def rows(stdout: str) -> dict[str, str]:
    return {line.split()[0]: line for line in stdout.splitlines()[1:]}


def test_targets_are_the_packages_functions_each_with_what_it_misses(project):
    root = project(FILES)
    out = run_cli("targets", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    found = rows(out.stdout)
    assert set(found) == {"slug/core.py::slugify", "slug/extra.py::shout"}  # no tools/, setup.py
    # never imported: its two statements are missing (not "0%, missing lines 0")
    assert "coverage 0%" in found["slug/extra.py::shout"]
    assert "missing lines 2 " in found["slug/extra.py::shout"]


def _venv_without_coverage(where: Path) -> Path:
    """An interpreter with pytest and nothing else: pytest's packages linked into one directory on
    its path."""
    venv.EnvBuilder(with_pip=False).create(where)
    purelib = Path(sysconfig.get_paths()["purelib"])
    lent = where / "pytest-only"
    lent.mkdir()
    for name in ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py"):
        (lent / name).symlink_to(purelib / name)
    site = next((where / "lib").glob("python3*/site-packages"))
    (site / "pytest-only.pth").write_text(f"{lent}\n")
    return where / "bin" / "python"


def test_targets_measure_with_assays_coverage_when_the_project_has_none(project, tmp_path):
    python = _venv_without_coverage(tmp_path / "env")
    root = project(FILES, f'[tool.assay.python]\ninterpreter = "{python}"\n')
    out = run_cli("targets", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "slug/core.py::slugify" in out.stdout and "coverage 67%" in out.stdout
    assert "nothing to do" not in out.stdout
