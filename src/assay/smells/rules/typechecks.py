"""When a type check is the whole check (AS009's exceptions): the class the code must carry
through, the conversion it promises, the class statement's own promise, a protocol's members,
the implementation a function hands out where its signature promises less."""

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
        _made_here(test, args[1:])
        or _converted_part(args, aliases)
        or _class_promise(test, args)
        or _protocol(test, args)
        or _handed_out(test, args)
    )


def _made_here(test: TestFunc, classes: list[ast.expr]) -> bool:
    """`isinstance(x, C)` where the test made `C` itself (a class statement in the test or in its
    file, or `type(...)` or a metaclass called alike): zipp's subclass tests check that the code
    keeps the caller's class, structlog's `test_honors_wrapper_class` that it builds the wrapper
    class it was given."""
    if len(classes) != 1 or not isinstance(classes[0], ast.Name):
        return False
    name = classes[0].id
    if any(isinstance(n, ast.ClassDef) and n.name == name for n in ast.walk(test.node)):
        return True
    if name in test.module.classes and name not in test.module.aliases:
        return True
    value = follow(test, classes[0], classes[0])
    return isinstance(value, ast.Call) and _class_call(value)


def _class_call(call: ast.Call) -> bool:
    """`type(name, bases, namespace)` or a metaclass called so (injector's `abc.ABCMeta("A",
    (object,), {})`): a class made as a class statement makes one."""
    if len(call.args) != 3:
        return False
    if dotted(call.func, {}) == "type":
        return True
    _, bases, space = call.args
    return isinstance(bases, ast.Tuple) and (
        isinstance(space, ast.Dict)
        or isinstance(space, ast.Call)
        and isinstance(space.func, ast.Name)
        and space.func.id == "dict"
    )


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


def _project_class(test: TestFunc, node: ast.expr) -> ast.ClassDef | None:
    """The class of a target module that `node` names, or None."""
    index = test.module.targets
    name = dotted(node, test.module.aliases) if isinstance(node, ast.Name | ast.Attribute) else ""
    found = index.resolve(name) if index is not None and name else None
    return found[0] if found and not found[1] and isinstance(found[0], ast.ClassDef) else None


def _is_protocol(cls: ast.ClassDef) -> bool:
    return any(
        last_name(dotted(b.value if isinstance(b, ast.Subscript) else b, {}) or "") == "Protocol"
        for b in cls.bases
    )


def _protocol(test: TestFunc, args: list[ast.expr]) -> bool:
    """`isinstance(get_logger(), BindableLogger)` against a `Protocol` of the project: a
    structural check that the object has every member the protocol names (structlog's
    `test_protocol`, issue 560's regression test), not a nominal type."""
    if len(args) != 2:
        return False
    cls = _project_class(test, args[1])
    return cls is not None and _is_protocol(cls)


def _ancestors(test: TestFunc, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> set[str]:
    """The names of `cls`'s bases that are target classes, and theirs."""
    index = test.module.targets
    out: set[str] = set()
    for b in cls.bases:
        name = last_name(dotted(b, {}) or "")
        base = index.classes.get(name) if index is not None else None
        if base is not None and name not in seen:
            out |= {name, *_ancestors(test, base, seen | {name})}
    return out


def _handed_out(test: TestFunc, args: list[ast.expr]) -> bool:
    """`isinstance(proxy.bind(), BoundLoggerBase)`: the project's function is annotated to return
    a protocol or a base of the checked class of the project, so which implementation it hands
    out is what the code decides and the signature leaves open (structlog's lazy proxy hands out
    the wrapped bound logger, not itself). Judged on the callee's code: a function of a target
    module, or a method of the target class the receiver was built from (in the test, or by a
    fixture of its file)."""
    if len(args) != 2:
        return False
    checked = _project_class(test, args[1])
    value = follow(test, args[0], args[0])
    if checked is None or not isinstance(value, ast.Call):
        return False
    func = _callee(test, value.func)
    returns = func.returns if func is not None else None
    if isinstance(returns, ast.Constant) and isinstance(returns.value, str):
        try:
            returns = ast.parse(returns.value, mode="eval").body
        except SyntaxError:
            return False
    promised = _project_class(test, returns) if returns is not None else None
    return (
        promised is not None
        and promised.name != checked.name
        and (_is_protocol(promised) or promised.name in _ancestors(test, checked))
    )


def _callee(test: TestFunc, func: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The target function a call names, or the method of the target class its receiver was
    built from."""
    index = test.module.targets
    if index is None:
        return None
    name = dotted(func, test.module.aliases) if isinstance(func, ast.Name | ast.Attribute) else ""
    found = index.resolve(name) if name else None
    if found and not found[1] and isinstance(found[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return found[0]
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    made = _built_from(test, func.value.id)
    member = index.member(made, func.attr) if made is not None else None
    return member if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _built_from(test: TestFunc, name: str) -> ast.ClassDef | None:
    """The target class a local name was built from (`p = Proxy(...)`), or that the fixture of
    the test file the test takes by that name returns."""
    values = test.assigned.get(name, [])
    if len(values) == 1 and isinstance(values[0], ast.Call):
        return _project_class(test, values[0].func)
    if name not in {a.arg for a in test.node.args.args}:
        return None
    for fixture in test.module.functions.values():
        if not any("fixture" in ast.unparse(d) for d in fixture.decorator_list):
            continue
        named = {
            k.value.value
            for d in fixture.decorator_list
            if isinstance(d, ast.Call)
            for k in d.keywords
            if k.arg == "name" and isinstance(k.value, ast.Constant)
        }
        if fixture.name == name or name in named:
            returns = [n.value for n in ast.walk(fixture) if isinstance(n, ast.Return) and n.value]
            if len(returns) == 1 and isinstance(returns[0], ast.Call):
                return _project_class(test, returns[0].func)
    return None
