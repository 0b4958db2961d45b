"""Change and entry coverage of Python tasks, measured with coverage.py inside the sandbox.

The suite runs under a tiny pytest plugin written into the scratch copy (`-p _assay_prism_cov`): it
starts coverage.py when pytest loads it, before any conftest or test module imports the code,
measures only the files that matter (the changed ones and those holding entry points) and saves the
data in the run directory. The worker then reads executed lines and coverage.py's own executable
statements from that file.
"""

from __future__ import annotations

import ast
import contextlib
import warnings
from dataclasses import dataclass
from pathlib import Path

from assay.prism.patch import changed_lines
from assay.prism.task import Task

PLUGIN_MODULE = "_assay_prism_cov"
PLUGIN = '''"""Written by assay prism into its scratch copy: coverage.py over this run."""
try:
    import coverage
except ImportError:  # the interpreter lacks coverage.py: nothing is measured, the run is unchanged
    coverage = None
_cov = None
if coverage is not None:
    _cov = coverage.Coverage(data_file={data!r}, include={include!r}, config_file=False)
    _cov.start()


def pytest_unconfigure(config):
    if _cov is not None:
        _cov.stop()
        _cov.save()
'''


def plugin_source(data_file: str, include: list[str]) -> str:
    return PLUGIN.format(data=data_file, include=include)


def read_data(data_file: Path, files: dict[str, str]) -> dict[str, dict[str, list[int]]] | None:
    """`{rel: {"executed": [...], "statements": [...]}}` for `files` ({rel: absolute path}); None
    without data."""
    if not data_file.exists():
        return None
    from coverage import Coverage
    from coverage.exceptions import CoverageException

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cov = Coverage(data_file=str(data_file), config_file=False)
        cov.load()
        data = cov.get_data()
        out = {}
        for rel, path in files.items():
            statements: list[int] = []
            with contextlib.suppress(CoverageException, OSError, SyntaxError):
                statements = sorted(cov.analysis2(path)[1])
            out[rel] = {"executed": sorted(data.lines(path) or []), "statements": statements}
    return out


def source_roots(task: Task) -> list[str]:
    """Where the task's modules are imported from (as `Project.load` decides it)."""
    return (["src"] if (task.original / "src").is_dir() else []) + ["."]


def changes(task: Task) -> dict[str, tuple[set[int], set[int]]]:
    """Python files the reference changes: rel -> (lines added in reference, lines removed
    from original)."""
    assert task.reference is not None
    out = {}
    for rel in task.reference.overlays:
        if not rel.endswith(".py"):
            continue
        old, new = task.original_text(rel) or "", task.text_of(task.reference, rel) or ""
        out[rel] = changed_lines(old, new)
    return out


@dataclass(frozen=True)
class Entry:
    name: str  # as reported: the declared entry point, or rel:qualname for a changed function
    rel: str
    qualname: str


Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def defs(text: str) -> dict[str, Def]:
    """Qualname -> def or class node (first definition wins), at any depth."""
    found: dict[str, Def] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(prefix + child.name, child)
                inner = "." if isinstance(child, ast.ClassDef) else ".<locals>."
                walk(child, f"{prefix}{child.name}{inner}")
            else:
                walk(child, prefix)

    try:
        walk(ast.parse(text), "")
    except SyntaxError:
        return {}
    return found


def body_lines(node: Def) -> set[int]:
    """Lines that run only when the function (or a method of the class) is called."""
    if isinstance(node, ast.ClassDef):
        return set().union(
            *(
                body_lines(n)
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
        )
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(node.body) > 1:
        first = node.body[1]  # a docstring never shows as executed
    return set(range(first.lineno, (node.end_lineno or first.lineno) + 1))


def module_file(task: Task, module: str) -> str | None:
    """The reference tree's file of a dotted module name."""
    assert task.reference is not None
    files = {
        rel for rel in task.original_files if task.reference.overlays.get(rel, b"") is not None
    }
    files |= {rel for rel, data in task.reference.overlays.items() if data is not None}
    path = module.replace(".", "/")
    for root in source_roots(task):
        base = path if root == "." else f"{root}/{path}"
        for rel in (f"{base}.py", f"{base}/__init__.py"):
            if rel in files:
                return rel
    return None


def entries(task: Task) -> list[Entry]:
    """The declared entry points, or else the functions the reference changes (innermost def per
    line). Raises ValueError (one line) for a declared entry point the reference does not define."""
    assert task.reference is not None
    out = []
    if task.entry_points:
        for spec in task.entry_points:
            module, qualname = spec.split(":")
            rel = module_file(task, module)
            if rel is None or qualname not in defs(task.text_of(task.reference, rel) or ""):
                raise ValueError(f"entry point '{spec}' is not defined in the reference")
            out.append(Entry(spec, rel, qualname))
        return out
    for rel, (added, removed) in changes(task).items():
        new_defs = defs(task.text_of(task.reference, rel) or "")
        names = innermost(new_defs, added) | (
            innermost(defs(task.original_text(rel) or ""), removed) & set(new_defs)
        )
        out += [Entry(f"{rel}:{q}", rel, q) for q in sorted(names)]
    return out


def innermost(nodes: dict[str, Def], lines: set[int]) -> set[str]:
    """Qualnames of the innermost functions holding the given lines."""
    functions = {
        q: (n.lineno, n.end_lineno or n.lineno)
        for q, n in nodes.items()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    found = set()
    for line in lines:
        holding = [
            (last - first, q) for q, (first, last) in functions.items() if first <= line <= last
        ]
        if holding:
            found.add(min(holding)[1])
    return found


def change_coverage(task: Task, on_reference: dict | None, on_original: dict | None) -> dict | None:
    """Executed share of the reference's changed executable lines: added ones on the
    reference run, removed ones on the original run. None when nothing executable changed or
    nothing was measured."""
    if on_reference is None:
        return None
    covered = total = 0
    lines = []
    for rel, (added, removed) in sorted(changes(task).items()):
        for side, wanted, data in (
            ("reference", added, on_reference),
            ("original", removed, on_original),
        ):
            if not wanted:
                continue
            found = (data or {}).get(rel)
            if found is None:
                if side == "original" and on_original is None:
                    return None
                continue
            executable = wanted & set(found["statements"])
            hit = executable & set(found["executed"])
            total += len(executable)
            covered += len(hit)
            lines += [
                {"file": rel, "side": side, "line": n, "executed": n in hit}
                for n in sorted(executable)
            ]
    if not total:
        return None
    return {"covered": covered, "total": total, "ratio": covered / total, "lines": lines}


def entry_coverage(task: Task, found: list[Entry], on_reference: dict | None) -> dict | None:
    """Share of entry points the suite calls at least once on the reference."""
    if on_reference is None or not found:
        return None
    assert task.reference is not None
    called: list[str] = []
    missed: list[str] = []
    for entry in found:
        node = defs(task.text_of(task.reference, entry.rel) or "").get(entry.qualname)
        executed = set((on_reference.get(entry.rel) or {}).get("executed", []))
        (called if node is not None and body_lines(node) & executed else missed).append(entry.name)
    return {"called": called, "missed": missed, "ratio": len(called) / len(found)}


def measured_files(task: Task, found: list[Entry]) -> tuple[list[str], list[str]]:
    """Files to measure on the reference run and on the original run."""
    ch = changes(task)
    on_reference = sorted({rel for rel, (added, _) in ch.items() if added} | {e.rel for e in found})
    on_original = sorted(
        rel for rel, (_, removed) in ch.items() if removed and task.original_text(rel) is not None
    )
    return on_reference, on_original
