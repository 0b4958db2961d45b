"""`assay prism run|check|build`: judge test suites against panels of correct and
faulty implementations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay import api
from assay.cli.app import app, call, shown, terminal, usage_error, writable, write
from assay.prism.model import BuildReport, CheckReport, PrismEvent, PrismReport, UnitsPlanned
from assay.report import PRISM_BUILD_FORMATS, PRISM_CHECK_FORMATS, PRISM_FORMATS

prism_app = typer.Typer(
    no_args_is_help=True,
    help="Judge test suites against panels of correct and faulty "
    "implementations (RAR, VAR, IRR, JSF).",
)
app.add_typer(prism_app, name="prism")

Workers = Annotated[
    int | None, typer.Option(help="runs at once on the local executor (default: cores)")
]
ExecutorOpt = Annotated[str, typer.Option("--executor", help="local | threads | dask")]
Scheduler = Annotated[str | None, typer.Option(help="Dask scheduler address, tcp://HOST:PORT")]
State = Annotated[
    Path | None, typer.Option(help="where .assay/assay.db keeps finished runs (default: .)")
]
NoCache = Annotated[bool, typer.Option("--no-cache", help="run everything again; keep nothing")]
Output = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="write the report here", callback=writable),
]


def _progress() -> tuple[Progress, Any]:
    progress = Progress(
        TextColumn("[bold]prism"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[current]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    bar = progress.add_task("prism", total=None, current="")

    def on_event(ev: PrismEvent) -> None:
        if isinstance(ev, UnitsPlanned):
            progress.update(bar, total=ev.total, completed=ev.cached)
        else:
            progress.update(bar, advance=1, current=f"{ev.task}: {ev.member}")

    return progress, on_event


def _check_options(
    format: str, formats: dict, workers: int | None, executor: str, scheduler: str | None
) -> None:
    if format not in formats:
        usage_error(f"unknown format '{format}' (one of: {', '.join(formats)})")
    if workers is not None and workers < 1:
        usage_error("--workers must be at least 1")
    if executor not in ("local", "threads", "dask"):
        usage_error(f"unknown executor '{executor}' (local, threads or dask)")
    if executor == "dask" and not scheduler:
        usage_error("--executor dask needs --scheduler tcp://HOST:PORT")


def _emit(text: str, format: str, output: Path | None) -> None:
    write(text, output)
    if output is not None:
        Console(stderr=True).print(f"[dim]{format} report written to {output}[/dim]")


@prism_app.command("run")
def run(
    path: Annotated[Path, typer.Argument(help="a benchmark (directory of tasks) or one task")],
    suites: Annotated[
        Path | None, typer.Option(help="SUITES/<task-id>/ holds each task's suite")
    ] = None,
    suite: Annotated[Path | None, typer.Option(help="the suite of a single task")] = None,
    format: Annotated[str, typer.Option("--format", "-f", help=" | ".join(PRISM_FORMATS))] = "text",
    output: Output = None,
    workers: Workers = None,
    executor: ExecutorOpt = "local",
    scheduler: Scheduler = None,
    state: State = None,
    no_cache: NoCache = False,
    writer: Annotated[
        str | None,
        typer.Option(
            metavar="PROVIDER:MODEL",
            help="write each task's suite from its instruction and original/ first",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(metavar="DIR", help="where --writer keeps the suites it wrote")
    ] = None,
) -> None:
    """Run each task's suite on every panel member and report RAR, VAR, IRR, JSF, H and coverage."""
    _check_options(format, PRISM_FORMATS, workers, executor, scheduler)
    if writer is not None and (suites is not None or suite is not None):
        usage_error("--writer writes the suites: give --out DIR, not --suites/--suite")
    progress, on_event = _progress()

    def go() -> PrismReport:
        with shown(progress):
            return api.prism_run(
                path,
                suites,
                suite=suite,
                executor=executor,
                workers=workers,
                scheduler=scheduler,
                state=state,
                use_cache=not no_cache,
                on_event=on_event,
                writer=writer,
                out=out,
            )

    report = call(go)
    if format == "text" and output is None:
        from assay.report.prism_text import print_report

        print_report(terminal(), report)
    else:
        for t in report.tasks:
            if not t.evaluated:
                typer.echo(f"assay: {t.id}: {t.status}: {t.reason}", err=True)
        _emit(PRISM_FORMATS[format](report), format, output)
    raise typer.Exit(report.exit_code)


@prism_app.command("check")
def check(
    path: Annotated[Path, typer.Argument(help="a benchmark (directory of tasks) or one task")],
    format: Annotated[
        str, typer.Option("--format", "-f", help=" | ".join(PRISM_CHECK_FORMATS))
    ] = "text",
    output: Output = None,
    workers: Workers = None,
    executor: ExecutorOpt = "local",
    scheduler: Scheduler = None,
    state: State = None,
    no_cache: NoCache = False,
) -> None:
    """Validate tasks: layout, patches, and that the validator agrees with every panel label."""
    _check_options(format, PRISM_CHECK_FORMATS, workers, executor, scheduler)
    progress, on_event = _progress()

    def go() -> CheckReport:
        with shown(progress):
            return api.prism_check(
                path,
                executor=executor,
                workers=workers,
                scheduler=scheduler,
                state=state,
                use_cache=not no_cache,
                on_event=on_event,
            )

    report = call(go)
    _emit(PRISM_CHECK_FORMATS[format](report), format, output)
    raise typer.Exit(report.exit_code)


@prism_app.command("build")
def build(
    path: Annotated[Path, typer.Argument(help="one task")],
    faulty_from_mutants: Annotated[
        int, typer.Option(help="faulty members to add, made from mutants")
    ],
    format: Annotated[
        str, typer.Option("--format", "-f", help=" | ".join(PRISM_BUILD_FORMATS))
    ] = "text",
    output: Output = None,
    limit: Annotated[
        int | None, typer.Option(help="mutants to try at most (default: 4 N, at least 12)")
    ] = None,
    workers: Workers = None,
    executor: ExecutorOpt = "local",
    scheduler: Scheduler = None,
    state: State = None,
    no_cache: NoCache = False,
) -> None:
    """Add faulty implementations made from mutants of the reference's change that the
    validator kills."""
    _check_options(format, PRISM_BUILD_FORMATS, workers, executor, scheduler)
    if faulty_from_mutants < 1:
        usage_error("--faulty-from-mutants must be at least 1")
    if limit is not None and limit < 1:
        usage_error("--limit must be at least 1")
    progress, on_event = _progress()

    def go() -> BuildReport:
        with shown(progress):
            return api.prism_build(
                path,
                faulty_from_mutants,
                executor=executor,
                workers=workers,
                scheduler=scheduler,
                state=state,
                use_cache=not no_cache,
                limit=limit,
                on_event=on_event,
            )

    report = call(go)
    _emit(PRISM_BUILD_FORMATS[format](report), format, output)
    raise typer.Exit(report.exit_code)
