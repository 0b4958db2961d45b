"""A field project set up as README.md's "Use it on your own project" tells a user: the sdist
unpacked, its own .venv inside it, `pip install -e .` plus its test dependencies there, and the
assay config naming that interpreter by a relative path."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sdists import fetch  # noqa: E402

INTERPRETER = ".venv/bin/python"
INSTALL_TIMEOUT_S = 900


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    tests: str
    module: str
    mutate_tests: list[str] = field(default_factory=list)
    install: str = "."
    pip: list[str] = field(default_factory=list)
    pytest_args: list[str] = field(default_factory=list)
    also_copy: list[str] = field(default_factory=list)
    traits: list[str] = field(default_factory=list)

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def covering_tests(self) -> list[str]:
        return self.mutate_tests or [self.tests]


class SetupError(Exception):
    """A step of the README's setup failed on this project: a row of the table, not a crash."""


def load(path: Path) -> list[Project]:
    return [Project(**entry) for entry in tomllib.loads(path.read_text())["project"]]


def _run(cmd: list[str], cwd: Path, step: str) -> None:
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        raise SetupError(f"{step}: no answer in {INSTALL_TIMEOUT_S} s") from None
    if proc.returncode:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["(no output)"]
        raise SetupError(f"{step}: exit {proc.returncode}: {lines[-1]}")


def write_config(root: Path) -> str:
    """README step 1: `[tool.assay.python] interpreter = ".venv/bin/python"`. A project without
    pyproject.toml gets assay.toml (same keys at top level): adding a pyproject.toml would change
    how pip builds it. Returns the file written."""
    pyproject = root / "pyproject.toml"
    if pyproject.exists():
        text = pyproject.read_text()
        if "[tool.assay" not in text:
            pyproject.write_text(
                text.rstrip("\n") + f'\n\n[tool.assay.python]\ninterpreter = "{INTERPRETER}"\n'
            )
        return "pyproject.toml"
    (root / "assay.toml").write_text(f'[python]\ninterpreter = "{INTERPRETER}"\n')
    return "assay.toml"


def prepare(project: Project, workdir: Path) -> tuple[Path, str]:
    """The project root, set up (cached: the sdist, the venv and the install are redone only when
    the pinned install spec changes), and the config file written."""
    try:
        root = fetch(project.spec, workdir)
    except subprocess.CalledProcessError as exc:
        raise SetupError(f"pip download {project.spec}: exit {exc.returncode}") from None
    venv = root / ".venv"
    wanted = json.dumps([project.install, project.pip])
    marker = venv / "field-installed.json"
    if not marker.exists() or marker.read_text() != wanted:
        if not (venv / "bin" / "python").exists():
            _run([sys.executable, "-m", "venv", str(venv)], root, "python -m venv .venv")
        _run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-e", project.install],
            root,
            f"pip install -e {project.install}",
        )
        _run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pytest", *project.pip],
            root,
            "pip install pytest " + " ".join(project.pip),
        )
        marker.write_text(wanted)
    return root, write_config(root)
