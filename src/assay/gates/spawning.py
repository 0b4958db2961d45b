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


def spawning_tests(source: str) -> dict[str, str]:
    """Test function (`test_x`, `Class::test_x`) -> how it, or a function or method of the file it
    calls, starts a process (`calls subprocess.run`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    aliases = _spawning_aliases(tree)
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
            how = _starts(node, module_level, {}, aliases, helpers)
            if how:
                out[node.name] = how
        elif isinstance(node, ast.ClassDef):
            methods = {n.name: n for n in node.body if isinstance(n, Function)}
            for name, method in methods.items():
                if name.startswith("test") and (
                    how := _starts(method, module_level, methods, aliases, helpers)
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
    return out


def _starts(
    func: Function,
    module_level: dict[str, Function],
    methods: dict[str, Function],
    aliases: dict[str, str],
    helpers: dict[str, Function] | None = None,
) -> str | None:
    """How `func`, or what of the file it calls (by name, as `self.x` / `cls.x`, or as a method of
    the file's helper classes on an object it holds: `self.cli.run_cmd`), starts a process, or
    None."""
    todo, seen = [func], {id(func)}
    while todo:
        for node in ast.walk(todo.pop()):
            how = _start_at(node, aliases)
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
