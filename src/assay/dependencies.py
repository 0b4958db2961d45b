"""The third-party modules a project expects to exist.

A test that cannot import one of them, or asks for a fixture of a pytest plugin the project
declares, fails because the test environment is incomplete: its verdict is `unvalidated`, not
`rejected`. A test importing a module the project never mentions (a hallucinated package) is the
test's own fault.
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from assay.config import tomllib

# distribution name (normalized) -> the module it installs, where the two differ
MODULE_OF = {
    "pyyaml": "yaml",
    "python_dateutil": "dateutil",
    "beautifulsoup4": "bs4",
    "pillow": "PIL",
    "scikit_learn": "sklearn",
    "opencv_python": "cv2",
    "opencv_python_headless": "cv2",
    "attrs": "attr",
    "pyjwt": "jwt",
    "protobuf": "google",
    "python_multipart": "multipart",
    "msgpack_python": "msgpack",
    "setuptools": "pkg_resources",
    "python_dotenv": "dotenv",
    "pyzmq": "zmq",
    "pycryptodome": "Crypto",
    "faiss_cpu": "faiss",
}
# fixtures of common pytest plugins -> the plugin's distribution (normalized)
PLUGIN_FIXTURES = {
    "benchmark": "pytest_benchmark",
    "mocker": "pytest_mock",
    "class_mocker": "pytest_mock",
    "httpx_mock": "pytest_httpx",
    "requests_mock": "requests_mock",
    "freezer": "pytest_freezer",
    "time_machine": "time_machine",
    "snapshot": "syrupy",
    "event_loop": "pytest_asyncio",
    "aioresponses": "aioresponses",
    "httpserver": "pytest_httpserver",
    "fs": "pyfakefs",
    "datadir": "pytest_datadir",
    "shared_datadir": "pytest_datadir",
    "django_db_setup": "pytest_django",
    "client": "pytest_django",
    "rf": "pytest_django",
    "settings": "pytest_django",
    "qtbot": "pytest_qt",
    "xprocess": "pytest_xprocess",
    "subtests": "pytest_subtests",
    "respx_mock": "respx",
    "loop": "pytest_aiohttp",
    "aiohttp_client": "pytest_aiohttp",
    "celery_app": "celery",
}
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
_MISSING_FIXTURE = re.compile(r"fixture '(\w+)' not found")
_MISSING_METADATA = re.compile(r"No package metadata was found for ([\w.-]+)")
_SETUP_NAME = re.compile(r"""name\s*=\s*["']([\w.-]+)["']""")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _requirement_names(lines: Iterable[object]) -> set[str]:
    """Distribution names of PEP 508 requirement lines; comments, options (`-r`, `-e`) and lines
    that are not requirements (URLs, paths) are left out."""
    names = set()
    for line in lines:
        if not isinstance(line, str):
            continue
        text = line.split(" #", 1)[0].strip()
        if not text or text.startswith(("#", "-")):
            continue
        try:
            names.add(normalize(Requirement(text).name))
        except InvalidRequirement:
            continue
    return names


def _from_pyproject(data: dict) -> set[str]:
    project = data.get("project", {})
    lines = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        lines += extra
    for group in data.get("dependency-groups", {}).values():
        lines += [g for g in group if isinstance(g, str)]
    poetry = data.get("tool", {}).get("poetry", {})
    names = _requirement_names(lines)
    tables = [poetry.get("dependencies", {}), poetry.get("dev-dependencies", {})]
    tables += [g.get("dependencies", {}) for g in poetry.get("group", {}).values()]
    for table in tables:
        names |= {normalize(k) for k in table}
    return names


def _from_setup_cfg(text: str) -> set[str]:
    import configparser

    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return set()
    lines = parser.get("options", "install_requires", fallback="").splitlines()
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            lines += value.splitlines()
    return _requirement_names(lines)


def own_names(root: Path, own_packages: set[str]) -> set[str]:
    """Normalized names the project itself is known by: its distribution name and its
    top-level packages."""
    names = {normalize(p) for p in own_packages}
    pyproject = root / "pyproject.toml"
    with contextlib.suppress(OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
        if (
            name := tomllib.loads(pyproject.read_text(encoding="utf-8"))
            .get("project", {})
            .get("name")
        ):
            names.add(normalize(name))
    for legacy in ("setup.cfg", "setup.py"):
        with contextlib.suppress(OSError):
            if m := _SETUP_NAME.search(
                (root / legacy).read_text(encoding="utf-8", errors="replace")
            ):
                names.add(normalize(m.group(1)))
    return names


def declared(root: Path) -> set[str]:
    """Normalized distribution names the project declares (pyproject, setup.cfg,
    requirements files)."""
    names: set[str] = set()
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        with contextlib.suppress(tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
            names |= _from_pyproject(tomllib.loads(pyproject.read_text(encoding="utf-8")))
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        names |= _from_setup_cfg(setup_cfg.read_text(encoding="utf-8", errors="replace"))
    for req in [*root.glob("*requirements*.txt"), *root.glob("requirements/*.txt")]:
        names |= _requirement_names(req.read_text(encoding="utf-8", errors="replace").splitlines())
    return names


def imported(root: Path, files: list[str], own: set[str]) -> set[str]:
    """Top-level third-party modules that the given project files import (stdlib and own packages
    left out)."""
    names: set[str] = set()
    for rel in files:
        try:
            tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in own and n not in sys.stdlib_module_names}


class Dependencies:
    """What a project expects to be installed: declared distributions and modules its own
    code imports."""

    def __init__(self, root: Path, module_files: list[str], own_packages: set[str]):
        dists = declared(root)
        conftests = [
            p.relative_to(root).as_posix()
            for p in root.rglob("conftest.py")
            if not any(part.startswith(".") or part in ("node_modules", "venv") for part in p.parts)
        ]
        self.dists = dists
        self.own = own_names(root, own_packages)
        self.modules = {
            normalize(m) for m in imported(root, module_files + conftests, own_packages)
        }
        self.modules |= {normalize(MODULE_OF.get(d, d.removeprefix("python_"))) for d in dists}

    def missing_module(self, message: str) -> str | None:
        """The expected third-party module an import error names, or None."""
        m = _MISSING_MODULE.search(message)
        if m and normalize(m.group(1).split(".")[0]) in self.modules:
            return m.group(1)
        return None

    def missing_plugin(self, message: str) -> str | None:
        """The declared pytest plugin that provides a fixture reported missing, or None."""
        m = _MISSING_FIXTURE.search(message)
        plugin = PLUGIN_FIXTURES.get(m.group(1)) if m else None
        return plugin if plugin and plugin in self.dists else None

    def explain(self, message: str) -> str | None:
        """Why an error is the test environment's fault, in words, or None when it is the test's."""
        if module := self.missing_module(message):
            return (
                f"module '{module}' is not installed for the test interpreter (the project uses it)"
            )
        m = _MISSING_METADATA.search(message)
        if m and normalize(m.group(1)) in self.own | self.dists:
            return (
                f"package '{m.group(1)}' is not installed for "
                f"the test interpreter (no package metadata)"
            )
        if plugin := self.missing_plugin(message):
            return (
                f"pytest plugin '{plugin}' is not installed for "
                f"the test interpreter (the project declares it)"
            )
        return None
