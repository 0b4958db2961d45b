"""Which functions of a module the offline writer characterizes, and which it skips (with
the reason).

Skipped, from the source alone: private and async functions, properties, functions with no logic
(gate 5 would call their tests low value), and functions that touch the network, files,
subprocesses, the clock or randomness - directly or through another function of the module - since a
test of them would pin the environment rather than the code (the I/O names are those of gate 4's
code-class detection); and functions that rebind module globals (`global X`), whose test would
change the module for the tests after it.
"""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from assay.errors import InputError
from assay.mutation.codeclass import IO_CALLS, IO_METHODS, IO_MODULES
from assay.smells.index import trivial

CLOCK = {
    "time.time",
    "time.monotonic",
    "time.perf_counter",
    "time.sleep",
    "time.time_ns",
    "time.localtime",
    "time.gmtime",
    "time.strftime",
    "datetime.now",
    "datetime.utcnow",
    "datetime.today",
    "date.today",
    "uuid.uuid1",
    "uuid.uuid4",
    "os.urandom",
    "secrets",
    "random",
}
FS_CALLS = {
    "os.remove",
    "os.unlink",
    "os.mkdir",
    "os.makedirs",
    "os.rename",
    "os.replace",
    "os.listdir",
    "os.scandir",
    "os.walk",
    "os.system",
    "os.popen",
    "os.chdir",
    "os.getcwd",
    "os.environ",
    "os.path.exists",
    "os.path.isfile",
    "os.path.isdir",
    "os.getenv",
    "glob.glob",
    "Path.cwd",
}
# special methods a test calls through their syntax (`v < w`, `v[0]`, `len(v)`, `v(x)`): tested
# like public methods, written with that syntax (`render`), run through `operator` (`calls`)
SPECIAL = {
    "__call__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__sub__",
    "__mul__",
    "__and__",
    "__or__",
    "__getitem__",
    "__contains__",
    "__len__",
    "__str__",
    "__repr__",
    "__iter__",
}
NOT_CALLED = {"property", "cached_property", "setter", "getter", "abstractmethod", "overload"}
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


@dataclass
class FunctionInfo:
    """A function (`f`), a method (`Class.m`, called on an instance) or a static/class method
    (called on the class)."""

    name: str
    kind: str  # function | method | static
    first: int  # first line, decorators included
    last: int
    skip: str | None = None  # why no test is written for it
    # module-level names it calls (for transitive skips)
    calls: set[str] = field(default_factory=set)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it was imported as (`import numpy as np` -> np: numpy)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[(a.asname or a.name).split(".")[0]] = (
                    a.name if a.asname else a.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _effects(fn: ast.AST, aliases: dict[str, str]) -> str | None:
    """What outside world a def touches, in words, or None."""
    for node in ast.walk(fn):
        if not isinstance(node, (ast.Call, ast.Attribute, ast.Name)):
            continue
        target = node.func if isinstance(node, ast.Call) else node
        name = _dotted(target)
        if not name:
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in IO_METHODS
            ):
                return f"calls .{node.func.attr}() (I/O)"
            continue
        head, _, rest = name.partition(".")
        full = aliases.get(head, head) + (f".{rest}" if rest else "")
        root = full.split(".")[0]
        if isinstance(node, ast.Call) and name in IO_CALLS and head not in aliases:
            return f"calls {name}() (I/O)"
        if root in IO_MODULES and head in aliases:
            return f"uses {root} (network, files or subprocesses)"
        if (
            any(full == c or full.startswith(c + ".") or full.endswith("." + c) for c in CLOCK)
            and head in aliases
        ):
            return f"uses {full} (the clock or randomness)"
        if any(full == c or full.startswith(c + ".") for c in FS_CALLS) and head in aliases:
            return f"uses {full} (the file system or environment)"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in IO_METHODS
        ):
            return f"calls .{node.func.attr}() (I/O)"
    return None


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {
        _dotted(d.func if isinstance(d, ast.Call) else d).split(".")[-1]
        for d in node.decorator_list
    }


def _info(
    node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, kind: str, aliases: dict[str, str]
) -> FunctionInfo:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    info = FunctionInfo(name, kind, first, node.end_lineno or node.lineno)
    info.calls = {_dotted(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)} - {""}
    decorators = _decorators(node)
    if isinstance(node, ast.AsyncFunctionDef):
        info.skip = "async function (not supported by the offline writer)"
    elif decorators & NOT_CALLED:
        info.skip = f"@{sorted(decorators & NOT_CALLED)[0]}"
    elif trivial(node):
        info.skip = (
            "no logic to pin (a getter, conversion or literal "
            "mapping: gate 5 calls such tests low value)"
        )
    else:
        info.skip = _effects(node, aliases) or _rebinds(node)
    return info


def _rebinds(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The module globals a def rebinds (`global SMALL_WORDS` then `SMALL_WORDS = ...`), in
    words, or None. Each input runs in a fresh child, so the probe never sees the change; a test of
    it would leave the module changed for every test after it in the session (titlecase's
    `set_small_word_list("b")` made "of" and "the" capitalised in the project's own tests)."""
    declared = {n for g in ast.walk(node) if isinstance(g, ast.Global) for n in g.names}
    stored = {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)
    }
    names = sorted(declared & stored)
    if not names:
        return None
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return (
        f"rebinds the module's {shown} (global): a test of it would change the module "
        "for the tests after it"
    )


def functions_of(text: str) -> list[FunctionInfo]:
    """Public functions and methods of public classes, in source order, each with a skip reason
    or None."""
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        raise InputError(f"cannot parse: {err.msg} (line {err.lineno})") from None
    aliases = _aliases(tree)
    found: list[FunctionInfo] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith(
            "_"
        ):
            found.append(_info(node, node.name, "function", aliases))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                # an instance called like a function (`wait_fixed(1)(state)`), compared, indexed
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    not item.name.startswith("_") or item.name in SPECIAL
                ):
                    kind = (
                        "static"
                        if _decorators(item) & {"staticmethod", "classmethod"}
                        else "method"
                    )
                    found.append(_info(item, f"{node.name}.{item.name}", kind, aliases))
    _spread(found)
    return found


def _spread(found: list[FunctionInfo]) -> None:
    """A function that calls a function of the module that touches the outside world touches
    it too."""
    effects = {
        f.name.split(".")[-1]: f.skip
        for f in found
        if f.skip and ("uses" in f.skip or "I/O" in f.skip or "(global)" in f.skip)
    }
    changed = True
    while changed:
        changed = False
        for f in found:
            if f.skip:
                continue
            hit = next((c for c in f.calls if c.split(".")[-1] in effects), None)
            if hit:
                f.skip = f"calls {hit}, which {effects[hit.split('.')[-1]]}"
                effects[f.name.split(".")[-1]] = f.skip
                changed = True


def changed_lines(root: Path, rev: str) -> dict[str, set[int]]:
    """Project-relative Python files changed since `rev` (committed, staged or not) -> changed
    line numbers."""
    try:
        names = subprocess.run(
            ["git", "diff", "--name-only", "--diff-filter=AMR", rev, "--", "*.py"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise InputError(f"--since: cannot run git: {err}") from None
    if names.returncode:
        why = names.stderr.strip().splitlines()[-1] if names.stderr.strip() else "git failed"
        raise InputError(f"--since {rev}: {why}")
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    out: dict[str, set[int]] = {}
    for name in names.stdout.split():
        path = Path(top) / name
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        diff = subprocess.run(
            ["git", "diff", "-U0", rev, "--", name],
            cwd=top,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        lines: set[int] = set()
        for start, count in _HUNK.findall(diff):
            n = int(count) if count else 1
            lines.update(range(int(start), int(start) + max(n, 1)))
        out[rel] = lines
    return out
