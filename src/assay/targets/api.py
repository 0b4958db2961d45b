"""The library function of `assay targets`, re-exported by `assay.api`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.config import Settings
from assay.errors import ToolchainError
from assay.project import Project, find_root, project_root, project_settings


def targets(
    paths: Sequence[Path | str] = (),
    settings: Settings | None = None,
    *,
    root: Path | str | None = None,
    since: str | None = None,
    use_cache: bool = True,
    config: Path | None = None,
    limit: int | None = None,
) -> Any:
    """Functions worth testing next (`assay targets`): uncovered lines and branches per function
    from one instrumented run of the project's tests, ranked; with `since`, the functions changed
    since that revision."""
    from assay.targets import TargetsReport, function_targets, rank, source_modules
    from assay.targets.changes import changed_lines
    from assay.targets.coverage import measure

    root = project_root(paths, root) if paths or root else find_root(Path.cwd())
    settings = project_settings(root, settings, config, None)
    project = Project.load(root)
    modules = source_modules(project, [Path(p) for p in paths] or None)
    cov = measure(project, settings, use_cache)
    if cov.problem and not cov.files:  # nothing measured: an empty list would say "all tested"
        raise ToolchainError(f"assay targets cannot rank functions: {cov.problem}")
    rows = [(m, f) for m in modules for f in function_targets(project, m, cov)]
    if since:
        changed = changed_lines(root, since)
        rows = [
            (m, f) for m, f in rows if any(f.line <= n <= f.end_line for n in changed.get(m, ()))
        ]
    else:
        from assay.targets import needs_tests

        rows = [(m, f) for m, f in rows if needs_tests(f)]
    ranked = rank(rows)
    return TargetsReport(str(root), ranked[:limit] if limit else ranked, cov.problem, since)
