"""Targets: what to write tests for. Coverage-driven (`assay targets`: uncovered lines and branches
per function, ranked), change-driven (`--since REV`), requested (`mod.py`, `mod.py::func`, a targets
JSON file), each with an optional task. Ranking: missing branches first, then complexity, then
missing lines."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.llm.excerpt import FunctionInfo, read_index
from assay.project import Project, is_test_file
from assay.targets.coverage import CoverageData
from assay.targets.model import FunctionTarget, Target
from assay.targets.polyglot import other_target

__all__ = ["FunctionTarget", "Target", "TargetsReport", "function_targets", "rank", "resolve"]
MAX_FUNCTIONS = 6  # per writer job: more makes prompts long and answers truncated


@dataclass
class TargetsReport:
    """`assay targets`: functions worth testing next, best first."""

    root: str
    functions: list[tuple[str, FunctionTarget]]  # (module, function)
    coverage_problem: str | None = None
    since: str | None = None
    notes: list[str] = field(default_factory=list)

    SCHEMA = "assay.targets/1"

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.SCHEMA,
            "root": self.root,
            "since": self.since,
            "coverage_problem": self.coverage_problem,
            "notes": self.notes,
            "targets": [{"module": m, "functions": [f.to_json()]} for m, f in self.functions],
        }


def _function_target(info: FunctionInfo, cov: CoverageData | None, rel: str) -> FunctionTarget:
    ft = FunctionTarget(info.qualname, info.line, info.end_line, info.complexity)
    fc = cov.files.get(rel) if cov is not None else None
    if fc is not None:
        # the def line runs at import: not the function's
        span = range(info.node.lineno, info.end_line + 1)
        ft.missing_lines = [n for n in fc.missing_lines if n in span and n != info.node.lineno]
        ft.missing_branches = [b for b in fc.missing_branches if b[0] in span]
        ran = sum(1 for n in fc.executed_lines if n in span and n != info.node.lineno)
        total = ran + len(ft.missing_lines)
        ft.coverage = round(100.0 * ran / total, 1) if total else 100.0
    elif cov is not None and not cov.problem:
        ft.coverage = 0.0  # the file was never imported by any test: all of its body is missing
        ft.missing_lines = _statement_lines(info.node)
    return ft


def _statement_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    """The lines of a function's statements, as coverage.py counts them (no `def`, no
    docstring)."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return sorted(
        {sub.lineno for stmt in body for sub in ast.walk(stmt) if isinstance(sub, ast.stmt)}
    )


def function_targets(project: Project, rel: str, cov: CoverageData | None) -> list[FunctionTarget]:
    """Every public function and method of a module, with its coverage."""
    return [
        _function_target(info, cov, rel)
        for info in read_index(project.root, rel).values()
        if info.public
    ]


def _key(f: FunctionTarget) -> tuple:
    return (-len(f.missing_branches), -f.complexity, -len(f.missing_lines), f.line)


def rank(functions: list[tuple[str, FunctionTarget]]) -> list[tuple[str, FunctionTarget]]:
    return sorted(functions, key=lambda mf: (_key(mf[1]), mf[0]))


def needs_tests(f: FunctionTarget) -> bool:
    return bool(f.missing_lines or f.missing_branches) or f.coverage == 0.0


# top-level files of a flat layout that build or script the project rather than make it up
SCRIPTS = {"setup.py", "noxfile.py", "fabfile.py", "manage.py"}


def in_package(project: Project, rel: str) -> bool:
    """Whether `rel` is part of the project's code: a module of a regular package (every directory
    up to its source root has an `__init__.py`) or a top-level module of a source root. Scripts in
    `tools/`, `docs/` or `bin/`, and with a `src/` layout anything outside it, are not."""
    path = Path(rel)
    roots = [r for r in project.source_roots if r != "."]
    root = next((r for r in roots if path.is_relative_to(r)), ".")
    if root == "." and roots:
        return False
    inside = path.relative_to(root)
    if len(inside.parts) == 1:
        return inside.name not in SCRIPTS
    base = project.root / root
    return all(
        (base.joinpath(*inside.parts[:i]) / "__init__.py").is_file()
        for i in range(1, len(inside.parts))
    )


def source_modules(project: Project, paths: list[Path] | None = None) -> list[str]:
    """Project-relative modules of the project's packages (no tests, no scripts), under `paths`
    when given."""
    rels = sorted(r for r in set(project.modules.values()) if in_package(project, r))
    if not paths:
        return rels
    wanted = [project.rel(p) for p in paths]
    return [
        r for r in rels if any(w in (".", r) or r.startswith(w.rstrip("/") + "/") for w in wanted)
    ]


def _chunks(
    module: str, functions: list[FunctionTarget], task: str | None, reason: str, dotted: str
) -> list[Target]:
    functions = sorted(functions, key=_key)
    return [
        Target(module, functions[i : i + MAX_FUNCTIONS], task, reason, dotted)
        for i in range(0, len(functions), MAX_FUNCTIONS)
    ] or [Target(module, [], task, reason, dotted)]


def _dotted(project: Project, rel: str) -> str:
    return next((m for m, r in project.modules.items() if r == rel), "")


def _module_rel(project: Project, spec: str) -> str:
    path = Path(spec)
    if not path.is_file():
        raise InputError(f"no such source file: {spec}")
    if path.suffix != ".py":
        raise InputError(f"{spec} is not a Python source file (.py)")
    if is_test_file(path.name):
        raise InputError(f"{spec} is a test file; name the module it tests")
    rel = project.rel(path)
    if rel not in project.modules.values():
        raise InputError(
            f"{spec} is not an importable module of the project (is it under a source root?)"
        )
    return rel


def _from_json(project: Project, path: Path, task: str | None) -> list[Target]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["targets"] if isinstance(data, dict) else data
        loaded = [Target.from_json(e) for e in entries]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise InputError(
            f"{path}: not a targets file (`assay targets -f json` output): {err}"
        ) from None
    by_module: dict[str, list[FunctionTarget]] = {}
    for t in loaded:
        if not (project.root / t.module).is_file():
            raise InputError(f"{path}: no such module in the project: {t.module}")
        by_module.setdefault(t.module, []).extend(t.functions)
    out = []
    for module, functions in by_module.items():
        out += _chunks(module, functions, task, "requested", _dotted(project, module))
    return out


def resolve(
    project: Project,
    specs: list[str],
    cov: CoverageData | None,
    task: str | None = None,
    changed: dict[str, set[int]] | None = None,
    since: str | None = None,
) -> list[Target]:
    """Writer jobs for `specs` (module paths, `mod.py::func[,func]`, targets JSON files) and/or
    changed lines.

    A module gets its functions that the tests leave (partly) unrun, or all of its public functions
    when the tests run every line; a change range gets the functions whose lines changed, whatever
    their coverage."""
    targets: list[Target] = []
    for spec in specs:
        if spec.endswith(".json") and "::" not in spec:
            targets += _from_json(project, Path(spec), task)
            continue
        path, _, names = spec.partition("::")
        # another language: the file (or named symbols), no AST, no coverage
        if Path(path).suffix != ".py":
            targets.append(other_target(project, path, names, task))
            continue
        rel = _module_rel(project, path)
        all_funcs = {f.name: f for f in function_targets(project, rel, cov)}
        index = read_index(project.root, rel)
        if names:
            chosen = []
            for name in names.split(","):
                if name not in index:
                    known = ", ".join(sorted(index)) or "none"
                    raise InputError(f"{rel} has no function {name!r} (functions: {known})")
                chosen.append(all_funcs.get(name) or _function_target(index[name], cov, rel))
            targets.append(Target(rel, chosen, task, "requested", _dotted(project, rel)))
            continue
        open_ = [f for f in all_funcs.values() if needs_tests(f)]
        targets += _chunks(
            rel,
            open_ or list(all_funcs.values()),
            task,
            "coverage" if open_ else "requested",
            _dotted(project, rel),
        )
    for rel, lines in sorted((changed or {}).items()):
        if rel not in project.modules.values() or any(t.module == rel for t in targets):
            continue
        hit = [
            f
            for f in function_targets(project, rel, cov)
            if any(f.line <= n <= f.end_line for n in lines)
        ]
        if hit:
            targets += _chunks(rel, hit, task, f"changed since {since}", _dotted(project, rel))
    return targets
