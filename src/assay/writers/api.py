"""The library function of `assay generate`, re-exported by `assay.api`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.config import Settings
from assay.project import find_root, project_root, project_settings

if TYPE_CHECKING:
    from assay.events import ProgressEvent
    from assay.writers.base import WriterReport

EventSink = Callable[["ProgressEvent"], None]


def generate(
    specs: Sequence[str] = (),
    settings: Settings | None = None,
    *,
    root: Path | str | None = None,
    since: str | None = None,
    task: str | None = None,
    use_cache: bool = True,
    dry_run: bool = False,
    record: Path | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
    on_event: EventSink | None = None,
    crosshair: bool | None = None,
) -> WriterReport:
    """Write tests for `specs` (module paths, `mod.py::func`, targets JSON files) and/or the
    functions changed since `since`, with the writer `generate.writer` names; accepted tests are
    written unless `dry_run`. Returns a report of the writer's kind (`writers.WRITERS`): a
    `writers.report.GenerateReport` from the repair loop, an `writers.offline.OfflineReport` from
    the offline writer (the default: no model; `crosshair=False` leaves CrossHair out even when it
    is installed). Settings of note: `generate.writer`, `review.reviewer`, `generate.*`."""
    from assay.writers import DEFAULT_WRITER, writer_kind
    from assay.writers.base import GenerateRequest

    paths = [s.split("::")[0] for s in specs]
    root = project_root(paths, root) if paths or root else find_root(Path.cwd())
    settings = project_settings(root, settings, config, overrides)
    spec = settings.generate.writer or DEFAULT_WRITER
    request = GenerateRequest(
        root,
        settings,
        list(specs),
        spec,
        since,
        task,
        use_cache,
        dry_run,
        record,
        on_event,
        crosshair,
    )
    return writer_kind(spec).generate(request)
