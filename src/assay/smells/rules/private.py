"""AS014: tests that reach into the project's private members."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.model import Hit, rule
from assay.smells.testfunc import TestFunc

PUBLIC_UNDERSCORE = {
    "_replace",
    "_asdict",
    "_fields",
    "_make",
    "_field_defaults",
    "_meta",
    "_value_",
    "_name_",
    "_missing_",
    "_ignore_",
    "_generate_next_value_",
}


@rule(
    "AS014",
    "private-access",
    "warn",
    "private member access or reflection",
    "Test through the public interface; private names change without notice.",
)
def private_access(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Reading `_private` members or `__dict__` (directly, or by name through `getattr`/`setattr`)
    ties the test to internals. Reflection on a public name (`setattr(f, "args", x)` in a check that
    the attribute is read-only) is no more internal than `f.args` and is not flagged; a chain of
    private names (`it._executor._shutdown`) is one finding. A bare imported `_` is public by
    convention (gettext's, `whatever`'s placeholder), and the `__dict__` of a class the test
    defines is the test's own.

    Bad:
        def test_cache():
            c = Cache()
            c.put("k", 1)
            assert c._store == {"k": 1}

    Good:
        def test_cache():
            c = Cache()
            c.put("k", 1)
            assert c.get("k") == 1
    """
    reported: set[str] = set()
    inner: set[int] = set()  # nodes inside a chain already reported
    aliases = test.module.aliases
    for node in test.of(ast.Attribute):
        if id(node) in inner:
            continue
        # the test's own
        private = [
            n.attr
            for n in _chain(node)
            if isinstance(n, ast.Attribute)
            and _private_name(n.attr)
            and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))
            and not (n.attr == "__dict__" and _made_in_test(test, n.value))
        ]
        if private:
            inner.update(id(n) for n in ast.walk(node))
            if private[0] not in reported:
                reported.add(private[0])
                yield Hit.at(node, f"private access: `.{private[0]}`")
    for name_node in test.of(ast.Name):
        if (
            id(name_node) not in inner
            and _private_import(name_node, aliases)
            and name_node.id not in reported
        ):
            reported.add(name_node.id)
            yield Hit.at(name_node, f"private access: `{name_node.id}` imported from its module")
    for call, name in test.calls:
        attr = (
            call.args[1]
            if name in ("getattr", "setattr", "delattr") and len(call.args) >= 2
            else None
        )
        if (
            isinstance(attr, ast.Constant)
            and isinstance(attr.value, str)
            and _private_name(attr.value)
        ):
            yield Hit.at(call, f"reflection: `{name}(..., {attr.value!r})`")


def _private_name(attr: str) -> bool:
    return (
        attr.startswith("_") and not attr.endswith("__") and attr not in PUBLIC_UNDERSCORE
    ) or attr == "__dict__"


def _made_in_test(test: TestFunc, value: ast.AST) -> bool:
    """`A` of `A.__dict__` is a class the test (or its file) defines: its own namespace, not the
    project's internals."""
    return isinstance(value, ast.Name) and (
        value.id in test.module.classes
        or any(isinstance(n, ast.ClassDef) and n.name == value.id for n in test.of(ast.ClassDef))
    )


def _private_import(node: ast.AST, aliases: dict[str, str]) -> bool:
    # a bare `_` is a public name by convention (gettext's, `whatever`'s placeholder)
    return (
        isinstance(node, ast.Name)
        and node.id != "_"
        and node.id.startswith("_")
        and not node.id.startswith("__")
        and node.id in aliases
    )


def _chain(node: ast.AST) -> list[ast.AST]:
    """`a._b.c._d` -> [a, a._b, a._b.c, a._b.c._d]: the attribute chain from its root,
    outermost last."""
    out = [node]
    while isinstance(node, ast.Attribute):
        node = node.value
        out.append(node)
    return out[::-1]
