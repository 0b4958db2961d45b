"""What `verify` asks an interpreter before its first sandboxed run, asked as little as it may be:
whether pytest imports (once per run, again after an installation or removal), and what the
interpreters a run names import from (all at once, not one start after another). Real
interpreters behind wrapper scripts that log their calls."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from assay.cli.early import ask_ahead, interpreter_of
from assay.dependencies.installed import Installed, probe_all
from assay.dependencies.pytest_check import interpreter_problem
from assay.project import project_settings
from assay.sandbox.ahead import probe_ahead
from assay.sandbox.shown import shown_dirs
from tests.conftest import bare_venv

LOGGING = """#!/bin/sh
echo "CALL $*" >> {log}
exec {real} "$@"
"""

# each answers the probe only once all `{count}` wrappers were started (or after 20 s)
WAITING = """#!/bin/sh
touch {markers}/$$
n=0
while [ "$(ls {markers} | wc -l)" -lt {count} ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n+1)); done
ls {markers} | wc -l >> {seen}
exec {real} "$@"
"""


def _script(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def _venv_reaching_pytest(base: Path) -> tuple[str, Path]:
    """A venv without pytest of its own that imports it through a `.pth` file (as a venv layered
    on another); the `.pth` file, whose removal uninstalls pytest for it."""
    python, purelib = bare_venv(base)
    pth = Path(purelib) / "reach.pth"
    pth.write_text(os.path.dirname(os.path.dirname(pytest.__file__)) + "\n")
    return python, pth


def test_pytest_is_asked_for_once_and_again_after_it_was_removed(tmp_path):
    real, pth = _venv_reaching_pytest(tmp_path)
    log = tmp_path / "calls.log"
    python = _script(tmp_path / "wrap" / "bin" / "python", LOGGING.format(log=log, real=real))

    def asked() -> int:
        calls = [line for line in log.read_text().splitlines() if line.startswith("CALL ")]
        return sum("pytest" in line for line in calls)

    # a `verify` asks when it loads the settings and again when its first file starts
    assert interpreter_problem(python) is None
    assert interpreter_problem(python) is None
    assert asked() == 1
    # pytest removed (its `.pth` file): asked again, and the answer is the new one
    pth.unlink()
    assert interpreter_problem(python) == f"pytest is not importable by {python}"
    assert interpreter_problem(python) == f"pytest is not importable by {python}"
    assert asked() == 3  # a failure is never remembered
    pth.write_text(os.path.dirname(os.path.dirname(pytest.__file__)) + "\n")
    assert interpreter_problem(python) is None
    assert asked() == 4


def test_the_interpreters_a_run_names_are_asked_at_once(tmp_path):
    markers, seen = tmp_path / "markers", tmp_path / "seen"
    markers.mkdir()
    text = WAITING.format(markers=markers, count=3, seen=seen, real=sys.executable)
    own = _script(tmp_path / "own" / "bin" / "python", text)
    on_path = tmp_path / "path" / "bin"
    _script(on_path / "python", text)
    _script(on_path / "python3", text)
    shown = shown_dirs([own, "-m", "pytest"], {"PATH": f"{on_path}:/usr/bin"}, taken=[])
    # one after another, the first would have answered alone after 20 s
    assert seen.read_text().split() == ["3", "3", "3"]
    assert str(tmp_path / "own") in shown and str(tmp_path / "path") in shown


def test_pytest_and_what_the_interpreter_imports_from_are_asked_at_once(tmp_path):
    markers, seen = tmp_path / "markers", tmp_path / "seen"
    markers.mkdir()
    text = WAITING.format(markers=markers, count=2, seen=seen, real=sys.executable)
    python = _script(tmp_path / "own" / "bin" / "python", text)
    assert interpreter_problem(python) is None
    # one after another, the first would have answered alone after 20 s
    assert seen.read_text().split() == ["2", "2"]
    assert Installed(python).known


def test_the_interpreters_a_python_run_names_are_asked_while_pytest_is_checked(
    tmp_path, monkeypatch
):
    # the `python` and `python3` on a run's PATH (a pyenv shim: 0.3 s each) were asked at the
    # first sandboxed start, which gates 1-3 of the first file waited behind; now beside the
    # pytest check of the configured interpreter, with its own probe
    markers = tmp_path / "markers"
    markers.mkdir()

    def waiting(path: Path, seen: Path) -> str:
        return _script(
            path, WAITING.format(markers=markers, count=4, seen=seen, real=sys.executable)
        )

    own = waiting(tmp_path / "own" / "bin" / "python", tmp_path / "own.seen")
    on_path = tmp_path / "path" / "bin"
    waiting(on_path / "python", tmp_path / "path.seen")
    waiting(on_path / "python3", tmp_path / "path.seen")
    monkeypatch.setenv("PATH", f"{on_path}:/usr/bin:/bin")
    monkeypatch.delenv("ASSAY_SANDBOX_BACKEND", raising=False)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text(f'[tool.assay.python]\ninterpreter = "{own}"\n')
    project_settings(root)
    # its pytest check and its probe each saw all four started; one after another, they would
    # have waited 20 s and seen only themselves
    assert (tmp_path / "own.seen").read_text().split() == ["4", "4"]


def test_an_interpreter_asked_about_twice_at_once_is_probed_once(tmp_path):
    # the probes started ahead are still running when the first sandboxed start asks: it waits
    # for their answers instead of starting its own
    log = tmp_path / "calls.log"
    slow = LOGGING.replace("exec", "sleep 0.5; exec")
    python = _script(tmp_path / "own" / "bin" / "python", slow.format(log=log, real=sys.executable))
    askers = [threading.Thread(target=probe_all, args=([python],)) for _ in range(3)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    assert sum(line.startswith("CALL ") for line in log.read_text().splitlines()) == 1
    assert Installed(python).known


def _calls(log: Path) -> list[str]:
    text = log.read_text() if log.exists() else ""
    return [line for line in text.splitlines() if line.startswith("CALL ")]


def test_the_questions_started_as_verify_starts_are_the_ones_its_settings_ask(
    tmp_path, monkeypatch
):
    # `assay verify` starts the interpreter's pytest check and probe before its own modules load;
    # its settings then take those processes' answers instead of starting their own
    log = tmp_path / "calls.log"
    root = tmp_path / "proj"
    python = _script(root / "wrap" / "bin" / "python", LOGGING.format(log=log, real=sys.executable))
    on_path = tmp_path / "path" / "bin"  # under a root the view hides: its interpreters are asked
    for name in ("python", "python3"):
        _script(on_path / name, LOGGING.format(log=log, real=sys.executable))
    monkeypatch.setenv("PATH", f"{on_path}:/usr/bin:/bin")
    monkeypatch.delenv("ASSAY_SANDBOX_BACKEND", raising=False)
    (root / "pyproject.toml").write_text('[tool.assay.python]\ninterpreter = "wrap/bin/python"\n')
    (root / "tests").mkdir()
    ask_ahead(["verify", str(root / "tests"), "-q"])
    for _ in range(600):  # all four started, before any settings are read
        if len(_calls(log)) == 4:
            break
        threading.Event().wait(0.05)
    assert len(_calls(log)) == 4
    settings = project_settings(root)
    assert settings.python.interpreter == python
    probe_ahead(settings.sandbox, python)  # what the first sandboxed start asks
    assert all(Installed(p).known for p in (python, str(on_path / "python")))
    assert len(_calls(log)) == 4  # taken, not asked again


def test_the_interpreter_is_guessed_only_from_a_plain_command_line(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.assay.python]\ninterpreter = ".venv/bin/python"\n')
    python = str(root / ".venv" / "bin" / "python")
    assert interpreter_of(["verify", str(root / "tests"), "-q"]) == python
    assert interpreter_of(["mutate", str(root / "tests")]) == python
    monkeypatch.chdir(root)
    assert interpreter_of(["verify"]) == python
    # commands that ask no interpreter, and options that may move the root or the settings
    assert interpreter_of(["smells", "tests"]) is None
    assert interpreter_of(["verify", "tests", "--config", "other.toml"]) is None
    assert interpreter_of(["verify", "tests", "--root", str(tmp_path)]) is None
    # assay.toml wins over pyproject.toml, as `load_settings` reads them
    (root / "assay.toml").write_text('[python]\ninterpreter = "/usr/bin/python3"\n')
    assert interpreter_of(["verify", "tests"]) == "/usr/bin/python3"


ASKER = """import importlib.machinery, sys


class Asker:
    \"\"\"Logs every name it is asked about; claims `_dbm` (absent from this build).\"\"\"

    def find_spec(self, name, path=None, target=None):
        with open({log!r}, "a") as fh:
            fh.write(name + "\\n")
        if name == "_dbm":
            return importlib.machinery.ModuleSpec(name, None)
        return None


sys.meta_path.insert(0, Asker())
"""


def test_the_probe_asks_other_finders_only_about_what_the_path_finder_misses(tmp_path):
    # setuptools' `_distutils_hack` (a `.pth` file in most venvs) is a finder ahead of the path
    # finder; asked about `distutils`, it imported its own copy: 257 modules, 0.1-0.15 s of CPU in
    # each of a run's four probes. A finder ahead of the path finder is now asked only about what
    # the path finder cannot find, and what the probe says is absent is the same
    python, site = bare_venv(tmp_path)
    log = tmp_path / "asked.txt"
    (site / "asker.py").write_text(ASKER.format(log=str(log)))
    (site / "asker.pth").write_text("import asker\n")
    found = Installed(python)
    assert found.known
    asked = set(log.read_text().split())
    assert not {"csv", "email", "distutils"} & asked, sorted(asked)
    assert {"_dbm", "winreg"} <= asked, sorted(asked)
    # what it finds, the probe counts as present; what no finder finds, as absent
    assert "_dbm" not in found.absent and "winreg" in found.absent, found.absent
    assert not {"csv", "email", "distutils"} & found.absent
