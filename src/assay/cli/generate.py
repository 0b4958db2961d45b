"""`assay generate`: tests written by a model, kept only when they pass every gate (and
the review)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay import api
from assay.cli.app import (
    ConfigFile,
    OutputFiles,
    Outputs,
    Quiet,
    app,
    call,
    plan_outputs,
    shown,
    terminal,
    usage_error,
    write,
)
from assay.events import Note, ProgressEvent, Started, TargetDone
from assay.report import WRITER_FORMATS, WRITER_PRESENTERS
from assay.sprint.render import SPRINT_FORMATS

# every writer's
FORMATS = list(dict.fromkeys(f for formats in WRITER_FORMATS.values() for f in formats))

if TYPE_CHECKING:
    from assay.sprint.run import SprintReport
    from assay.writers.base import WriterReport

_BUDGET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$")


def parse_budget(text: str) -> float:
    """`60s`, `2m`, `90` (seconds), `1h` -> seconds; a usage error otherwise."""
    m = _BUDGET.match(text)
    if not m or float(m.group(1)) <= 0:
        usage_error(f"--budget: expected a positive time such as 60s or 2m, got {text!r}")
    unit = {"m": 60, "min": 60, "h": 3600}.get(m.group(2) or "s", 1)
    return float(m.group(1)) * unit


def _progress(quiet: bool) -> tuple[Progress, api.EventSink]:
    progress = Progress(
        TextColumn("[bold]generating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("accepted {task.fields[kept]} tests · {task.fields[tokens]} tokens"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("generating", total=None, kept=0, tokens="0")
    kept = [0]

    def on_event(event: ProgressEvent) -> None:
        if isinstance(event, Note):
            if not quiet:
                print(f"generate: {event.text}", file=sys.stderr, flush=True)
        elif isinstance(event, Started):
            progress.update(task, total=event.total)
        elif isinstance(event, TargetDone):
            kept[0] += event.kept
            progress.update(task, advance=1, kept=kept[0], tokens=f"{event.tokens:,}")

    return progress, on_event


@app.command()
def generate(
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            help="module (src/pkg/mod.py), function (mod.py::func[,func]) or targets JSON file"
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="also the functions changed since this git revision")
    ] = None,
    task: Annotated[
        str | None, typer.Option(help="what the tests are for, e.g. 'SHOP-123: ...'")
    ] = None,
    task_file: Annotated[Path | None, typer.Option(help="read the task from this file")] = None,
    writer: Annotated[
        str | None,
        typer.Option(
            help="provider:model that writes (openai, anthropic, command, "
            "replay), or offline (the default: no model)"
        ),
    ] = None,
    budget: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="offline writer: time per module (60s, 2m), of an idle machine: longer under load",
        ),
    ] = None,
    max_tests: Annotated[
        int | None, typer.Option(metavar="N", help="offline writer: tests per function")
    ] = None,
    no_crosshair: Annotated[
        bool,
        typer.Option("--no-crosshair", help="offline writer: no CrossHair even when installed"),
    ] = False,
    quiet: Quiet = False,
    reviewer: Annotated[str | None, typer.Option(help="provider:model of gate 6 (review)")] = None,
    max_attempts: Annotated[
        int | None, typer.Option(help="writer answers per target (default 3)")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="stop after this many tokens")] = None,
    max_cost: Annotated[
        float | None, typer.Option(help="stop after this cost in USD (needs prices)")
    ] = None,
    jobs: Annotated[int | None, typer.Option(help="targets in flight at once")] = None,
    output_dir: Annotated[
        Path | None,
        typer.Option(help="where accepted tests go (default: beside the module's tests)"),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="write nothing, report what would be")
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="ask the model again; re-run the gates")
    ] = False,
    record: Annotated[
        Path | None,
        typer.Option(help="write every model answer to this JSONL file (for replay:FILE)"),
    ] = None,
    format: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT[=FILE]",
            help=f"{', '.join(FORMATS)} (offline: text, json); repeatable, each to its own FILE",
        ),
    ] = None,
    output: OutputFiles = None,
    root: Annotated[
        Path | None, typer.Option(help="project root (default: found from the first target)")
    ] = None,
    config: ConfigFile = None,
    timeout: Annotated[
        float | None, typer.Option(help="wall timeout of one test run, seconds")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT",
            help="model writers: verify each attempt on this Dask cluster's workers "
            "(the offline writer runs here)",
        ),
    ] = None,
    sprint: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="tests for each core task of this sprint (with --tracker)"
        ),
    ] = None,
    tracker: Annotated[
        str | None, typer.Option(metavar="SPEC", help="--sprint: where its tasks are (see tasks)")
    ] = None,
    range: Annotated[
        str, typer.Option("--range", metavar="REVS", help="--sprint: git revisions of its commits")
    ] = "HEAD",
    branch: Annotated[
        str | None, typer.Option(help="--sprint: the new branch (default assay/sprint-NAME)")
    ] = None,
    mr_file: Annotated[
        Path | None, typer.Option(help="--sprint: write the merge-request description here")
    ] = None,
    open_mr: Annotated[
        bool, typer.Option("--open-mr", help="--sprint: open the merge request with gh/glab")
    ] = False,
    docs_debt_days: Annotated[
        int, typer.Option(help="--sprint: withhold docstrings older than their code by this")
    ] = 180,
) -> None:
    """Write tests - with a model, or with no model by the offline writer (the default:
    mutant-killing characterization tests); keep only those that pass every gate, and say why for
    the rest."""
    plan = plan_outputs(format or ["text"], output or [], FORMATS)
    if task is not None and task_file is not None:
        usage_error("give --task or --task-file, not both")
    if task_file is not None:
        try:
            task = task_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            usage_error(f"cannot read --task-file {task_file}: {err}")
    if sprint is not None or tracker is not None:
        if not (sprint and tracker):
            usage_error("--sprint and --tracker go together")
        if targets or since or task:
            usage_error("--sprint chooses the targets and the task: drop TARGETS, --since, --task")
        if docs_debt_days < 0:
            usage_error("--docs-debt-days must be 0 or more")
    progress, on_event = _progress(quiet)
    overrides = {
        "generate.writer": writer,
        "generate.budget_s": parse_budget(budget) if budget else None,
        "generate.max_tests_per_function": max_tests,
        "review.reviewer": reviewer,
        "generate.max_attempts": max_attempts,
        "generate.max_tokens": max_tokens,
        "generate.max_cost": max_cost,
        "generate.jobs": jobs,
        "generate.output_dir": str(output_dir) if output_dir else None,
        "sandbox.timeout_s": timeout,
        "scheduler": scheduler,
    }

    if sprint and tracker:
        _sprint(plan, sprint, tracker, range, branch, mr_file, open_mr, docs_debt_days,
                no_cache, record, config, overrides, on_event, progress)  # fmt: skip

    def run() -> WriterReport:
        with shown(progress):
            return api.generate(
                targets or [],
                root=root,
                since=since,
                task=task,
                use_cache=not no_cache,
                dry_run=dry_run,
                record=record,
                config=config,
                overrides=overrides,
                on_event=on_event,
                crosshair=False if no_crosshair else None,
            )

    report = call(run)
    formats = WRITER_FORMATS[report.kind]
    for name in [plan.stdout, *(name for name, _ in plan.files)]:
        if name is not None and name not in formats:
            usage_error(f"{report.written_by} reports as {' or '.join(formats)}, not {name}")
    # the text view on the terminal, or the one format that goes to stdout; then the files
    WRITER_PRESENTERS[report.kind](report, plan.stdout or "text", None, write, terminal)
    for name, file in plan.files:
        write(formats[name](report), file)
    raise typer.Exit(report.exit_code)


def _sprint(
    plan: Outputs,
    sprint: str,
    tracker: str,
    revs: str,
    branch: str | None,
    mr_file: Path | None,
    open_mr: bool,
    docs_debt_days: int,
    no_cache: bool,
    record: Path | None,
    config: Path | None,
    overrides: dict[str, Any],
    on_event: api.EventSink,
    progress: Progress,
) -> NoReturn:
    """`generate --sprint`: the sprint report (text, json) instead of the writer's."""
    for name in [plan.stdout, *(name for name, _ in plan.files)]:
        if name is not None and name not in SPRINT_FORMATS:
            usage_error(f"--sprint reports as text or json, not {name}")

    def run() -> SprintReport:
        with shown(progress):
            return api.generate_sprint(
                tracker,
                sprint,
                rev_range=revs,
                branch=branch,
                mr_file=mr_file,
                open_mr=open_mr,
                docs_debt_days=docs_debt_days,
                use_cache=not no_cache,
                record=record,
                config=config,
                overrides=overrides,
                on_event=on_event,
            )

    report = call(run)
    write(SPRINT_FORMATS[plan.stdout or "text"](report), None)
    for name, file in plan.files:
        write(SPRINT_FORMATS[name](report), file)
    raise typer.Exit(report.exit_code)
