"""The target modules of a test file as the low-value analysis sees them: their top-level functions
and classes, and which of those are trivial (getters, field round-trips, literal mappings). Read
from the source, never run."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

from assay.smells.names import dotted, last_name

PLAIN_BASES = {
    "object",
    "Enum",
    "IntEnum",
    "StrEnum",
    "Flag",
    "IntFlag",
    "NamedTuple",
    "TypedDict",
    "str",
    "int",
    "float",
    "Exception",
    "ValueError",
    "TypeError",
    "KeyError",
}
CONVERSIONS = {
    "str",
    "repr",
    "int",
    "float",
    "bool",
    "tuple",
    "list",
    "dict",
    "frozenset",
    "set",
    "type",
}

Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class TargetIndex:
    """Top-level functions and classes of the target modules."""

    # dotted names (every suffix: src.pkg.m, pkg.m, m)
    modules: set[str] = field(default_factory=set)
    functions: dict[str, Def] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)

    @classmethod
    def build(cls, targets: dict[str, str]) -> TargetIndex:
        """Test files of one module share their targets: each index is built once."""
        return _build(tuple(sorted(targets.items())))

    @classmethod
    def _from(cls, targets: tuple[tuple[str, str], ...]) -> TargetIndex:
        index = cls()
        for rel, source in targets:
            parts = list(PurePosixPath(rel).with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts.pop()
            index.modules.update(".".join(parts[i:]) for i in range(len(parts)))
            functions, classes = _defs(source)
            index.functions.update(functions)
            index.classes.update(classes)
        return index

    def _module_like(self, prefix: str) -> bool:
        prefix = prefix.lstrip(".")
        return (
            not prefix
            or prefix in self.modules
            or any(m.startswith(prefix + ".") for m in self.modules)
        )

    def owns(self, name: str) -> bool:
        """`name` (a dotted path, as `mock.patch` takes it) is a target module or something defined
        in one."""
        owner = name.rpartition(".")[0].strip(".")
        return self.resolve(name) is not None or (bool(owner) and self._module_like(owner))

    def resolve(self, name: str) -> tuple[Def | ast.ClassDef, list[str]] | None:
        """`pkg.mod.Color.RED` -> (ClassDef Color, ["RED"]) when Color is defined in a
        target module."""
        parts = name.lstrip(".").split(".")
        for i, part in enumerate(parts):
            found = self.functions.get(part) or self.classes.get(part)
            if found is not None and self._module_like(".".join(parts[:i])):
                return found, parts[i + 1 :]
        return None

    def member(
        self, cls: ast.ClassDef, name: str, seen: frozenset[str] = frozenset()
    ) -> ast.AST | None:
        """A method or class-level assignment of `cls` or its target bases."""
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                return item
            if isinstance(item, (ast.Assign, ast.AnnAssign)):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    return item
        for b in cls.bases:
            base = self.classes.get(last_name(dotted(b, {})))
            if base is not None and base.name not in seen:
                found = self.member(base, name, seen | {cls.name})
                if found is not None:
                    return found
        return None

    def plain_class(self, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """Building an instance runs no logic: only field assignments (or none: dataclass,
        Enum ...)."""
        for name in ("__init__", "__post_init__", "__new__"):
            m = self.member(cls, name)
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and not trivial(m):
                return False
        for b in cls.bases:
            base = last_name(dotted(b, {}))
            if base in self.classes and base not in seen:
                if not self.plain_class(self.classes[base], seen | {cls.name}):
                    return False
            elif base not in PLAIN_BASES:
                return False
        return True


@lru_cache(maxsize=256)
def _build(targets: tuple[tuple[str, str], ...]) -> TargetIndex:
    return TargetIndex._from(targets)


@lru_cache(maxsize=512)
def _defs(source: str) -> tuple[dict[str, Def], dict[str, ast.ClassDef]]:
    try:
        tree = ast.parse(source.lstrip("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}, {}
    functions = {
        n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    return functions, classes


def _plain(e: ast.AST | None) -> bool:
    """An expression that only reads or converts: a literal, a name, `self.x`,
    `MAP[key]`, f"{self.x}"."""
    if e is None or isinstance(e, (ast.Constant, ast.Name)):
        return True
    if isinstance(e, ast.Attribute):
        return _plain(e.value)
    if isinstance(e, ast.JoinedStr):
        return all(
            isinstance(v, ast.Constant)
            or (isinstance(v, ast.FormattedValue) and _plain(v.value) and v.format_spec is None)
            for v in e.values
        )
    if isinstance(e, ast.Subscript):
        return _plain(e.value) and isinstance(e.slice, (ast.Constant, ast.Name, ast.Attribute))
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        return all(_plain(x) for x in e.elts)
    if isinstance(e, ast.Dict):
        return all(_plain(k) for k in e.keys) and all(_plain(v) for v in e.values)
    if isinstance(e, ast.Call):
        return (
            isinstance(e.func, ast.Name)
            and e.func.id in CONVERSIONS
            and not e.keywords
            and all(_plain(a) for a in e.args)
        )
    return False


def _literal_pattern(p: ast.pattern) -> bool:
    if isinstance(p, (ast.MatchValue, ast.MatchSingleton)):
        return True
    if isinstance(p, ast.MatchOr):
        return all(_literal_pattern(x) for x in p.patterns)
    return isinstance(p, ast.MatchAs) and p.pattern is None  # `case _`


def _leaf(body: list[ast.stmt]) -> bool:
    return len(body) == 1 and (
        isinstance(body[0], ast.Raise)
        or (isinstance(body[0], ast.Return) and _plain(body[0].value))
    )


def _mapping_if(s: ast.If) -> bool:
    """`if x == A: return "a" elif x == B: return "b" else: raise`: a table written as code."""
    t = s.test
    if not (
        isinstance(t, ast.Compare)
        and len(t.ops) == 1
        and isinstance(t.ops[0], (ast.Eq, ast.Is, ast.In))
        and _plain(t.left)
        and _plain(t.comparators[0])
        and _leaf(s.body)
    ):
        return False
    if not s.orelse:
        return True
    if len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
        return _mapping_if(s.orelse[0])
    return _leaf(s.orelse)


def _field_assign(s: ast.stmt) -> bool:
    if isinstance(s, ast.Pass):
        return True
    if isinstance(s, (ast.Assign, ast.AnnAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        return all(isinstance(t, ast.Attribute) for t in targets) and _plain(s.value)
    return (
        isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "__init__"
        and all(_plain(a) for a in s.value.args)
    )


def trivial(fn: Def) -> bool:
    """No branching and no computation: a getter, a field setter, a conversion or a
    literal mapping."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if not body:
        return True
    if len(body) == 2 and isinstance(body[0], ast.If) and _leaf(body[1:]):
        # `if k == A: return a elif ...` then a final `raise`/`return`: still a table
        body = body[:1]
    if len(body) == 1:
        s = body[0]
        if isinstance(s, (ast.Pass, ast.Raise)):
            return True
        if isinstance(s, ast.Return):
            return _plain(s.value)
        if isinstance(s, ast.Match):
            return _plain(s.subject) and all(
                c.guard is None and _literal_pattern(c.pattern) and _leaf(c.body) for c in s.cases
            )
        if isinstance(s, ast.If):
            return _mapping_if(s)
    return fn.name in ("__init__", "__post_init__") and all(_field_assign(s) for s in body)
