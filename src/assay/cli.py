"""The `assay` command: a thin Typer shell over the library."""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay.config import ConfigError, load_settings
from assay.project import InputError, find_root

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Decide, with evidence, whether a test is worth keeping.")

# Modules that add their own sub-commands to `app` when imported.
COMMAND_MODULES: tuple[str, ...] = ("assay.cli_mutate", "assay.cli_smells")


def usage_error(message: str) -> NoReturn:
    """Bad input: one clear line on stderr, exit code 2."""
    typer.echo(f"assay: error: {message}", err=True)
    raise typer.Exit(2)


def internal_error(err: BaseException) -> NoReturn:
    """Our bug: one line plus where the traceback went, exit code 3."""
    log = Path(tempfile.gettempdir()) / "assay-last-error.log"
    log.write_text("".join(traceback.format_exception(err)))
    typer.echo(f"assay: internal error: {type(err).__name__}: {err} (traceback in {log})", err=True)
    raise typer.Exit(3)


def terminal() -> Console:
    """Stdout console; at least 120 columns wide when not a terminal, so piped tables do not fold."""
    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 120))


def demo_project() -> Path:
    """The bundled example: inside the wheel, or in the source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_examples" / "shop", here.parent.parent / "examples" / "shop"):
        if (candidate / "pyproject.toml").is_file():
            return candidate
    raise InputError("the bundled example project is missing from this installation")


def _write_outputs(report, formats: list[str], outputs: list[Path]) -> None:
    from assay.report import VERIFY_FORMATS
    from assay.report.text import print_report

    console = terminal()
    if not any(f != "text" or i < len(outputs) for i, f in enumerate(formats)) or len(outputs) >= len(formats):
        print_report(console, report)
    for i, fmt in enumerate(formats):
        if i < len(outputs):
            outputs[i].write_text(VERIFY_FORMATS[fmt](report), encoding="utf-8")
            console.print(f"[dim]{fmt} report written to {outputs[i]}[/dim]")
        elif fmt != "text":
            sys.stdout.write(VERIFY_FORMATS[fmt](report))


def _run_verify(paths: list[Path], root: Path | None, targets: list[Path], use_cache: bool,
                config: Path | None, jobs: int | None, timeout: float | None):
    from assay.pipeline import verify as verify_api

    missing = [p for p in paths if not p.exists()]
    if missing:
        raise InputError(f"no such file or directory: {missing[0]}")
    root = (root or find_root(paths[0])).resolve() if paths else root
    if root is None:
        raise InputError("no paths given")
    settings = load_settings(root, config)
    if jobs is not None:
        settings.jobs = jobs
    if timeout is not None:
        settings.sandbox.timeout_s = timeout
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[current]}"), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
    task = progress.add_task("verifying", total=None, current="")

    def on_event(event: str, file: str, detail: str) -> None:
        if event == "start":
            progress.update(task, total=int(file))
        elif event == "gate":
            progress.update(task, current=f"{file}: {detail}")
        elif event == "done":
            progress.advance(task)

    with progress:
        return verify_api(paths, settings, root=root, targets=targets or None, use_cache=use_cache,
                          on_event=on_event)


@app.command()
def verify(
    paths: Annotated[list[Path], typer.Argument(help="test files or directories")],
    root: Annotated[Path | None, typer.Option(help="project root (default: found from the first path)")] = None,
    target: Annotated[list[Path] | None, typer.Option(help="source file under test (repeatable)")] = None,
    format: Annotated[list[str] | None, typer.Option("--format", "-f",
                                                     help="text, json, junit, markdown (repeatable)")] = None,
    output: Annotated[list[Path] | None, typer.Option("--output", "-o",
                                                      help="file for the matching --format")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    config: Annotated[Path | None, typer.Option(help="assay.toml or pyproject.toml to use")] = None,
    jobs: Annotated[int | None, typer.Option(help="files verified at once")] = None,
    timeout: Annotated[float | None, typer.Option(help="wall timeout of one test run, seconds")] = None,
) -> None:
    """Put test files through the gates and give a verdict per file and per test."""
    from assay.report import VERIFY_FORMATS

    formats = format or ["text"]
    outputs = output or []
    bad = [f for f in formats if f not in VERIFY_FORMATS]
    if bad:
        usage_error(f"unknown format '{bad[0]}' (choose from {', '.join(VERIFY_FORMATS)})")
    if len(outputs) > len(formats):
        usage_error("more --output than --format options")
    try:
        report = _run_verify(paths, root, target or [], not no_cache, config, jobs, timeout)
        _write_outputs(report, formats, outputs)
    except (InputError, ConfigError) as err:
        usage_error(str(err))
    except OSError as err:
        usage_error(str(err))
    except Exception as err:  # noqa: BLE001 - the last line of defence: exit 3, never a traceback
        internal_error(err)
    raise typer.Exit(report.exit_code)


@app.command()
def demo(
    keep: Annotated[bool, typer.Option(help="keep the temp copy and print its path")] = False,
) -> None:
    """Verify the bundled example project (a copy in a temp dir) and print the verdict table."""
    from assay.report.text import print_report

    try:
        source = demo_project()
    except InputError as err:
        usage_error(str(err))
    tmp = Path(tempfile.mkdtemp(prefix="assay-demo-"))
    project = tmp / "shop"
    shutil.copytree(source, project, ignore=shutil.ignore_patterns("__pycache__", ".assay", ".pytest_cache"))
    try:
        report = _run_verify([project / "tests"], project, [], True, None, None, None)
        console = terminal()
        print_report(console, report)
        surprises = demo_surprises(report, project / "assay-expected.toml")
        for line in surprises:
            console.print(f"[red]unexpected:[/red] {line}")
        if not surprises:
            console.print(f"demo: all {len(report.files)} example verdicts as expected")
    except (InputError, ConfigError) as err:
        usage_error(str(err))
    except Exception as err:  # noqa: BLE001
        internal_error(err)
    finally:
        if keep:
            typer.echo(f"example project kept at {project}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    raise typer.Exit(1 if surprises else 0)


def demo_surprises(report, expected_file: Path) -> list[str]:
    """Example files whose verdict (or deciding gate) differs from what the example project expects."""
    from assay.config import tomllib

    expected = tomllib.loads(expected_file.read_text())["verdicts"]
    seen = {f.path: f.verdict.value + (f"@{f.rejected_at}" if f.rejected_at else "") for f in report.files}
    out = []
    for path, want in expected.items():
        got = seen.get(path, "missing")
        if got != want and got.split("@")[0] != want:
            out.append(f"{path}: expected {want}, got {got}")
    return out


def main() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name)
    usage, abort = _click_exceptions("UsageError"), (KeyboardInterrupt, *_click_exceptions("Abort"))
    try:
        code = app(standalone_mode=False)
    except usage as err:  # wrong options or arguments: one line, like every other input error
        command = err.ctx.command_path if getattr(err, "ctx", None) else "assay"
        if err.format_message():  # empty when the help was shown for a bare command
            typer.echo(f"assay: error: {err.format_message()} (see '{command} --help')", err=True)
        sys.exit(2)
    except abort:
        typer.echo("assay: interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def _click_exceptions(name: str) -> tuple[type[BaseException], ...]:
    """Click's exception class `name`: vendored inside newer Typer releases, the `click` package in older ones."""
    found = []
    for module in ("typer._click.exceptions", "click.exceptions"):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)
