"""What gate 4 holds a file to that imports no module of the project: the modules it reaches.

A file may get the project's objects through conftest fixtures, or run the project's CLI in a
subprocess: no import in the file, yet it tests the project. Or it may test a copy of a function
pasted into it, and then it proves nothing about the project. Static imports cannot tell these
apart; the run can. Every module of the project becomes a target of one scoped mutation run (the
scope is the functions the tests execute in their call phase, so only those modules' mutants run),
and the modules the run reached become the file's targets. A file that reaches none and starts no
process is rejected; one that starts processes may run the project there, out of gate 4's sight.
"""

from __future__ import annotations

import ast
import contextlib
import os
from collections.abc import Collection
from pathlib import Path

from assay.gates.stability import imported
from assay.mutation.model import MutationResult
from assay.project import Project

# modules whose use starts (or may start) another process that can run the project
SPAWNING_MODULES = {"subprocess", "multiprocessing", "pexpect", "sh", "plumbum", "delegator"}
# calls that start one: os.system, os.execv, os.spawnl, asyncio.create_subprocess_exec...
SPAWNING_ATTRIBUTES = ("system", "popen", "spawn", "exec", "posix_spawn", "create_subprocess_")
SPAWNING_RECEIVERS = {"os", "asyncio"}
# runners of a CLI or of pytest, in this process or another
SPAWNING_NAMES = {"CliRunner", "script_runner", "pytester", "testdir"}
# another interpreter in this process: its modules are its own, out of gate 4's sight as a process
SUBINTERPRETERS = {"_xxsubinterpreters", "_interpreters", "interpreters", "concurrent.interpreters"}
SUBINTERPRETER_CALLS = {"run_in_subinterp"}


def project_modules(project: Project) -> list[str]:
    """Every module of the project that parses (a broken one is nobody's target) and is its
    own (a vendored copy of another project is not: `project.vendored`)."""
    found = []
    for rel in dict.fromkeys(project.modules.values()):
        if rel in project.vendored:
            continue
        with contextlib.suppress(OSError, UnicodeDecodeError, SyntaxError, ValueError):
            ast.parse((project.root / rel).read_text(encoding="utf-8"))
            found.append(rel)
    return sorted(found)


def vendored_note(project: Project) -> str | None:
    """Where a run held to the modules its tests reach left vendored code out, and why."""
    by_why: dict[str, list[str]] = {}
    for rel, why in sorted(project.vendored.items()):
        by_why.setdefault(why, []).append(rel)
    if not by_why:
        return None
    said = "; ".join(f"{_common_dir(rels)} ({why})" for why, rels in by_why.items())
    return f"Not held to code the project carries of another project (vendored): {said}"


def _common_dir(rels: list[str]) -> str:
    if len(rels) == 1:
        return rels[0]
    return os.path.commonpath(rels) + "/"


def reached(run: MutationResult) -> list[str]:
    """The modules some test of the run executed a function of, in its call phase."""
    return sorted(rel for rel, names in (run.scope or {}).items() if names)


def process_start(source: str) -> str | None:
    """How `source` starts another process (its first such use), or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in imported(node):
                if name.split(".")[0] in SPAWNING_MODULES:
                    return f"imports {name}"
                if name in SUBINTERPRETERS:
                    return f"runs code in another interpreter ({name})"
        elif isinstance(node, ast.Constant) and node.value in SUBINTERPRETERS:
            # `pytest.importorskip("_xxsubinterpreters")`, `importlib.import_module(...)`
            return f"runs code in another interpreter ({node.value})"
        elif isinstance(node, ast.Attribute) and node.attr in SUBINTERPRETER_CALLS:
            return f"runs code in another interpreter ({ast.unparse(node)})"
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in SPAWNING_RECEIVERS
            and node.attr.startswith(SPAWNING_ATTRIBUTES)
        ):
            return f"calls {node.value.id}.{node.attr}"
        elif isinstance(node, ast.Name) and node.id in SPAWNING_NAMES:
            return f"uses {node.id}"
        elif isinstance(node, ast.arg) and node.arg in SPAWNING_NAMES:
            return f"uses {node.arg}"
    return None


def starts_process(project: Project, rel: str, source: str) -> str | None:
    """How the test file, or a conftest.py it runs under, starts another process, or None."""
    how = process_start(source)
    if how:
        return how
    for folder in Path(rel).parents:
        conftest = project.root / folder / "conftest.py"
        with contextlib.suppress(OSError, UnicodeDecodeError):
            how = process_start(conftest.read_text(encoding="utf-8"))
            if how:
                return f"{how} ({(folder / 'conftest.py').as_posix()})"
    return None


def fixture_fed(project: Project, rel: str, source: str) -> str | None:
    """The first conftest fixture that hands the file's tests an object of the project, or None.

    Such a test may check what the project declares rather than runs (semver's `version.major = 9`
    must raise: a read-only property, no function of the project executes), so a run that reaches
    no function does not make it a test of a copy."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    wanted = {
        a.arg
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for a in node.args.args
    }
    return next(
        (how for name, how in _feeding(project, rel).items() if name in wanted),
        None,
    )


def fed_tests(project: Project, rel: str, source: str) -> dict[str, str]:
    """Test function (`test_x`, `Class::test_x`) -> the conftest fixture that hands it an object
    of the project (`takes the fixture 'db' of tests/conftest.py`), for the tests that take one.

    Such a test runs the project's code where the file's imports do not say (tinydb's
    test_tables.py imports `where` and tests the tables its `db` fixture makes)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    feeding = _feeding(project, rel)
    if not feeding:
        return {}
    found: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = [a.arg for a in node.args.args]
        elif isinstance(node, ast.ClassDef):
            for method in node.body:
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}::{method.name}"] = [a.arg for a in method.args.args]
    out: dict[str, str] = {}
    for name, args in found.items():
        if name.rpartition("::")[2].startswith("test"):
            how = next((feeding[a] for a in args if a in feeding), None)
            if how:
                out[name] = how
    return out


def _feeding(project: Project, rel: str) -> dict[str, str]:
    """Fixture name -> how a test takes it, for the fixtures of the conftests above `rel` that
    import the project (the nearest conftest first)."""
    out: dict[str, str] = {}
    for folder in Path(rel).parents:
        conftest_rel = (folder / "conftest.py").as_posix()
        try:
            text = (project.root / conftest_rel).read_text(encoding="utf-8")
            conftest = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        if not project.targets_of(text, conftest_rel):
            continue
        for node in conftest.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                "fixture" in ast.unparse(d) for d in node.decorator_list
            ):
                out.setdefault(node.name, f"takes the fixture {node.name!r} of {conftest_rel}")
    return out


def through_package(project: Project, source: str, bare: Collection[str]) -> str | None:
    """A name the file reads of a project module it imports whole (`import rfc3986`) that defines
    no function (`bare`: a package's `__init__` passing names on) and takes that name from another
    module, such as `rfc3986.iri_reference`: its tests reach the project through it, so they are
    held to the modules they reach, as a file whose imports define no function is, whatever else
    it imports (an exception class for `pytest.raises` would otherwise be all it is held to).
    None: no such read (`rfc3986.__version__` is the package's own)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    modules = project.modules
    whole: dict[str, str] = {}  # the dotted name the file reads it by -> the module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules and modules[alias.name] in bare:
                    whole[alias.asname or alias.name] = alias.name
    if not whole:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node.value)
            if dotted in whole and project.passed_on(whole[dotted], node.attr):
                return f"{dotted}.{node.attr}"
    return None


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` of a chain of names and attributes; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None
