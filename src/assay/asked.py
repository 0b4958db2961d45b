"""The two questions assay asks the project's interpreter before its first sandboxed run (whether
pytest imports; what it imports from), and those asked ahead: `assay verify` and `assay mutate`
start both as the command starts (`cli.early`), before assay's own modules load (0.25 s), and
whoever asks later with the same command line takes the answer of the process already running
instead of starting another. Standard library only: imported before anything else of assay.
"""

from __future__ import annotations

import atexit
import subprocess
import threading

# The editable-install finders on sys.meta_path (setuptools' `__editable___*_finder` MAPPING,
# the `editables` redirector of hatchling's exact mode, ...) keep the paths they map modules to in
# their own or their module's attributes: every absolute path found there, two levels deep.
# The stdlib modules it cannot import: asked of the path finder first, then of every finder only for
# what that one misses (frozen ones, an editable or vendored copy): setuptools' `_distutils_hack`,
# asked about `distutils`, imports its own copy (257 modules, 0.1-0.15 s of CPU per probe, four
# probes a run). The same answers: a name the path finder finds, `find_spec` finds too.
PROBE = (
    "import importlib.machinery, importlib.util, json, sys, sysconfig\n"
    "def found(value, depth=0):\n"
    "    if isinstance(value, str):\n"
    "        return [value] if value.startswith('/') else []\n"
    "    if isinstance(value, dict):\n"
    "        value = list(value.values())\n"
    "    if depth > 1 or not isinstance(value, (list, tuple, set, frozenset)):\n"
    "        return []\n"
    "    return [p for v in value for p in found(v, depth + 1)]\n"
    "editable = []\n"
    "for finder in sys.meta_path:\n"
    "    home = getattr(finder, '__module__', '') or ''\n"
    "    if home.startswith(('_frozen_importlib', 'importlib', 'zipimport', '_distutils_hack')):\n"
    "        continue\n"
    "    for space in (getattr(finder, '__dict__', {}), getattr(sys.modules.get(home), "
    "'__dict__', {})):\n"
    "        for name, value in list(space.items()):\n"
    "            editable += [] if name.startswith('__') else found(value)\n"
    "def gone(name):\n"
    "    if name in sys.modules:\n"
    "        return sys.modules[name] is None\n"
    "    return (importlib.machinery.PathFinder.find_spec(name) is None\n"
    "            and importlib.util.find_spec(name) is None)\n"
    "paths = sysconfig.get_paths()\n"
    "print(json.dumps({'version': sys.version, 'path': [p for p in sys.path if p],\n"
    "    'editable': sorted(set(editable)),\n"
    "    'runs': [sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix],\n"
    "    'stdlib': [paths['stdlib'], paths['platstdlib']],\n"
    "    'modules': sorted(set(getattr(sys, 'stdlib_module_names', ()))\n"
    "                      | set(sys.builtin_module_names)),\n"
    "    'absent': sorted(n for n in getattr(sys, 'stdlib_module_names', ())\n"
    "                     if n not in sys.builtin_module_names and gone(n))}))"
)

# pytest's file and the directories a `pip install` or uninstall changes: its package's, and the
# interpreter's site directories (where a `.pth` file may be what reaches pytest)
PYTEST_CHECK = (
    "import json, os, site, pytest\n"
    "print(json.dumps([pytest.__file__, os.path.dirname(os.path.dirname(pytest.__file__)),\n"
    "    *site.getsitepackages(), site.getusersitepackages()]))"
)


def probe_argv(python: str) -> list[str]:
    """The interpreter probe (`dependencies.installed`), isolated as the sandbox runs tests."""
    return [python, "-I", "-c", PROBE]


def pytest_check_argv(python: str) -> list[str]:
    """The pytest check (`dependencies.pytest_check`)."""
    return [python, "-c", PYTEST_CHECK]


# command line -> its process, started ahead and not yet taken
_ahead: dict[tuple[str, ...], subprocess.Popen[str]] = {}
_lock = threading.Lock()


def start(argv: list[str]) -> None:
    """Start `argv` now, its output kept for the first `run` of the same command line."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except OSError:
        return  # asked again later, where the error is reported
    with _lock:
        if not _ahead:
            atexit.register(_drop)
        _ahead[tuple(argv)] = proc


def _drop() -> None:
    """At exit: the processes started ahead that nobody took (a guess that missed, a command
    that stopped early) end with assay."""
    with _lock:
        left = list(_ahead.values())
        _ahead.clear()
    for proc in left:
        proc.kill()
        proc.wait()


def run(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(argv)` with its output captured; the answer of the same command started
    ahead when there is one (each is taken once)."""
    with _lock:
        proc = _ahead.pop(tuple(argv), None)
    if proc is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)
