"""What the names of a test file stand for (imports, constants, copyable helpers, parametrize rows,
locals assigned once), and the substitution that lets an expression stand alone in a new file."""

from __future__ import annotations

import ast
import builtins
import copy
import itertools
from collections import Counter

MAX_ROWS = 60  # parametrize rows expanded per test
ROWS = (ast.List, ast.Tuple, ast.Set)  # a parametrize table as written (isodate's is a set)
_BUILTINS = set(dir(builtins))


def _top_level(tree: ast.Module) -> set[int]:
    """The ids of the statements that run at the module's top level (inside `if` and `try`
    included, not in a function or class body)."""
    out: set[int] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        out.add(id(node))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo += [n for n in getattr(node, field, []) if isinstance(n, ast.AST)]
    return out


class _Resolver:
    """Names of one file: what each imported name is (an import line) and what local names
    stand for."""

    def __init__(self, tree: ast.Module, package: list[str]):
        self.imports: dict[str, str] = {}
        self.origin: dict[str, str] = {}  # local name -> dotted name of what it was imported as
        # a test's own `import toposort` (to read `toposort.__all__`) must not turn the file's
        # `from toposort import toposort` into the module for every other test: the file's
        # top-level imports are read last, so they win
        top = _top_level(tree)
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
        for imp in sorted(nodes, key=lambda n: id(n) in top):
            if isinstance(imp, ast.Import):
                for a in imp.names:
                    local = a.asname or a.name.split(".")[0]
                    self.imports[local] = f"import {a.name}" + (
                        f" as {a.asname}" if a.asname else ""
                    )
                    self.origin[local] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(imp, ast.ImportFrom):
                module = imp.module or ""
                if imp.level:
                    base = package[: len(package) - imp.level + 1]
                    module = ".".join([*base, module] if module else base)
                for a in imp.names:
                    if a.name == "*":
                        continue
                    local = a.asname or a.name
                    self.imports[local] = f"from {module} import {a.name}" + (
                        f" as {a.asname}" if a.asname else ""
                    )
                    self.origin[local] = f"{module}.{a.name}"
        # `CASES = [...]` and `CASES: list[...] = [...]`
        self.constants: dict[str, ast.AST] = {}
        for n in tree.body:
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                target, value = n.targets[0], n.value
            elif isinstance(n, ast.AnnAssign) and n.value is not None:
                target, value = n.target, n.value
            else:
                continue
            if isinstance(target, ast.Name):
                self.constants[target.id] = value
        # name -> (source, import lines it needs)
        self.helpers: dict[str, tuple[str, set[str]]] = {}
        for node in tree.body:
            if (
                isinstance(node, ast.FunctionDef)
                and not node.name.startswith("test")
                and not node.decorator_list
            ):
                found = self._helper(node)
                if found is not None:
                    self.helpers[node.name] = found

    def _helper(self, node: ast.FunctionDef) -> tuple[str, set[str]] | None:
        """A module-level function of a test file that can be copied into a new file: it uses only
        its own names, builtins and imported names."""
        own = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        own |= {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        own |= _bound_inside(node)
        lines = set()
        for n in ast.walk(node):
            if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
                return None
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own:
                if n.id in self.imports:
                    lines.add(self.imports[n.id])
                elif n.id not in _BUILTINS:
                    return None
        source = ast.unparse(node)
        return (source, lines) if len(source) <= 600 else None


def _bound_inside(expr: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Lambda):
            a = node.args
            names.update(x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs])
            names.update(x.arg for x in (a.vararg, a.kwarg) if x)
        elif isinstance(node, ast.comprehension):
            names.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    return names


class _Portable(ast.NodeTransformer):
    """Substitutes bound names; records the import lines needed; fails on anything else."""

    def __init__(self, env: dict[str, ast.AST], resolver: _Resolver, depth: int = 0):
        self.env, self.resolver, self.depth = env, resolver, depth
        self.lines: set[str] = set()
        self.helpers: set[str] = set()  # sources of the test file's functions the expression uses
        self.local: set[str] = set()
        self.ok = True

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.local:
            return node
        if node.id in self.env and self.depth < 3:
            inner = _Portable(self.env, self.resolver, self.depth + 1)
            value = inner.run(copy.deepcopy(self.env[node.id]))
            self.ok &= value is not None
            self.lines |= inner.lines
            self.helpers |= inner.helpers
            return value if value is not None else node
        if node.id in self.resolver.imports:
            self.lines.add(self.resolver.imports[node.id])
        elif node.id in self.resolver.helpers:
            source, lines = self.resolver.helpers[node.id]
            self.helpers.add(source)
            self.lines |= lines
        elif node.id not in _BUILTINS or node.id in (
            "open",
            "input",
            "exec",
            "eval",
            "__import__",
            "exit",
            "quit",
        ):
            self.ok = False
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Starred)):
            self.ok = False
            return node
        return super().generic_visit(node)

    def run(self, expr: ast.AST) -> ast.AST | None:
        self.local = _bound_inside(expr)
        out = self.visit(expr)
        return out if self.ok else None


def _rows(
    test: ast.FunctionDef | ast.AsyncFunctionDef, resolver: _Resolver
) -> list[dict[str, ast.AST]]:
    """One name -> value environment per parametrize case (the cross product of
    stacked decorators)."""
    tables: list[list[dict[str, ast.AST]]] = []
    for dec in test.decorator_list:
        if not (
            isinstance(dec, ast.Call)
            and isinstance(dec.func, ast.Attribute)
            and dec.func.attr == "parametrize"
            and len(dec.args) >= 2
        ):
            continue
        names_node, values = dec.args[0], dec.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif isinstance(names_node, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) for e in names_node.elts
        ):
            names = [str(getattr(e, "value", "")) for e in names_node.elts]
        else:
            return []
        if isinstance(values, ast.Name) and isinstance(
            named := resolver.constants.get(values.id), ROWS
        ):
            values = named
        if not isinstance(values, ROWS):
            return []
        table: list[dict[str, ast.AST]] = []
        for row in values.elts:
            if (
                isinstance(row, ast.Call)
                and isinstance(row.func, ast.Attribute)
                and row.func.attr == "param"
            ):
                row = (
                    ast.Tuple(row.args, ast.Load())
                    if len(names) > 1
                    else (row.args[0] if row.args else row)
                )
            items = row.elts if len(names) > 1 and isinstance(row, (ast.Tuple, ast.List)) else [row]
            if len(items) == len(names):
                table.append({n: v for n, v in zip(names, items, strict=True)})
        tables.append(table)
    if not tables:
        return [{}]
    out = []
    for combo in itertools.islice(itertools.product(*tables), MAX_ROWS):
        merged: dict[str, ast.AST] = {}
        for part in combo:
            merged.update(part)
        out.append(merged)
    return out


def _locals(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names assigned exactly once in a function body (to one expression)."""
    counts: Counter[str] = Counter()
    values: dict[str, ast.AST] = {}
    for node in body:
        for sub in ast.walk(node):
            if isinstance(
                sub, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr)
            ):
                targets = (
                    sub.targets if isinstance(sub, ast.Assign) else [getattr(sub, "target", None)]
                )
                for t in targets:
                    for n in ast.walk(t) if t is not None else []:
                        if isinstance(n, ast.Name):
                            counts[n.id] += 1
                if (
                    isinstance(sub, (ast.Assign, ast.AnnAssign))
                    and len(targets) == 1
                    and isinstance(targets[0], ast.Name)
                    and sub.value is not None
                ):
                    values[targets[0].id] = sub.value
    return {k: v for k, v in values.items() if counts[k] == 1}
