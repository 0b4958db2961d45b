"""What a writer and the reviewer (gate 6) are told besides the code: the project's existing tests
of the module, and the rules the gates enforce. Both are short by construction: token economy
starts here."""

from __future__ import annotations

import ast
from pathlib import Path

from assay.config import Settings
from assay.llm.excerpt import Module, Named, excerpt, read_index
from assay.llm.prompts import Prompts
from assay.project import Project, discover

MAX_TEST_NAMES = 30
MAX_STYLE_LINES = 15
MAX_HELPERS = 4


def tests_of(project: Project, module: str, exclude: str | None = None) -> list[Path]:
    """The project's test files that import `module`."""
    try:
        files = discover([project.root], project.root)
    # no tests at all is a normal state for a project asking for tests
    except Exception:  # noqa: BLE001
        return []
    out = []
    for path in files:
        rel = project.rel(path)
        if rel == exclude or path.suffix != ".py":
            continue
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if module in project.targets_of(source, rel):
            out.append(path)
    return out


def existing_tests(
    project: Project,
    module: str,
    exclude: str | None = None,
    max_files: int = 3,
    calls: frozenset[str] = frozenset(),
) -> str:
    """Per test file of the module: its imports (whole statements), its fixtures, the names of its
    tests; and from the first file (the one named after the module, when there is one) one test as
    a sample of the style - one that calls a name of `calls` (the target's functions) when there is
    one - with the file's helpers and fixtures the sample uses. One sample only: a small model
    copies every style it is shown, the odd files' too. Empty when the module has no tests."""
    parts: list[str] = []
    stem = Path(module).stem if Path(module).stem != "__init__" else Path(module).parent.name
    files = sorted(tests_of(project, module, exclude), key=lambda p: stem not in p.name)
    for path in files[:max_files]:
        source = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        imports = [_text(lines, n) for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        fixtures = [
            f.name for f in funcs if any("fixture" in ast.unparse(d) for d in f.decorator_list)
        ]
        tests = [f for f in funcs if f.name.startswith("test")]
        names = [t.name for t in tests]
        more = f" (+{len(names) - MAX_TEST_NAMES} more)" if len(names) > MAX_TEST_NAMES else ""
        block = [f"# {project.rel(path)}", *imports]
        if fixtures:
            block.append(f"# fixtures: {', '.join(fixtures)}")
        block.append(f"# tests: {', '.join(names[:MAX_TEST_NAMES])}{more}")
        if tests and not parts:
            sample = next((t for t in tests if _names(t) & calls), tests[0])
            helpers = _helpers(tree, sample)
            if helpers:
                block += ["# helpers the sample uses:", *(_text(lines, h) for h in helpers)]
            text = _text(lines, sample).splitlines()
            block += ["# a test of this code, for style:", *text[:MAX_STYLE_LINES]]
        parts.append("\n".join(block))
    return "\n\n".join(parts)


def _text(lines: list[str], node: ast.stmt) -> str:
    """A statement's whole source, decorators included (a multi-line import is one statement)."""
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    return "\n".join(lines[start - 1 : node.end_lineno or node.lineno])


def _names(node: ast.AST) -> set[str]:
    """The names a test uses: called or read, and its parameters (fixtures)."""
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    used |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        used |= {a.arg for a in node.args.args}
    return used


def _helpers(tree: ast.Module, sample: ast.stmt) -> list[ast.stmt]:
    """The test file's own top-level definitions (helpers, fixtures, constants) the sample uses,
    at most MAX_HELPERS, so a model copying the style does not call what it was never shown."""
    used = _names(sample)
    found: list[ast.stmt] = []
    for node in tree.body:
        if node is sample:
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined = {node.name}
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined = {t.id for t in targets if isinstance(t, ast.Name)}
        else:
            continue
        if defined & used and (node.end_lineno or 0) - node.lineno < MAX_STYLE_LINES:
            found.append(node)
    return found[:MAX_HELPERS]


def rules(prompts: Prompts, settings: Settings) -> str:
    return prompts.render("rules", max_asserts=settings.smells.max_unexplained_asserts)


def review_excerpt(project: Project, targets: list[str], source: str) -> str:
    """For `verify --review`: the functions of the targets that the test file calls (all public ones
    when it calls none by name)."""
    try:
        called = {
            n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
        }
    except SyntaxError:
        called = set()
    parts = []
    for rel in targets[:3]:
        idx = read_index(project.root, rel)
        names = [q for q in idx if q.rsplit(".", 1)[-1] in called or q.split(".")[0] in called]
        try:
            parts.append(excerpt(project, Module(rel, [Named(q) for q in names[:8]])))
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue
    return "\n".join(parts)
