"""Which project class a method call of a test file is made on, where the test's code says so.

Gate 4's oracle rule (`mutation/oracle.py`) reads calls by name; a name alone merges methods of
different classes: a file that tests `Box.size` (`assert Box([1, 2]).size() == 2`) and computes an
expected value with `Ruler.size` would keep `Ruler.size` accountable for the direct call of
`Box.size`. A call's class is known when its receiver is the class itself (`Ruler.size(r)`), an
instance built on the spot (`Ruler(3).size()`), or a name the same function, or `self.<name>` the
same test class, binds only to instances of one project class (`r = Ruler(3)`; `self.r =
Ruler(3)` in `setUp`). The method is then looked up in that class and its project bases. Anything
else (a fixture's argument, a returned object, a class defined twice) is unknown: every method of
that name, as before.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

UNBOUND = "<unbound>"  # a scope that binds nothing to a name


@dataclass
class ClassFacts:
    """A project class: its qualified name, the methods it defines, its bases by name."""

    qualname: str
    methods: set[str] = field(default_factory=set)
    bases: list[str] = field(default_factory=list)


def project_classes(trees: Iterable[ast.Module]) -> dict[str, ClassFacts | None]:
    """Class name -> its facts; None for a name two classes share (which one is meant is not
    known)."""
    out: dict[str, ClassFacts | None] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                facts = ClassFacts(
                    prefix + node.name,
                    {
                        n.name
                        for n in node.body
                        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                    },
                    [b.id if isinstance(b, ast.Name) else "?" for b in node.bases],
                )
                out[node.name] = None if node.name in out else facts
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(node.body, f"{prefix}{node.name}.<locals>.")

    for tree in trees:
        walk(tree.body, "")
    return out


def qualnames(tree: ast.Module) -> dict[ast.AST, str]:
    """Each def and class of a module -> its qualified name (`f`, `C.m`, `f.<locals>.g`)."""
    out: dict[ast.AST, str] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                out[node] = prefix + node.name
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[node] = prefix + node.name
                walk(node.body, f"{prefix}{node.name}.<locals>.")

    walk(tree.body, "")
    return out


class Receivers:
    """The class each method call of a test module is made on, where it can be known."""

    def __init__(
        self,
        tree: ast.Module,
        parent: dict[ast.AST, ast.AST],
        classes: dict[str, ClassFacts | None],
    ) -> None:
        self.parent = parent
        self.classes = classes
        self._bound: dict[tuple[int, str], str | None] = {}
        self.tree = tree

    def resolve(self, call: ast.Call) -> str | None:
        """The qualified name of the project method `call` runs (`Ruler.size`), or None when
        its class is not known from the code (or it is not a method call)."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        cls = self._class_of(func.value)
        return (self._lookup(cls, func.attr, set()) or None) if cls else None

    def _class_of(self, recv: ast.expr) -> str | None:
        if isinstance(recv, ast.Name):
            if self.classes.get(recv.id):
                return recv.id  # `Ruler.size(r)`
            scope = self._scope(recv, (ast.FunctionDef, ast.AsyncFunctionDef))
            cls = self._bound_to(scope, recv.id)
            # not bound in the test function: a name of the module (`RULER = Ruler(3)`)
            if cls == UNBOUND:
                cls = self._bound_to(self.tree, recv.id)
            return None if cls == UNBOUND else cls
        if isinstance(recv, ast.Call):
            return self._instance_of(recv)
        if (
            isinstance(recv, ast.Attribute)
            and isinstance(recv.value, ast.Name)
            and recv.value.id == "self"
        ):
            cls = self._bound_to(self._scope(recv, (ast.ClassDef,)), f"self.{recv.attr}")
            return None if cls == UNBOUND else cls
        return None

    def _scope(self, node: ast.AST, kinds: tuple[type, ...]) -> ast.AST:
        while node in self.parent and not isinstance(node, kinds):
            node = self.parent[node]
        return node if isinstance(node, kinds) else self.tree

    def _bound_to(self, scope: ast.AST, name: str) -> str | None:
        """The project class whose instances are all `scope` binds to `name` (a local name, or
        `self.<attr>`); UNBOUND when it binds nothing to it; None when not one class."""
        key = (id(scope), name)
        if key not in self._bound:
            self._bound[key] = self._only_class(scope, name)
        return self._bound[key]

    def _only_class(self, scope: ast.AST, name: str) -> str | None:
        found: set[str | None] = set()
        for node in ast.walk(scope):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_names(t) == name for t in targets):
                    found.add(self._instance_of(node.value))
                elif any(name in _all_names(t) for t in targets):
                    found.add(None)  # unpacked or subscripted: not one instance
            elif name in _other_bindings(node):
                found.add(None)
        if not found:
            return UNBOUND
        return found.pop() if len(found) == 1 else None

    def _instance_of(self, value: ast.expr | None) -> str | None:
        """The project class `value` makes an instance of (`Ruler(3)`), or None."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            return value.func.id if self.classes.get(value.func.id) else None
        return None

    def _lookup(self, cls: str, method: str, seen: set[str]) -> str | None:
        """`cls.method` as defined in `cls` or in its project bases, depth first as Python's MRO
        is for single inheritance; "" when none of them defines it, None when a base is not the
        project's (it may define it)."""
        facts = self.classes.get(cls)
        if facts is None or cls in seen:
            return None
        seen.add(cls)
        if method in facts.methods:
            return f"{facts.qualname}.{method}"
        for base in facts.bases:
            if base == "object":
                continue
            found = self._lookup(base, method, seen)
            if found != "":
                return found
        return ""


def _names(target: ast.expr) -> str | None:
    """`x` or `self.x` for a plain target, else None."""
    if isinstance(target, ast.Name):
        return target.id
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        return f"self.{target.attr}"
    return None


def _other_bindings(node: ast.AST) -> set[str]:
    """The names (`x`, `self.x`) `node` binds otherwise than by a plain assignment: augmented,
    walrus, loop and `with` targets, parameters."""
    if isinstance(node, (ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor)):
        return _all_names(node.target)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return {n for i in node.items if i.optional_vars for n in _all_names(i.optional_vars)}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return {a.arg for a in _args(node)}  # whatever the caller passes
    return set()


def _all_names(target: ast.AST) -> set[str]:
    return {
        n for t in ast.walk(target) if isinstance(t, (ast.Name, ast.Attribute)) if (n := _names(t))
    }


def _args(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    a = node.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, [a.vararg, a.kwarg])]
