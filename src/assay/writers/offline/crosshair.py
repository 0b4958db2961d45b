"""CrossHair's path-covering inputs (`crosshair cover`), when the interpreter that runs the project
has `crosshair-tool` (extra `assay[offline]`). CrossHair executes the code symbolically, so it runs
like any user code: in the scratch copy, through the sandbox, within a share of the module's budget;
whatever it printed before its time ran out is used."""

from __future__ import annotations

import ast
import builtins
import os
import subprocess

from assay.execution.workspace import Workspace
from assay.sandbox import Sandbox
from assay.writers.offline.functions import FunctionInfo

_CHECK = "import importlib.util, sys; sys.exit(importlib.util.find_spec('crosshair') is None)"


def available(python: str) -> bool:
    try:
        return (
            subprocess.run([python, "-c", _CHECK], capture_output=True, timeout=30).returncode == 0
        )
    except (OSError, subprocess.SubprocessError):
        return False


def _input(call: ast.Call, info: FunctionInfo, dotted: str, own: set[str]) -> dict | None:
    """A printed example `f(1, b=2)` (for a method `m(receiver, 1)`) as an input, or None."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    lines = set()
    for node in ast.walk(call):
        if isinstance(node, ast.Name) and node is not call.func:
            if node.id in own:
                lines.add(f"from {dotted} import {node.id}")
            elif not hasattr(builtins, node.id):
                return None
    args = [ast.unparse(a) for a in call.args]
    receiver = None
    if info.kind == "method":
        if not args:
            return None
        receiver, args = args[0], args[1:]
    return {
        "args": args,
        "kwargs": {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg},
        "receiver": receiver,
        "origin": "crosshair",
        "imports": sorted(lines),
    }


def cover(
    ws: Workspace,
    sandbox: Sandbox,
    python: str,
    source_roots: list[str],
    dotted: str,
    text: str,
    functions: list[FunctionInfo],
    budget_s: float,
) -> dict[str, list[dict]]:
    """Inputs per function name from `crosshair cover` on the module's functions,
    within `budget_s`."""
    if not functions or budget_s < 2:
        return {}
    per = max(1.0, min(5.0, budget_s / len(functions)))
    argv = [
        python,
        "-m",
        "crosshair",
        "cover",
        *(f"{dotted}.{f.name}" for f in functions),
        "--example_output_format=eval_expression",
        "--per_condition_timeout",
        f"{per:.1f}",
    ]
    path = os.pathsep.join(str(ws.project / r) for r in source_roots)
    env = sandbox.env_for(ws.run_dir / "home", {"PYTHONPATH": path}, cache=ws.cache_dir)
    result = sandbox.run(argv, cwd=ws.project, env=env, timeout=budget_s)
    try:
        own = {
            n.name for n in ast.parse(text).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))
        }
    except SyntaxError:
        own = set()
    by_short: dict[str, list[FunctionInfo]] = {}
    for f in functions:
        by_short.setdefault(f.name.split(".")[-1], []).append(f)
    found: dict[str, list[dict]] = {}
    for line in result.stdout.splitlines():
        try:
            call = ast.parse(line.strip(), mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            continue
        matches = by_short.get(call.func.id, [])
        if len(matches) != 1:
            continue
        inp = _input(call, matches[0], dotted, own)
        bucket = found.setdefault(matches[0].name, [])
        if inp is not None and inp not in bucket and len(bucket) < 40:
            bucket.append(inp)
    return found
