"""Turn off what a project's pytest config switches on for its own runs but that has no place in
assay's: pytest-cov. A `--cov` in the project's addopts (wcwidth's tox.ini) would measure every
assay run, slow it down, and write `.coverage` and `htmlcov/` at session end, which the green gate
then took for files the tests changed. Stdlib only: runs under the project's interpreter."""

from __future__ import annotations

import importlib.util
import os

# `-p no:NAME` blocks the plugin NAME and pytest_NAME alike
_COV_NAMES = ("cov", "pytest_cov")


def _blocked(args: list[str], names: tuple[str, ...]) -> bool:
    for i, arg in enumerate(args):
        value = args[i + 1] if arg == "-p" and i + 1 < len(args) else arg.removeprefix("-p")
        if value.startswith("no:") and value[3:] in names:
            return True
    return False


def quieting_args(args: list[str], has_pytest_cov: bool | None = None) -> list[str]:
    """`--no-cov` (pytest-cov's own switch; it wins over a `--cov` in addopts) when pytest-cov is
    installed (in this interpreter, unless the caller probed another) and will load, else nothing:
    pytest rejects `--no-cov` when pytest-cov is absent."""
    if has_pytest_cov is None:
        has_pytest_cov = importlib.util.find_spec("pytest_cov") is not None
    if not has_pytest_cov or _blocked(args, _COV_NAMES):
        return []
    autoload = not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    if not autoload and not any("pytest_cov" in a for a in args):
        return []
    return ["--no-cov"]


def cache_args() -> list[str]:
    """pytest's cache plugin, its directory in the run's own HOME (outside the project tree, which
    the cache would otherwise write into): fixtures use `config.cache` (pytest-xprocess keeps its
    processes' state there), and with the plugin off every test of them erred at set-up,
    "'Config' object has no attribute 'cache'" (cachelib). Off only without a HOME to put it in."""
    home = os.environ.get("HOME")
    if not home or not os.path.isdir(home) or not os.access(home, os.W_OK):
        return ["-p", "no:cacheprovider"]
    return ["-o", f"cache_dir={os.path.join(home, '.pytest_cache')}"]
