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
    project: Project, module: str, exclude: str | None = None, max_files: int = 3
) -> str:
    """Per test file of the module: its imports, its fixtures, the names of its tests, and the first
    test as a sample of the style. Empty when the module has no tests."""
    parts = []
    for path in tests_of(project, module, exclude)[:max_files]:
        source = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        imports = [
            lines[n.lineno - 1] for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)
        ]
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
        if tests:
            first = tests[0]
            start = min([d.lineno for d in first.decorator_list] + [first.lineno])
            sample = lines[start - 1 : min(first.end_lineno or start, start + MAX_STYLE_LINES - 1)]
            block += ["# first test, for style:", *sample]
        parts.append("\n".join(block))
    return "\n\n".join(parts)


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
