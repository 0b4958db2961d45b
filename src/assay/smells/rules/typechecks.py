"""When a type check is the whole check (AS009's exceptions): the class the code must carry
through, the conversion it promises, the class statement's own promise."""

from __future__ import annotations

import ast
import builtins
import sys

from assay.smells.names import dotted, last_name
from assay.smells.rules.tautology import follow
from assay.smells.testfunc import TestFunc

BUILTIN_NAMES = frozenset(dir(builtins))


def typed_right(test: TestFunc, args: list[ast.expr]) -> bool:
    """`isinstance(*args)` checks what the test is about, not merely that something came back."""
    aliases = test.module.aliases
    return (
        _made_here(test, args[1:]) or _converted_part(args, aliases) or _class_promise(test, args)
    )


def _made_here(test: TestFunc, classes: list[ast.expr]) -> bool:
    """`isinstance(x, C)` where the test made `C` itself (a class statement, or `type(...)`):
    zipp's subclass tests check that the code keeps the caller's class."""
    if len(classes) != 1 or not isinstance(classes[0], ast.Name):
        return False
    name = classes[0].id
    if any(isinstance(n, ast.ClassDef) and n.name == name for n in ast.walk(test.node)):
        return True
    value = follow(test, classes[0], classes[0])
    return isinstance(value, ast.Call) and dotted(value.func, {}) == "type" and len(value.args) == 3


def _converted_part(args: list[ast.expr], aliases: dict[str, str]) -> bool:
    """`isinstance(box["a"], Box)`: a part of a value (an item, an attribute) checked against a
    class that is neither a builtin nor the standard library's - the code's promise to convert
    what it holds into its own class (addict's `test_hook_in_constructor`, python-box's
    `test_intact_types_list`), where a plain `dict` left inside fails."""
    if len(args) != 2 or not isinstance(args[0], (ast.Subscript, ast.Attribute)):
        return False
    name = dotted(args[1], aliases)
    if not name or isinstance(args[1], ast.Tuple):
        return False
    top = name.split(".")[0]
    return top not in BUILTIN_NAMES and top not in sys.stdlib_module_names


def _names_class(test: TestFunc, func: ast.expr) -> str:
    """The class `func` names (`Dict`, or `self.dict_class` that the classes of the test file set
    to classes: addict's `Dict` and `CHILD_CLASS`), or ""; a class is the project's (the target
    index says so) or a CapWords name."""
    aliases = test.module.aliases
    if isinstance(func, ast.Attribute) and dotted(func.value, {}) in ("self", "cls"):
        values = [
            stmt.value
            for cls in test.module.classes.values()
            for stmt in cls.body
            if isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == func.attr for t in stmt.targets)
            and not (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
        ]
        names = sorted({_names_class(test, v) for v in values})
        return names[0] if names and names[0] else ""  # every class of the file sets a class
    name = dotted(func, aliases) or "" if isinstance(func, (ast.Name, ast.Attribute)) else ""
    last = last_name(name)
    targets = test.module.targets
    if last and (last[0].isupper() or (targets is not None and last in targets.classes)):
        return name
    return ""


def _class_promise(test: TestFunc, args: list[ast.expr]) -> bool:
    """`isinstance(Dict(), dict)` (addict's `test_isinstance`): an object the test constructs
    itself, checked against another class. Its type is the class statement's promise (a `Dict`
    is a `dict`), not a result the code computed: there is no other value to assert, and gate 4
    judges what the test is worth (a base class has no mutant)."""
    if len(args) != 2 or not isinstance(args[0], ast.Call) or isinstance(args[1], ast.Tuple):
        return False
    made = _names_class(test, args[0].func)
    checked = dotted(args[1], test.module.aliases)
    return bool(made and checked) and last_name(made) != last_name(checked)
