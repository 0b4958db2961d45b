"""One run of the offline writer over many modules, and its line in `WRITERS`:
`OfflineSession.generate` is what `assay generate` runs when no model writer is configured."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from assay.config import Settings, apply_overrides, load_settings
from assay.errors import InputError
from assay.events import Note
from assay.project import Project, find_root
from assay.writers.base import GenerateRequest
from assay.writers.offline.functions import changed_lines, functions_of
from assay.writers.offline.markers import marker_problem
from assay.writers.offline.model import OfflineReport, OfflineTarget
from assay.writers.offline.place import out_dir_rel, path_for, write_new
from assay.writers.offline.targets import dotted_of, targets_from
from assay.writers.offline.writer import OfflineWriter


def _since(project: Project, rev: str) -> list[OfflineTarget]:
    """Functions changed since `rev`: those whose lines a diff touches, in the project's
    source modules."""
    modules = set(project.modules.values())
    out = []
    for rel, lines in changed_lines(project.root, rev).items():
        if rel not in modules:
            continue
        text = (project.root / rel).read_text(encoding="utf-8")
        names = [f.name for f in functions_of(text) if lines & set(range(f.first, f.last + 1))]
        if names:
            out.append(OfflineTarget(rel, names, reason=f"changed since {rev}"))
    return out


def generate_offline(
    paths_or_targets: Sequence[str | Path | OfflineTarget] = (),
    settings: Settings | None = None,
    *,
    budget_s: float = 60.0,
    max_tests_per_function: int = 20,
    dry_run: bool = False,
    out_dir: Path | str | None = None,
    since: str | None = None,
    root: Path | str | None = None,
    config: Path | None = None,
    use_cache: bool = True,
    progress: Callable[[str], None] | None = None,
    crosshair: bool | None = None,
) -> OfflineReport:
    """Characterization tests for modules (files, directories, `file.py::function` or targets)
    and/or the functions changed since git revision `since`, each module within `budget_s`.
    `crosshair`: None uses CrossHair when the project's interpreter has it, False never.

    Accepted files are written next to the module's tests (or in `out_dir`), never over an existing
    file; with `dry_run` nothing is written (the report holds the text)."""
    start = time.monotonic()
    if budget_s <= 0:
        raise InputError("the budget must be positive")
    if max_tests_per_function < 1:
        raise InputError("at least one test per function")
    if not paths_or_targets and not since:
        raise InputError("no paths given (or --since REV)")
    first = next((p for p in paths_or_targets if isinstance(p, (str, Path))), None)
    if root is not None:
        root_path = Path(root).resolve()
    elif first is not None:
        path = Path(str(first).partition("::")[0])
        if not path.exists():
            raise InputError(f"no such file or directory: {path}")
        root_path = find_root(path)
    else:
        root_path = find_root(Path.cwd())
    settings = apply_overrides(settings or load_settings(root_path, config), None)
    project = Project.load(root_path)
    targets = targets_from(project, list(paths_or_targets))
    if since:
        targets += _since(project, since)
    report = OfflineReport([], dry_run=dry_run)
    if not targets:
        report.notes.append(f"no function changed since {since}" if since else "nothing to do")
    writer = OfflineWriter(
        project,
        settings,
        budget_s=budget_s,
        max_tests_per_function=max_tests_per_function,
        use_cache=use_cache,
        progress=progress,
        crosshair=crosshair,
    )
    directory = out_dir_rel(project, out_dir) if out_dir is not None else None
    problem = marker_problem(project.root)
    for target in targets:
        dotted = target.dotted or dotted_of(project, target.module)
        where = path_for(project, target.module, dotted, directory)
        result = writer.write(target, where)
        if result.text is not None and not dry_run:
            # the project's own pytest run would fail to collect the file
            if problem and problem[1]:
                result.notes.append(problem[0])
            else:
                write_new(project.root, where, result.text)
                result.written = True
        report.modules.append(result)
    if problem and not problem[1] and report.tests:
        report.notes.append(problem[0])
    report.duration_s = time.monotonic() - start
    return report


class OfflineSession:
    """The offline writer as `WRITERS` names it: Python modules only, no task (it pins what the
    code does)."""

    @classmethod
    def generate(cls, request: GenerateRequest) -> OfflineReport:
        conf = request.settings.generate
        paths = [s.split("::")[0] for s in request.specs]
        other = next(
            (s for s in paths if Path(s).suffix not in (".py", ".json", "") and Path(s).is_file()),
            None,
        )
        if other is not None:
            raise InputError(
                f"{other}: the offline writer writes Python "
                f"tests only; for other languages give a model "
                "writer (--writer provider:model, docs/languages.md)"
            )
        if request.task:
            raise InputError(
                "--task needs a model writer (--writer "
                "provider:model): the offline writer pins what "
                "the code does, it does not read a task"
            )
        on_event = request.on_event
        return generate_offline(
            list(request.specs),
            request.settings,
            budget_s=conf.budget_s,
            root=request.root,
            max_tests_per_function=conf.max_tests_per_function,
            dry_run=request.dry_run,
            out_dir=conf.output_dir,
            since=request.since,
            use_cache=request.use_cache,
            crosshair=request.crosshair,
            progress=(lambda line: on_event(Note(line))) if on_event else None,
        )
