"""Low-value analysis: does the test exercise any logic of its targets at all?

A test is low value when everything of the target modules it touches is trivial: getters, field
round-trips, `__str__` of fields, one-to-one `match`/`if`/dict mappings of literals. That is decided
from the target source (never by running it); anything we cannot resolve counts as logic, so an
unresolvable test is never called low value.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from assay.smells.index import TargetIndex, trivial
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc

SAFE_CALLS = {
    "str",
    "repr",
    "format",
    "len",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "tuple",
    "set",
    "frozenset",
    "sorted",
    "hash",
    "isinstance",
    "type",
    "id",
    "iter",
    "next",
    "getattr",
    "hasattr",
    "vars",
}
DUNDER_OF = {
    "str": "__str__",
    "repr": "__repr__",
    "format": "__format__",
    "len": "__len__",
    "hash": "__hash__",
    "int": "__int__",
    "float": "__float__",
    "bool": "__bool__",
    "iter": "__iter__",
}


def _is_property(fn: ast.AST | None) -> bool:
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        last_name(dotted(d, {})) in ("property", "cached_property", "getter")
        for d in fn.decorator_list
    )


@dataclass
class _Exercise:
    """What a test does with its targets: the trivial parts it touched, and whether anything
    was not."""

    touched: list[str] = field(default_factory=list)
    called: list[str] = field(default_factory=list)  # target functions/methods it calls
    logic: bool = False  # something non-trivial, or something we could not see into


def _literal_args(call: ast.Call) -> bool:
    return all(
        isinstance(a, (ast.Constant, ast.UnaryOp))
        for a in (*call.args, *(k.value for k in call.keywords))
    )


def _examine(test: TestFunc, index: TargetIndex) -> _Exercise:
    ex = _Exercise()
    aliases = test.module.aliases
    assertion_calls = {id(a.node) for a in test.assertions}
    instances: dict[str, ast.ClassDef] = {}

    def class_of(e: ast.AST) -> ast.ClassDef | None:
        if isinstance(e, ast.Name) and e.id in instances:
            return instances[e.id]
        name = dotted(e.func if isinstance(e, ast.Call) else e, aliases)
        found = index.resolve(name) if name else None
        if found and isinstance(found[0], ast.ClassDef):
            if isinstance(e, ast.Call) and not found[1]:
                return found[0]
            if (
                not isinstance(e, ast.Call)
                and len(found[1]) == 1
                and isinstance(index.member(found[0], found[1][0]), ast.Assign)
            ):
                return found[0]  # an Enum member (or class constant): Color.RED
        return None

    def use(what: ast.AST | None, label: str, *, call: bool) -> None:
        if not isinstance(what, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ex.logic = ex.logic or (call and what is None)
            return
        (ex.called if call else ex.touched).append(label)
        ex.logic = ex.logic or not trivial(what)

    for node in test.nodes:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            cls = class_of(node.value)
            if cls is not None:
                instances[node.targets[0].id] = cls
    for call, name in test.calls:
        if id(call) in assertion_calls or not name:
            continue
        resolved = index.resolve(name)
        func = call.func
        if resolved is not None:
            target, rest = resolved
            if isinstance(target, ast.ClassDef) and not rest:
                ex.touched.append(target.name)
                ex.logic = ex.logic or not index.plain_class(target) or not _literal_args(call)
            elif isinstance(target, ast.ClassDef):
                use(
                    index.member(target, rest[0]) if len(rest) == 1 else None,
                    f"{target.name}.{rest[0]}",
                    call=True,
                )
            else:
                use(target if not rest else None, target.name, call=True)
        elif isinstance(func, ast.Attribute) and (cls := class_of(func.value)) is not None:
            use(index.member(cls, func.attr), f"{cls.name}.{func.attr}", call=True)
        elif name in SAFE_CALLS or name.startswith("pytest."):
            cls = class_of(call.args[0]) if call.args else None
            if cls is not None and name in DUNDER_OF:
                member = index.member(cls, DUNDER_OF[name])
                if member is not None:
                    use(member, f"{cls.name}.{DUNDER_OF[name]}", call=False)
        else:
            ex.logic = True  # a helper or library we do not look into
    for node in test.of(ast.Attribute):
        if isinstance(node.ctx, ast.Load) and (cls := class_of(node.value)) is not None:
            member = index.member(cls, node.attr)
            if _is_property(member):
                use(member, f"{cls.name}.{node.attr}", call=False)
            elif isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue  # a method: judged where it is called
            else:
                ex.touched.append(f"{cls.name}.{node.attr}")
    return ex


def low_value(test: TestFunc, index: TargetIndex) -> tuple[str, str] | None:
    """("AS020" | "AS021", message) when the test exercises nothing but trivial target code."""
    if not index.functions and not index.classes:
        return None
    ex = _examine(test, index)
    if ex.logic or not (ex.touched or ex.called):
        return None
    if ex.called:
        names = list(dict.fromkeys(ex.called))
        return "AS020", (
            f"low value: {', '.join(names)} {'has' if len(names) == 1 else 'have'} no logic "
            "(getter, conversion or literal mapping)"
        )
    fields = ", ".join(dict.fromkeys(ex.touched))
    return "AS021", f"low value: only reads fields of objects built from literals ({fields})"
