"""Inputs mined from the project's own tests and doctests (`ast` only: nothing here runs).

A call of a target function in a test becomes an input when every argument can stand alone in a new
file: literals, names the test imported (their import line comes along), builtins, lambdas and
comprehensions over those, and names bound to such expressions - a `parametrize` row (one input per
row), a local assigned once, a module-level constant. A method call on a local built by the class's
constructor gives the constructor call as the receiver. Doctest examples are read the same way, with
the module's own names importable. Literals of the tests and the code (numbers with their
neighbours, short strings) feed the typed value generators.
"""

from __future__ import annotations

import ast
import builtins
import copy
import doctest
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.execution.workspace import SKIP_DIRS
from assay.project import is_test_file
from assay.writers.offline.regex import samples

MAX_ARG = 200  # characters of one argument's source
MAX_ROWS = 60  # parametrize rows expanded per test
MAX_PER_FUNCTION = 250
_BUILTINS = set(dir(builtins))


@dataclass
class Mined:
    """What the tests and doctests say about the functions of one module."""

    # function name -> inputs (see OfflineFunction)
    inputs: dict[str, list[dict]] = field(default_factory=dict)
    # class name -> constructor call sources
    receivers: dict[str, list[str]] = field(default_factory=dict)
    # "int" | "float" | "str" -> values, most used first
    literals: dict[str, list] = field(default_factory=dict)
    files: int = 0


def project_test_files(root: Path) -> list[Path]:
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(p in SKIP_DIRS or p.endswith(".egg-info") for p in rel.parts[:-1]):
            continue
        if is_test_file(path.name):
            out.append(path)
    return out


class _Resolver:
    """Names of one file: what each imported name is (an import line) and what local names
    stand for."""

    def __init__(self, tree: ast.Module, package: list[str]):
        self.imports: dict[str, str] = {}
        self.origin: dict[str, str] = {}  # local name -> dotted name of what it was imported as
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    local = a.asname or a.name.split(".")[0]
                    self.imports[local] = f"import {a.name}" + (
                        f" as {a.asname}" if a.asname else ""
                    )
                    self.origin[local] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    module = ".".join([*base, module] if module else base)
                for a in node.names:
                    if a.name == "*":
                        continue
                    local = a.asname or a.name
                    self.imports[local] = f"from {module} import {a.name}" + (
                        f" as {a.asname}" if a.asname else ""
                    )
                    self.origin[local] = f"{module}.{a.name}"
        self.constants = {
            t.id: n.value
            for n in tree.body
            if isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(t := n.targets[0], ast.Name)
        }
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
            named := resolver.constants.get(values.id), (ast.List, ast.Tuple)
        ):
            values = named
        if not isinstance(values, (ast.List, ast.Tuple)):
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


class _Miner:
    """Collects inputs for the functions of one module from one parsed file."""

    def __init__(self, dotted: str, functions: dict[str, str], mined: Mined):
        self.dotted = dotted
        self.functions = functions  # name -> kind
        self.classes = {n.split(".")[0] for n, k in functions.items() if "." in n}
        self.mined = mined

    def _target(self, func: ast.AST, resolver: _Resolver) -> str | None:
        """The target function a call's callee names (`f`, `mod.f`, `Cls.static`), or None."""
        text = ast.unparse(func)
        head, _, rest = text.partition(".")
        origin = resolver.origin.get(head)
        if origin is None:
            return None
        full = f"{origin}.{rest}" if rest else origin
        if not full.startswith(self.dotted + "."):
            return None
        name = full[len(self.dotted) + 1 :]
        return name if self.functions.get(name) in ("function", "static") else None

    def _class(self, func: ast.AST, resolver: _Resolver) -> str | None:
        origin = resolver.origin.get(ast.unparse(func).split(".")[0])
        text = ast.unparse(func)
        head, _, rest = text.partition(".")
        full = f"{resolver.origin.get(head, '')}.{rest}" if rest else (origin or "")
        name = full[len(self.dotted) + 1 :] if full.startswith(self.dotted + ".") else None
        return name if name in self.classes else None

    def _portable(
        self, expr: ast.AST, env: dict[str, ast.AST], resolver: _Resolver
    ) -> tuple[str, set[str], set[str]] | None:
        """(source, import lines, helper sources) of an expression that can stand alone, or None."""
        p = _Portable(env, resolver)
        out = p.run(copy.deepcopy(expr))
        if out is None:
            return None
        text = ast.unparse(out)
        return (text, p.lines, p.helpers) if len(text) <= MAX_ARG else None

    def _input(
        self,
        call: ast.Call,
        env: dict[str, ast.AST],
        resolver: _Resolver,
        origin: str,
        receiver: str | None = None,
        receiver_lines: frozenset[str] | set[str] = frozenset(),
    ) -> dict | None:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return None
        args, kwargs, lines, helpers = [], {}, set(receiver_lines), set()
        for a in call.args:
            got = self._portable(a, env, resolver)
            if got is None:
                return None
            args.append(got[0])
            lines |= got[1]
            helpers |= got[2]
        for k in call.keywords:
            got = self._portable(k.value, env, resolver)
            if got is None:
                return None
            kwargs[k.arg] = got[0]
            lines |= got[1]
            helpers |= got[2]
        return {
            "args": args,
            "kwargs": kwargs,
            "receiver": receiver,
            "origin": origin,
            "imports": sorted(lines),
            "helpers": sorted(helpers),
        }

    def _add(self, name: str, inp: dict | None) -> None:
        if inp is None:
            return
        bucket = self.mined.inputs.setdefault(name, [])
        if inp not in bucket and len(bucket) < MAX_PER_FUNCTION:
            bucket.append(inp)

    def scope(
        self,
        body: list[ast.stmt],
        env: dict[str, ast.AST],
        resolver: _Resolver,
        origin: str,
        shared: Sequence[ast.stmt] = (),
    ) -> None:
        """Every call of a target in `body`, under `env`; `shared`: module-level statements (objects
        built there count as receivers too)."""
        # local -> (class, constructor source, lines)
        built: dict[str, tuple[str, str, set[str]]] = {}
        for node in [*shared, *body]:
            for sub in ast.walk(node) if node in body else [node]:
                if (
                    isinstance(sub, ast.Assign)
                    and len(sub.targets) == 1
                    and isinstance(sub.targets[0], ast.Name)
                    and isinstance(sub.value, ast.Call)
                    and (cls := self._class(sub.value.func, resolver))
                ):
                    got = self._portable(sub.value, env, resolver)
                    if got is not None and not got[2]:
                        built[sub.targets[0].id] = (cls, got[0], got[1])
                        rec = self.mined.receivers.setdefault(cls, [])
                        if got[0] not in rec:
                            rec.append(got[0])
        for node in body:
            for sub in ast.walk(node):
                if not isinstance(sub, ast.Call):
                    continue
                name = self._target(sub.func, resolver)
                if name is not None:
                    self._add(name, self._input(sub, env, resolver, origin))
                elif (
                    isinstance(sub.func, ast.Attribute)
                    and isinstance(sub.func.value, ast.Name)
                    and sub.func.value.id in built
                ):
                    cls, src, lines = built[sub.func.value.id]
                    method = f"{cls}.{sub.func.attr}"
                    if self.functions.get(method) == "method":
                        self._add(method, self._input(sub, env, resolver, origin, src, lines))

    def file(self, tree: ast.Module, resolver: _Resolver, origin: str) -> None:
        module_env = {k: v for k, v in resolver.constants.items()}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local = _locals(node.body)
                for row in _rows(node, resolver):
                    self.scope(
                        node.body, {**module_env, **local, **row}, resolver, origin, tree.body
                    )


def _literals(trees: Sequence[ast.AST], counts: dict[str, Counter]) -> None:
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant):
                v = node.value
                if isinstance(v, bool) or v is None:
                    continue
                if isinstance(v, int) and abs(v) < 10**9:
                    counts["int"][v] += 1
                elif isinstance(v, float):
                    counts["float"][v] += 1
                elif isinstance(v, str) and 0 < len(v) <= 40 and "\n" not in v:
                    counts["str"][v] += 1


def mine(root: Path, dotted: str, module_text: str, functions: dict[str, str]) -> Mined:
    """Inputs for `functions` (name -> kind) of module `dotted` from every test file under `root`
    and the module's doctests; literals from both."""
    mined = Mined()
    miner = _Miner(dotted, functions, mined)
    counts: dict[str, Counter] = {"int": Counter(), "float": Counter(), "str": Counter()}
    trees = []
    for path in project_test_files(root):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        rel = path.relative_to(root)
        resolver = _Resolver(tree, list(rel.with_suffix("").parts[:-1]))
        if any(o == dotted or o.startswith(dotted + ".") for o in resolver.origin.values()):
            miner.file(tree, resolver, "tests")
            trees.append(tree)
            mined.files += 1
    try:
        module_tree = ast.parse(module_text)
    except SyntaxError:
        module_tree = None
    if module_tree is not None:
        _doctests(module_tree, dotted, miner)
        trees.append(module_tree)
    _literals(trees, counts)
    mined.literals = {k: [v for v, _ in c.most_common(16)] for k, c in counts.items()}
    if module_tree is not None:
        mined.literals["regex"] = samples(module_tree)
    return mined


def _doctests(tree: ast.Module, dotted: str, miner: _Miner) -> None:
    """Calls in the module's doctests: the module's own names are importable from it."""
    own = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    own += [
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    ]
    parser = doctest.DocTestParser()
    for node in [tree, *ast.walk(tree)]:
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node, clean=True)
        if not doc or ">>>" not in doc:
            continue
        lines = [f"from {dotted} import {n}" for n in own]
        statements: list[ast.stmt] = []
        for example in parser.get_examples(doc):
            try:
                statements += ast.parse(example.source).body
            except SyntaxError:
                continue
        header = (
            "\n".join(lines)
            + "\n"
            + "\n".join(
                ast.unparse(s) for s in statements if isinstance(s, (ast.Import, ast.ImportFrom))
            )
        )
        try:
            resolver = _Resolver(ast.parse(header), dotted.split(".")[:-1])
        except SyntaxError:
            continue
        miner.scope(statements, _locals(statements), resolver, "doctest")
