"""The third-party modules a project expects to exist, and what the test interpreter has.

A test that cannot import one of them - itself, or in a subprocess it starts - or asks for a fixture
of a pytest plugin the project declares, fails because the test environment is incomplete: its
verdict is `unvalidated`, not `rejected`. A test importing a module the project never mentions (a
hallucinated package) is the test's own fault - unless the project's committed tests import it too
(`committed`) - and so is a "No module named" about a module the
interpreter does have (a test that hides it on purpose, a subprocess on another Python). A module of
the standard library that the interpreter was built without (`_dbm`, `_lzma`, `_tkinter`) is the
environment's gap, whoever imports it.
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from assay.config import tomllib
from assay.dependencies import jdk
from assay.dependencies.committed import committed_test_imports

if TYPE_CHECKING:
    from assay.dependencies.installed import Installed

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
# a test's or the project's own words for an import that failed (textdistance's test_external.py:
# `RuntimeError('cannot import jellyfish.jaro_similarity')`); not Python's "cannot import name 'x'
# from 'mod'", a name the module lacks
_CANNOT_IMPORT = re.compile(
    r"\b(?:cannot|can't|could not|couldn't|unable to|failed to) import "
    r"(?!name\b)(?:module )?['\"`]?([A-Za-z_][\w.]*)"
)
_MISSING_FIXTURE = re.compile(r"fixture '(\w+)' not found")
_SKIP_WORD = re.compile(r"(?<![\w.-])[A-Za-z_][\w.]*")
_MISSING_METADATA = re.compile(r"No package metadata was found for ([\w.-]+)")
# the C library has no such locale: `locale.setlocale(LC_ALL, "en_US.UTF-8")` on a system that
# generated only C and C.UTF-8 (natsort's conftest); the name, when the traceback shows it
# what `_assay_sandbox.messages.missing_programs` writes
_MISSING_PROGRAM = re.compile(r"No such program: '([^'/]+)' \(not on PATH")
_MISSING_LOCALE = re.compile(r"locale\.Error: unsupported locale setting")
_LOCALE_NAME = re.compile(r"""["']([a-z]{2,3}_[A-Z]{2}(?:[.@][\w-]+)?)["']""")
# an attribute of a standard-library module this Python does not have: the code was written for
# another Python (validators 0.9's `inspect.getargspec` on 3.11); only removals known here, so that
# a typo of the project's (`os.pathjoin`) stays its own failure
_MISSING_STDLIB_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
_ABCS = "Mapping MutableMapping Sequence MutableSequence Set MutableSet Iterable Iterator Callable"
REMOVED = {
    **{f"collections.{name}": "3.10" for name in (*_ABCS.split(), "Hashable", "Sized")},
    "inspect.getargspec": "3.11",
    "inspect.formatargspec": "3.11",
    "inspect.getmoduleinfo": "3.6",
    "asyncio.coroutine": "3.11",
    "time.clock": "3.8",
    "cgi.escape": "3.8",
    "platform.linux_distribution": "3.8",
    "platform.dist": "3.8",
    "base64.encodestring": "3.9",
    "base64.decodestring": "3.9",
    "fractions.gcd": "3.9",
    "sys.setcheckinterval": "3.9",
    "configparser.SafeConfigParser": "3.12",
    "locale.format": "3.12",
    "ssl.wrap_socket": "3.12",
    "ssl.match_hostname": "3.12",
    "importlib.find_loader": "3.12",
    "pkgutil.ImpImporter": "3.12",
    "unittest.makeSuite": "3.13",
    "unittest.findTestCases": "3.13",
    "unittest.getTestCaseNames": "3.13",
}
_SETUP_NAME = re.compile(r"""name\s*=\s*["']([\w.-]+)["']""")
_SETUP_KEYWORDS = {"install_requires", "extras_require", "tests_require"}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def modules_of(dist: str) -> set[str]:
    """The module names (normalized) a declared distribution (normalized) may install: the known
    one where they differ (`pyyaml`: yaml), else its name less a `python-` prefix or a `.py`
    suffix (`python-slugify`: slugify; num2words' `delegator.py`: delegator)."""
    if dist in MODULE_OF:
        return {normalize(MODULE_OF[dist])}
    return {dist.removeprefix("python_"), dist.removesuffix("_py")}


def _requirement_names(lines: Iterable[object]) -> set[str]:
    """Distribution names of PEP 508 requirement lines; comments, options (`-r`, `-e`) and lines
    that are not requirements (URLs, paths) are left out."""
    from packaging.requirements import InvalidRequirement, Requirement  # 0.05 s: Python only

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


def _from_setup_py(text: str) -> set[str]:
    """Requirements written as literals in `setup(install_requires=..., extras_require=...,
    tests_require=...)`, or in module-level names passed there (python-slugify declares its
    dependencies only so: `install_requires = [...]`, then `setup(install_requires=...)`)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    names: dict[str, ast.expr] = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    lines: list[object] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.keyword) or node.arg not in _SETUP_KEYWORDS:
            continue
        expr = (
            names.get(node.value.id, node.value) if isinstance(node.value, ast.Name) else node.value
        )
        with contextlib.suppress(ValueError, TypeError, SyntaxError, RecursionError):
            value = ast.literal_eval(expr)
            groups = value.values() if isinstance(value, dict) else [value]
            for group in groups:
                lines += [group] if isinstance(group, str) else list(group)
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
    """Normalized distribution names the project declares (pyproject, setup.cfg, setup.py,
    requirements files)."""
    names: set[str] = set()
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        with contextlib.suppress(tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
            names |= _from_pyproject(tomllib.loads(pyproject.read_text(encoding="utf-8")))
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        names |= _from_setup_cfg(setup_cfg.read_text(encoding="utf-8", errors="replace"))
    setup_py = root / "setup.py"
    if setup_py.is_file():
        names |= _from_setup_py(setup_py.read_text(encoding="utf-8", errors="replace"))
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
    """What a project expects to be installed: declared distributions, modules its own code
    imports, and modules its committed tests import."""

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
        self.modules |= {m for d in dists for m in modules_of(d)}
        self.modules |= {
            normalize(m)
            for m in committed_test_imports(root)
            if m not in own_packages and m not in sys.stdlib_module_names
        }

    def gap(self, texts: Iterable[str], installed: Installed | None = None) -> Gap | None:
        """What the environment lacks, as the first of `texts` (a failure's message, then the lines
        of its captured output and of its subprocesses' output) that names it; None when the
        failure is the test's own. With `installed` (the test interpreter), a module it can import
        is never a gap; a failure that says in words it cannot import a module the project knows
        counts only when `installed` shows the module absent."""
        for text in texts:
            # the last first: in a chained traceback, the import that ended the test (slugify tries
            # `unidecode`, then falls back on its declared `text_unidecode`)
            for found in reversed(list(_MISSING_MODULE.finditer(text))):
                module = found.group(1)
                if installed is not None and module.split(".")[0] in installed.absent:
                    return Gap("stdlib", module)
                top = normalize(module.split(".")[0])
                known = top in self.modules and top not in self.own
                if known and (installed is None or not installed.has(module)):
                    return self._module_gap(module, texts)
            # said in words, not by Python: only with the interpreter's word that it lacks it
            for found in _CANNOT_IMPORT.finditer(text):
                top = found.group(1).split(".")[0]
                known = normalize(top) in self.modules and normalize(top) not in self.own
                if known and installed is not None and not installed.has(top):
                    return self._module_gap(top, [])
            m = _MISSING_METADATA.search(text)
            if m and normalize(m.group(1)) in self.own | self.dists:
                return Gap("metadata", m.group(1))
            m = _MISSING_FIXTURE.search(text)
            plugin = PLUGIN_FIXTURES.get(m.group(1)) if m else None
            if plugin and plugin in self.dists:
                return Gap("plugin", plugin)
            for found in _MISSING_STDLIB_ATTR.finditer(text):
                name = ".".join(found.groups())
                if name in REMOVED:
                    return Gap("python", name)
            m = _MISSING_PROGRAM.search(text)
            if m:
                return Gap("program", m.group(1))
            if opened := jdk.closed_package(text):
                return Gap("jdk", opened)
            if _MISSING_LOCALE.search(text):
                names = [m.group(1) for t in texts for m in _LOCALE_NAME.finditer(t)]
                return Gap("locale", names[0] if names else "the test sets")
        return None

    def skip_gap(self, reason: str, installed: Installed | None) -> Gap | None:
        """A skip whose reason names a module of a distribution the project declares, which the
        test interpreter lacks (`skipUnless(pytz, "pytz unavailable")`, an extra not installed):
        the environment left the test unjudged, as `importorskip` does. Only a module known absent
        counts: a skip for a platform, a Python version or a feature stays the author's."""
        if installed is None:
            return None
        # a distribution the project declares: a module its code only tries to import may be a
        # newer Python's (toolz's `annotationlib`, "new in Python 3.14": a version skip)
        declared = {m for d in self.dists for m in modules_of(d)}
        for found in _SKIP_WORD.finditer(reason):
            module = found.group(0).rstrip(".")
            top = normalize(module.split(".")[0])
            # the distribution's own module, not what follows its name: `appdirs.user_log_dir`
            # is a function of an installed appdirs (platformdirs' skip of a platform difference)
            parts = module.split(".")
            own = ".".join(parts[:2] if parts[0] in NAMESPACES else parts[:1])
            if top in declared and top not in self.own and not installed.has(own):
                return self._module_gap(own, [reason])
        return None

    def _module_gap(self, module: str, texts: Iterable[str]) -> Gap:
        """Python names the first missing part of a dotted import (`ruamel` for `from ruamel.yaml
        import YAML`): the gap names the module the code imported, as the traceback's source line
        shows it, and the declared distribution that installs it (`ruamel.yaml`; `yaml`: PyYAML)."""
        dotted = module
        pattern = re.compile(rf"\b(?:from|import)\s+({re.escape(module)}(?:\.\w+)+)")
        for text in texts:
            if found := pattern.search(text):
                dotted = found.group(1)
                break
        wanted = {normalize(dotted), normalize(module)}
        dists = sorted(d for d in self.dists if modules_of(d) & wanted)
        if not dists:
            return Gap("module", dotted, _undeclared_dist(module, dotted))
        # pip takes any spelling that normalizes alike: the import's, when it is the name
        return Gap("module", dotted, dotted if normalize(dotted) == dists[0] else dists[0])


# import names whose distribution is named otherwise (MODULE_OF's, turned round)
DIST_OF = {module: dist.replace("_", "-") for dist, module in MODULE_OF.items()}
DIST_OF.pop("google")  # protobuf, and many others
DIST_OF["pkg_resources"] = "setuptools"
# namespace packages: the distribution is named by the first two parts (`ruamel.yaml`)
NAMESPACES = {"ruamel", "zope", "jaraco", "backports", "sphinxcontrib"}


def _undeclared_dist(missing: str, dotted: str) -> str:
    """What to pip install for a module the project declares no distribution of (imported only by
    its committed tests: dpath's `nose2.tools.such`): the distribution named after the top-level
    module Python could not import, where the two differ the known one (`yaml`: pyyaml), for a
    namespace package its first two parts; none for a namespace assay cannot tell (`google.*`)."""
    top = missing.split(".")[0]
    if top in NAMESPACES:
        parts = dotted.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else ""
    if top == "google" or top.startswith("_"):
        return ""
    return DIST_OF.get(top, top)


@dataclass(frozen=True)
class Gap:
    """Something the project needs that the test interpreter lacks."""

    kind: Literal["module", "stdlib", "metadata", "plugin", "locale", "python", "program", "jdk"]
    name: str
    # the distribution that installs a missing module, when the project declares it
    dist: str = ""

    @property
    def label(self) -> str:
        """Short, for a summary line: `no module 'text_unidecode'`."""
        what = {
            "module": "module",
            "stdlib": "standard-library module",
            "metadata": "package metadata for",
            "plugin": "pytest plugin",
            "locale": "locale",
            "program": "program",
        }
        if self.kind == "python":
            return f"no {self.name} in this Python (removed in {REMOVED[self.name]})"
        if self.kind == "jdk":
            return f"{jdk.LABEL}{self.name}"
        if self.kind == "locale" and " " in self.name:  # no name in the traceback
            return f"no locale {self.name}"
        return f"no {what[self.kind]} '{self.name}'"

    @property
    def reason(self) -> str:
        """A test's reason for being `unvalidated`."""
        if self.kind == "module":
            install = f"; pip install {self.dist}" if self.dist else ""
            return (
                f"module '{self.name}' is not installed for "
                f"the test interpreter (the project uses it{install})"
            )
        if self.kind == "stdlib":
            return (
                f"module '{self.name}' of the standard library is missing from "
                "the test interpreter (built without it)"
            )
        if self.kind == "python":
            return (
                f"the code calls {self.name}, which Python {REMOVED[self.name]} removed: the "
                "test interpreter is newer than the project supports"
            )
        if self.kind == "jdk":
            return jdk.reason(self.name)
        if self.kind == "program":
            return (
                f"program '{self.name}' is not installed where the tests run (not on PATH); "
                "the test or the project starts it"
            )
        if self.kind == "locale":
            return (
                f"{self.label[3:]} is not installed on the system (locale.Error: unsupported "
                "locale setting); generate it (locale-gen, or the locales-all package)"
            )
        if self.kind == "metadata":
            return (
                f"package '{self.name}' is not installed for "
                "the test interpreter (no package metadata)"
            )
        return (
            f"pytest plugin '{self.name}' is not installed for "
            "the test interpreter (the project declares it)"
        )
