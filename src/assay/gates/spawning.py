"""Which tests of a Python file start another process, where the project may run out of gate 4's
sight: its mutants are applied in the worker's memory, and a subprocess imports the original code.

Such a test reaches no mutant in the worker, or kills none of the few it does reach (the import of
the CLI's module), yet it may test the project through its command line (jsonpointer 3.12's 32
`CommandLineTests` run `bin/jsonpointer` with `subprocess.run`): gate 4 cannot judge it, and saying
"low value" of it would blame the test for what gate 4 cannot see.

A test that runs a script of the project with `runpy` (jsonpointer's `_run_with_retained_files`:
`runpy.run_path("bin/jsonpointer")`) runs it in this process, but afresh from its source: new
functions, none of them the ones gate 4 mutates in the modules it imported; and a script without a
module name is no module gate 4 mutates. Its code is out of gate 4's scope the same way, and
said so; what the script calls of the imported modules is in scope, and counts as any call.

So is a test that imports a project module again: `del sys.modules["m"]` (or `.pop`, pytest's
`monkeypatch.delitem(sys.modules, "m")`) then `import m`, or `importlib.reload(m)` (mypy_extensions
1.2.0's `test_no_return_deprecation` checks the warning of its module `__getattr__` that way): the
module's functions are new ones, built from its source, and gate 4's mutants live in the old ones.
It was `low_value`, "kills none of the 49 mutants of the code it runs".
"""

from __future__ import annotations

import ast

from assay.gates.reach import (
    SPAWNING_ATTRIBUTES,
    SPAWNING_MODULES,
    SPAWNING_NAMES,
    SPAWNING_RECEIVERS,
)

Function = ast.FunctionDef | ast.AsyncFunctionDef
# run a module's or script's code afresh from its source, in this process
AFRESH_MODULES = {"runpy"}
RELOAD = "calls importlib.reload"
FORGETS = "removes a module from sys.modules, to import it again"


def afresh(how: str) -> bool:
    """Whether `how` (a value of `spawning_tests`) runs the project's code in this process but
    built again from its source, rather than in another process."""
    return "runpy." in how or how in (RELOAD, FORGETS)


def spawning_tests(source: str) -> dict[str, str]:
    """Test function (`test_x`, `Class::test_x`) -> how it, or a function or method of the file it
    calls, starts a process (`calls subprocess.run`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    aliases = _spawning_aliases(tree)
    imported = _imported_tops(tree)
    module_level = {n.name: n for n in tree.body if isinstance(n, Function)}
    # methods of the file's helper classes, called on an object the test holds (num2words'
    # `self.cli.run_cmd(...)`, `self.cli = CliCaller()` in setUp), by name
    helpers = {
        m.name: m
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for m in c.body
        if isinstance(m, Function) and not m.name.startswith(("test", "__"))
    }
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, Function) and node.name.startswith("test"):
            how = _starts(node, module_level, {}, aliases, helpers, imported)
            if how:
                out[node.name] = how
        elif isinstance(node, ast.ClassDef):
            methods = {n.name: n for n in node.body if isinstance(n, Function)}
            for name, method in methods.items():
                if name.startswith("test") and (
                    how := _starts(method, module_level, methods, aliases, helpers, imported)
                ):
                    out[f"{node.name}::{name}"] = how
    return out


def _spawning_aliases(tree: ast.Module) -> dict[str, str]:
    """Names the module binds to a process-starting module or function: `sp` -> `subprocess`,
    `run` -> `subprocess.run`."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in SPAWNING_MODULES | AFRESH_MODULES:
                    out[a.asname or a.name.split(".")[0]] = a.name
        elif (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").split(".")[0] in SPAWNING_MODULES | AFRESH_MODULES
        ):
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.ImportFrom) and node.module == "importlib":
            for a in node.names:
                if a.name == "reload":  # `from importlib import reload`
                    out[a.asname or a.name] = "importlib.reload"
    return out


def _imported_tops(tree: ast.Module) -> set[str]:
    """Top-level names of the modules the file imports (`from a.b import c` -> `a`)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def _starts(
    func: Function,
    module_level: dict[str, Function],
    methods: dict[str, Function],
    aliases: dict[str, str],
    helpers: dict[str, Function] | None = None,
    imported: set[str] | None = None,
) -> str | None:
    """How `func`, or what of the file it calls (by name, as `self.x` / `cls.x`, or as a method of
    the file's helper classes on an object it holds: `self.cli.run_cmd`), starts a process, or
    None."""
    todo, seen = [func], {id(func)}
    while todo:
        for node in ast.walk(todo.pop()):
            how = _start_at(node, aliases) or _forgets(node, imported or set())
            if how:
                return how
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            if isinstance(callee, ast.Name):
                target = module_level.get(callee.id)
            elif (
                isinstance(callee, ast.Attribute)
                and isinstance(callee.value, ast.Name)
                and callee.value.id in ("self", "cls")
            ):
                target = methods.get(callee.attr)
            elif isinstance(callee, ast.Attribute):  # `self.cli.run_cmd(...)`, `cli.run_cmd(...)`
                target = (helpers or {}).get(callee.attr)
            else:
                target = None
            if target is not None and id(target) not in seen:
                seen.add(id(target))
                todo.append(target)
    return None


def _start_at(node: ast.AST, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id in aliases:
            return f"calls {aliases[node.value.id]}.{node.attr}"
        if node.value.id in SPAWNING_RECEIVERS and node.attr.startswith(SPAWNING_ATTRIBUTES):
            return f"calls {node.value.id}.{node.attr}"
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        if node.id in SPAWNING_NAMES:
            return f"uses {node.id}"
        if "." in aliases.get(node.id, ""):  # `from subprocess import run`
            return f"calls {aliases[node.id]}"
    elif isinstance(node, ast.arg) and node.arg in SPAWNING_NAMES:
        return f"uses {node.arg}"
    return None


def _forgets(node: ast.AST, imported: set[str]) -> str | None:
    """`importlib.reload(m)`, or a module of the file's imports taken out of `sys.modules`
    (`del sys.modules["m"]`, `sys.modules.pop("m")`, `monkeypatch.delitem(sys.modules, "m")`):
    the test imports it again, afresh. A key that names none of the file's imports (an optional
    dependency hidden to test the project without it) leaves the project's functions alone."""
    if isinstance(node, ast.Call):
        f = node.func
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "reload"
            and isinstance(f.value, ast.Name)
            and f.value.id == "importlib"
        ):
            return RELOAD
        if isinstance(f, ast.Attribute) and f.attr == "pop" and _is_sys_modules(f.value):
            return FORGETS if _names_import(node.args[:1], imported) else None
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "delitem"
            and node.args
            and _is_sys_modules(node.args[0])
        ):
            return FORGETS if _names_import(node.args[1:2], imported) else None
    elif isinstance(node, ast.Delete):
        for t in node.targets:
            if (
                isinstance(t, ast.Subscript)
                and _is_sys_modules(t.value)
                and _names_import([t.slice], imported)
            ):
                return FORGETS
    return None


def _is_sys_modules(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _names_import(keys: list[ast.expr], imported: set[str]) -> bool:
    """A key that is not a literal may name anything: taken as one of the imports."""
    if not keys:
        return False
    key = keys[0]
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value.split(".")[0] in imported
    return True
