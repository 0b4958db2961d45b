"""The Typer app and what every command shares: one error funnel, consoles, progress. No logic lives here."""

from __future__ import annotations

import contextlib
import importlib
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn, TypeVar

import typer
from rich.console import Console
from rich.progress import Progress

from assay.errors import AssayError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Decide, with evidence, whether a test is worth keeping.")
T = TypeVar("T")


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


def call(fn: Callable[[], T]) -> T:
    """Run one library call: AssayErrors become one line and their exit code, anything else exit 3."""
    try:
        return fn()
    except typer.Exit:
        raise
    except AssayError as err:
        prefix = "assay: error: " if err.exit_code == 2 else "assay: "
        typer.echo(f"{prefix}{err}", err=True)
        raise typer.Exit(err.exit_code) from None
    except OSError as err:
        usage_error(str(err))
    except Exception as err:  # noqa: BLE001 - the last line of defence: exit 3, never a traceback
        internal_error(err)


@contextlib.contextmanager
def shown(progress: Progress) -> Iterator[None]:
    """A progress display, on a terminal only: elsewhere it would leave blank lines in logs."""
    if progress.console.is_terminal:
        with progress:
            yield
    else:
        yield


def terminal() -> Console:
    """Stdout console; at least 120 columns wide when not a terminal, so piped tables do not fold."""
    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 120))


def write(text: str, output: Path | None) -> None:
    """A report to a file, or to stdout."""
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write {output}: {err.strerror}")


def main() -> None:
    usage = _click_exceptions("UsageError")
    abort: tuple[type[BaseException], ...] = (KeyboardInterrupt, *_click_exceptions("Abort"))
    try:
        code = app(standalone_mode=False)
    except usage as err:  # wrong options or arguments: one line, like every other input error
        ctx = getattr(err, "ctx", None)
        command = ctx.command_path if ctx is not None else "assay"
        message = err.format_message()  # type: ignore[attr-defined]
        if message:  # empty when the help was shown for a bare command
            typer.echo(f"assay: error: {message} (see '{command} --help')", err=True)
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
