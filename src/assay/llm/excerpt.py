"""Functions of a module as a writer and the reviewer need them: where they are, how branchy they
are, and an excerpt - the target functions' source plus only the signatures and docstrings of what
they call, never whole files. Below the gates, so that gate 6 (review) and the writers read the code
the same way."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from assay.project import Project

BRANCHES = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.IfExp,
    ast.ExceptHandler,
    ast.With,
    ast.AsyncWith,
    ast.Assert,
    ast.comprehension,
    ast.match_case,
)
MAX_CALLED = 12
MAX_CLASS_LINES = 15
MAX_CONSTANT_LINES = 6


@dataclass
class FunctionInfo:
    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    line: int  # first decorator or `def`
    end_line: int
    complexity: int
    cls: ast.ClassDef | None = None
    calls: set[str] = field(default_factory=set)  # names called: `f(...)`, `x.f(...)` -> "f"

    @property
    def public(self) -> bool:
        name = self.qualname.rsplit(".", 1)[-1]
        return not name.startswith("_") or (
            name.startswith("__") and name.endswith("__") and name != "__repr__"
        )


def complexity(node: ast.AST) -> int:
    """McCabe's number, near enough: 1 + branch points (boolean operators count once per
    extra operand)."""
    n = 1
    for sub in ast.walk(node):
        if isinstance(sub, BRANCHES) and not isinstance(sub, ast.With | ast.AsyncWith):
            n += 1
        elif isinstance(sub, ast.BoolOp):
            n += len(sub.values) - 1
    return n


def index(source: str) -> dict[str, FunctionInfo]:
    """Module-level functions and methods (also of nested classes), by qualified name; {}
    when unparsable."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, FunctionInfo] = {}

    def visit(body: list[ast.stmt], prefix: str, cls: ast.ClassDef | None) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                calls = {
                    c.func.id if isinstance(c.func, ast.Name) else c.func.attr
                    for c in ast.walk(node)
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Name | ast.Attribute)
                }
                out[prefix + node.name] = FunctionInfo(
                    prefix + node.name,
                    node,
                    start,
                    node.end_lineno or start,
                    complexity(node),
                    cls,
                    calls,
                )
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", node)

    visit(tree.body, "", None)
    return out


def _lines(source_lines: list[str], start: int, end: int) -> str:
    return "\n".join(source_lines[start - 1 : end])


def signature(info: FunctionInfo, lines: list[str]) -> str:
    """The `def` line(s) and the docstring, indented as in the file, with `...` for the body."""
    node = info.node
    body_start = node.body[0].lineno
    doc = ast.get_docstring(node)
    head = _lines(lines, info.line, max(node.lineno, body_start - 1))
    if doc is not None and isinstance(node.body[0], ast.Expr):
        head += "\n" + _lines(lines, node.body[0].lineno, node.body[0].end_lineno or body_start)
    indent = " " * (node.col_offset + 4)
    return head + f"\n{indent}..."


def _class_header(cls: ast.ClassDef, lines: list[str]) -> str:
    """Decorators, `class` line, docstring and field declarations (what a test needs to
    build one)."""
    start = min([d.lineno for d in cls.decorator_list] + [cls.lineno])
    parts = [_lines(lines, start, cls.body[0].lineno - 1 if cls.body else cls.lineno)]
    shown = 0
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign | ast.Assign) or (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and stmt is cls.body[0]
        ):
            text = _lines(lines, stmt.lineno, stmt.end_lineno or stmt.lineno)
            shown += text.count("\n") + 1
            if shown > MAX_CLASS_LINES:
                break
            parts.append(text)
    return "\n".join(parts)


def _constants(tree: ast.Module, names: set[str], lines: list[str]) -> list[str]:
    """Module-level assignments and imports of names the target functions use."""
    out = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id in names for t in targets):
                out.append(_shortened(lines, stmt))
        elif isinstance(stmt, ast.Import | ast.ImportFrom) and any(
            (a.asname or a.name).split(".")[0] in names for a in stmt.names
        ):
            out.append(_lines(lines, stmt.lineno, stmt.end_lineno or stmt.lineno))
    return out


def _shortened(lines: list[str], stmt: ast.stmt) -> str:
    """An assignment as written, a long one (a table of rules) cut to its first entries and its
    closing line, so that what is shown still parses: a model copies what it sees."""
    start, end = stmt.lineno, stmt.end_lineno or stmt.lineno
    if end - start < MAX_CONSTANT_LINES:
        return _lines(lines, start, end)
    entry = lines[start] if start < len(lines) else "    "
    indent = entry[: len(entry) - len(entry.lstrip())]
    more = end - start - (MAX_CONSTANT_LINES - 1)
    return "\n".join(
        [
            _lines(lines, start, start + MAX_CONSTANT_LINES - 2),
            f"{indent}# ... {more} more lines",
            lines[end - 1],
        ]
    )


def _imported(tree: ast.Module, project: Project) -> dict[str, str]:
    """Names imported from the project's own modules -> the project-relative path that
    defines them."""
    out = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            rel = project.modules.get(stmt.module)
            if rel:
                for alias in stmt.names:
                    out[alias.asname or alias.name] = rel
    return out


class Wanted(Protocol):
    """A function asked for (`targets.FunctionTarget` is one): its name and what of it no test
    runs yet."""

    @property
    def name(self) -> str: ...

    @property
    def missing_lines(self) -> list[int]: ...

    @property
    def missing_branches(self) -> list[tuple[int, int]]: ...


class Subject(Protocol):
    """What an excerpt is of (`targets.Target` is one): a module, its import name, the functions
    asked for."""

    @property
    def module(self) -> str: ...

    @property
    def dotted(self) -> str: ...

    @property
    def functions(self) -> Sequence[Wanted]: ...


@dataclass
class Named:
    """A function asked for by name alone (the reviewer's excerpt): nothing known of
    its coverage."""

    name: str
    missing_lines: list[int] = field(default_factory=list)
    missing_branches: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Module:
    """A module and some of its functions, for an excerpt (all public ones when `functions`
    is empty)."""

    module: str
    functions: list[Named] = field(default_factory=list)
    dotted: str = ""


def _describe_missing(target: Subject, lines: list[str]) -> list[str]:
    out = []

    def text(n: int) -> str:
        return lines[n - 1].strip() if 0 < n <= len(lines) else ""

    for f in target.functions:
        for n in f.missing_lines[:12]:
            out.append(f"- {f.name}: line {n} `{text(n)}` never runs")
        for a, b in f.missing_branches[:12]:
            dest = "the function returns" if b < 0 else f"line {b}"
            out.append(f"- {f.name}: line {a} `{text(a)}` never goes on to {dest}")
    return out


def chosen_functions(funcs: dict[str, FunctionInfo], target: Subject) -> list[FunctionInfo]:
    """The target's functions (all public ones when it names none) in file order, so that the
    methods shown under a class header are that class's."""
    chosen = [funcs[f.name] for f in target.functions if f.name in funcs] or [
        i for i in funcs.values() if i.public
    ]
    return sorted(chosen, key=lambda i: i.line)


def exported_names(tree: ast.Module, chosen: list[FunctionInfo]) -> list[str]:
    """What a test imports to call `chosen`: their top-level names, and the module's classes
    they use (the exception they raise, the record they return)."""
    names = {n.id for i in chosen for n in ast.walk(i.node) if isinstance(n, ast.Name)}
    classes = {c.name for c in tree.body if isinstance(c, ast.ClassDef)}
    own = sorted({i.qualname.split(".")[0] for i in chosen})
    return own + sorted((names & classes) - set(own))


def excerpt(project: Project, target: Subject) -> str:
    """What the writer and the reviewer see of the code under test (a few dozen lines for a
    typical target)."""
    path = project.root / target.module
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # the writer sees the file as it is; gate 1 will say the rest
        return f"# {target.module} (does not parse)\n" + "\n".join(lines[:200]) + "\n"
    funcs = index(source)
    chosen = chosen_functions(funcs, target)
    names = {n.id for i in chosen for n in ast.walk(i.node) if isinstance(n, ast.Name)}
    exported = sorted({(i.qualname.split(".")[0]) for i in chosen})
    dotted = target.dotted or next(
        (m for m, r in project.modules.items() if r == target.module), ""
    )
    out = [
        f"# {target.module}"
        + (f" - import as: from {dotted} import {', '.join(exported)}" if dotted else "")
    ]
    doc = ast.get_docstring(tree)
    if doc:
        out.append(f'"""{doc.strip().splitlines()[0]}"""')
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
    for info in chosen:
        if info.cls is not None:
            names |= {
                n.id
                for d in info.cls.decorator_list
                for n in ast.walk(d)
                if isinstance(n, ast.Name)
            }
    out += _constants(tree, names, lines)
    used = [
        c for name, c in classes.items() if name in names and all(i.cls is not c for i in chosen)
    ]
    out += [_class_header(c, lines) for c in used]  # a class the code uses: its header is enough
    if used and dotted:
        out[0] = (
            f"# {target.module} - import as: from {dotted} import "
            f"{', '.join(exported + [c.name for c in used])}"
        )
    shown_classes: set[str] = set()
    for info in chosen:
        if info.cls is not None and info.cls.name not in shown_classes:
            shown_classes.add(info.cls.name)
            out.append(_class_header(info.cls, lines))
        out.append(_lines(lines, info.line, info.end_line))
    called: list[str] = []
    chosen_names = {i.qualname for i in chosen}
    for info in chosen:
        for name in sorted(info.calls):
            local = [
                q
                for q in funcs
                if q.rsplit(".", 1)[-1] == name
                and q not in chosen_names
                and (q == name or (info.cls is not None and q.startswith(info.cls.name + ".")))
            ]
            for q in local:
                sig = signature(funcs[q], lines)
                if sig not in called:
                    called.append(sig)
    for name, rel in _imported(tree, project).items():
        if name in {c for i in chosen for c in i.calls} and len(called) < MAX_CALLED:
            other = project.root / rel
            try:
                other_source = other.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            found = index(other_source).get(name)
            if found:
                called.append(f"# from {rel}\n" + signature(found, other_source.splitlines()))
    if called:
        out.append(
            "\n".join(
                [
                    "# called by the code above (signatures and docstrings only):",
                    *called[:MAX_CALLED],
                ]
            )
        )
    missing = _describe_missing(target, lines)
    if missing:
        out.append("\n".join(["# not yet run by the project's tests:", *missing]))
    return "\n\n".join(out) + "\n"


def read_index(root: Path, rel: str) -> dict[str, FunctionInfo]:
    try:
        return index((root / rel).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}
