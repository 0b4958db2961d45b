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
import copy
import doctest
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.execution.workspace import SKIP_DIRS
from assay.project import is_test_file
from assay.writers.offline.bindings import _locals, _Portable, _Resolver, _rows
from assay.writers.offline.exports import Exports, read_exports
from assay.writers.offline.regex import samples

MAX_ARG = 200  # characters of one argument's source
# mined inputs of a function: more are not read (a large table-driven test file gave one function
# 250, whose reading and building took a busy machine's whole probe share)
MAX_PER_FUNCTION = 60


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


def project_test_files(root: Path, unittest_names: bool = False) -> list[Path]:
    """The project's test files as pytest names them (`test_*.py`, `*_test.py`); with
    `unittest_names`, also as unittest's discovery does (`test*.py`: titlecase's and roman's
    suites are a `tests.py` in the package, which pytest leaves alone - their hundreds of calls
    were never read for inputs)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(p in SKIP_DIRS or p.endswith(".egg-info") for p in rel.parts[:-1]):
            continue
        if is_test_file(path.name) or (unittest_names and path.name.startswith("test")):
            out.append(path)
    return out


class _Miner:
    """Collects inputs for the functions of one module from one parsed file."""

    def __init__(
        self, dotted: str, functions: dict[str, str], mined: Mined, exports: Exports | None = None
    ):
        self.dotted = dotted
        self.exports = exports or Exports()
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
        full = self.exports.canon(f"{origin}.{rest}" if rest else origin)
        if not full.startswith(self.dotted + "."):
            return None
        name = full[len(self.dotted) + 1 :]
        return name if self.functions.get(name) in ("function", "static") else None

    def _class(self, func: ast.AST, resolver: _Resolver) -> str | None:
        """The target class a call builds: its constructor, or one of its static or class
        methods (`Version.parse(...)`, an alternative constructor)."""
        text = ast.unparse(func)
        head, _, rest = text.partition(".")
        origin = resolver.origin.get(head)
        if origin is None:
            return None
        full = self.exports.canon(f"{origin}.{rest}" if rest else origin)
        name = full[len(self.dotted) + 1 :] if full.startswith(self.dotted + ".") else None
        if name in self.classes:
            return name
        if name and self.functions.get(name) == "static":
            return name.split(".")[0]
        return None

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

    def _full(self, name: str) -> bool:
        return len(self.mined.inputs.get(name, ())) >= MAX_PER_FUNCTION

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
                sub = _raised_call(sub)
                name = self._target(sub.func, resolver)
                if name is not None:
                    if not self._full(name):
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
                elif (
                    isinstance(sub.func, ast.Attribute)
                    and isinstance(sub.func.value, ast.Call)
                    and (cls := self._class(sub.func.value.func, resolver))
                    and self.functions.get(f"{cls}.{sub.func.attr}") == "method"
                    and (got := self._portable(sub.func.value, env, resolver)) is not None
                    and not got[2]
                ):  # `Version.parse("1.2.3").bump_major()`: the receiver is built inline
                    inp = self._input(sub, env, resolver, origin, got[0], got[1])
                    self._add(f"{cls}.{sub.func.attr}", inp)

    def file(self, tree: ast.Module, resolver: _Resolver, origin: str) -> None:
        module_env = {k: v for k, v in resolver.constants.items()}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local = _locals(node.body)
                for row in _rows(node, resolver):
                    self.scope(
                        node.body, {**module_env, **local, **row}, resolver, origin, tree.body
                    )


RAISES_CALLING = {"assertRaises": 1, "assertRaisesRegex": 2, "assertWarns": 1, "raises": 1}


def _raised_call(call: ast.Call) -> ast.Call:
    """`self.assertRaises(E, f, a, b)` and `pytest.raises(E, f, a)` as the call they make,
    `f(a, b)` (roman's error cases are written so: `assertRaises(NotIntegerError, toRoman, '1')`);
    any other call as it is."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    skip = RAISES_CALLING.get(name)
    if skip is None or len(call.args) <= skip or any(isinstance(a, ast.Starred) for a in call.args):
        return call
    keywords = [k for k in call.keywords if k.arg not in ("msg", "match")]
    made = ast.Call(func=call.args[skip], args=call.args[skip + 1 :], keywords=keywords)
    return ast.copy_location(made, call)


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


def mine(
    root: Path,
    dotted: str,
    module_text: str,
    functions: dict[str, str],
    modules: dict[str, str] | None = None,
    until: float | None = None,
) -> Mined:
    """Inputs for `functions` (name -> kind) of module `dotted` from the test files under `root`
    and the module's doctests; literals from both. `modules` (the project's, dotted name ->
    path): their re-exports are followed to `dotted`. The test files named after the module are
    read first; reading stops when every function has `MAX_PER_FUNCTION` inputs or at `until` (a
    large test suite took a busy machine's whole budget before the probe started)."""
    mined = Mined()
    exports = read_exports(root, modules or {})
    miner = _Miner(dotted, functions, mined, exports)
    counts: dict[str, Counter] = {"int": Counter(), "float": Counter(), "str": Counter()}
    trees = []
    stem = dotted.split(".")[-1] if dotted.split(".")[-1] != "__init__" else dotted.split(".")[0]
    files = sorted(
        project_test_files(root, unittest_names=True),
        key=lambda p: stem.lower() not in p.stem.lower(),
    )
    for path in files:
        if (until is not None and time.monotonic() > until) or all(
            len(mined.inputs.get(name, ())) >= MAX_PER_FUNCTION for name in functions
        ):
            break
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        rel = path.relative_to(root)
        resolver = _Resolver(tree, list(rel.with_suffix("").parts[:-1]))
        if any(
            (c := exports.canon(o)) == dotted
            or c.startswith(dotted + ".")
            or dotted.startswith(o + ".")
            for o in resolver.origin.values()
        ):
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
