"""The Typer app and what every command shares: one error funnel, consoles, progress. No logic
lives here."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Annotated, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.progress import Progress

from assay.cli.values import plain_values
from assay.errors import AssayError

# `-o FILE` of the commands that take `-f FORMAT[=FILE]`: the file of the one format given alone
OutputFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--output", "-o", metavar="FILE", help="file for the one --format given without a file"
    ),
]


# options every command that takes them spells alike
ConfigFile = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE", help="assay.toml or pyproject.toml to use (default: found in the root)"
    ),
]
RootDir = Annotated[
    Path | None,
    typer.Option(metavar="DIR", help="project root (default: found from the first path)"),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress lines on stderr")]


def _hide_argument_types() -> None:
    """Newer Typer prints an argument's Python type (`<list[Path]>`) beside its metavar; the metavar
    says it."""
    argument = getattr(getattr(typer, "core", None), "TyperArgument", None)
    if argument is not None and hasattr(argument, "display_type_rich"):
        argument.display_type_rich = lambda self, ctx: None


_hide_argument_types()
plain_values()
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Decide, with evidence, whether a test is worth keeping.",
)
T = TypeVar("T")


def _version(value: bool) -> None:
    if value:
        from assay.version import __version__

        typer.echo(f"assay {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="print assay's version and exit"
    ),
) -> None:
    """Decide, with evidence, whether a test is worth keeping."""


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
    """Run one library call: AssayErrors become one line and their exit code, anything else
    exit 3."""
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
def shown(progress: Progress, ticker: Ticker | None = None) -> Iterator[None]:
    """A progress display, on a terminal only: elsewhere it would leave blank lines in logs, and
    `ticker` prints its lines instead."""
    if progress.console.is_terminal:
        with progress:
            yield
    elif ticker is not None:
        with ticker:
            yield
    else:
        yield


# a log line at least every 5 s (issue 25): due every 4.5 s, so that a wake-up a busy machine
# delays by up to half a second still comes within 5 s (polled every 0.5 s, lines came 5.0-5.4 s
# apart at load 40)
PERIOD_S = 4.5
POLL_S = 0.5  # the longest the ticker sleeps: a line due sooner than that is written when due


class Ticker:
    """Progress in a log (stderr is not a terminal): the latest status of each piece of work in
    flight, printed as one line every `period` seconds while something is in flight, and not while
    the caller's own lines (`said`) come more often: a CI log neither floods nor goes silent."""

    def __init__(
        self,
        write: Callable[[str], None],
        period: float = PERIOD_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.period = period
        self.clock = clock
        self.status: dict[str, str] = {}
        self.since: dict[str, float] = {}  # when each piece of work in flight first said where
        self.last = clock()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def set(self, key: str, text: str) -> None:
        with self._lock:
            self.status[key] = text
            self.since.setdefault(key, self.clock())

    def clear(self, key: str) -> None:
        with self._lock:
            self.status.pop(key, None)
            self.since.pop(key, None)

    def said(self) -> None:
        """The caller printed a line of its own just now."""
        with self._lock:
            self.last = self.clock()

    def tick(self) -> None:
        with self._lock:
            now = self.clock()
            if not self.status or now - self.last < self.period:
                return
            self.last = now
            line = "; ".join(
                f"{text} ({now - self.since[key]:.0f} s)" for key, text in self.status.items()
            )
        self.write(line)

    def pause(self) -> float:
        """Seconds the ticker sleeps before it looks again: until the next line is due, at most
        `POLL_S` (a status may come meanwhile)."""
        with self._lock:
            left = self.last + self.period - self.clock()
        return min(POLL_S, max(0.01, left))

    def __enter__(self) -> Ticker:
        def loop() -> None:
            while not self._stop.wait(self.pause()):
                self.tick()

        self._thread = threading.Thread(target=loop, name="assay-ticker", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


@dataclass
class Outputs:
    """Where each requested format goes: files, at most one format on stdout, and whether the text
    view is printed to the terminal (it is, unless stdout carries another format)."""

    files: list[tuple[str, Path]]
    stdout: str | None
    terminal: bool


def plan_outputs(formats: list[str], outputs: list[Path], known: Iterable[str]) -> Outputs:
    """`-f FORMAT[=FILE]` (repeatable) and `-o FILE`: as many `-o` as formats without a file pair up
    in order; a single `-o` goes to the one format that is not the text view (text stays on the
    terminal). Usage errors for anything ambiguous."""
    known = list(known)
    pairs: list[tuple[str, Path | None]] = []
    for spec in formats or ["text"]:
        name, _, file = spec.partition("=")
        if name not in known:
            usage_error(f"unknown format '{name}' (choose from {', '.join(known)})")
        pairs.append((name, Path(file) if file else None))
    open_ = [i for i, (_, file) in enumerate(pairs) if file is None]
    if outputs and len(outputs) == len(open_):  # -f a -o A -f b -o B: in order
        for i, out in zip(open_, outputs, strict=True):
            pairs[i] = (pairs[i][0], out)
    # f text -f junit -o junit.xml: the one format that is not the terminal view
    elif len(outputs) == 1:
        data = [i for i in open_ if pairs[i][0] != "text"]
        if len(data) != 1:
            usage_error(
                "--output goes with one --format; with several, "
                "give each its file: -f junit=junit.xml"
            )
        pairs[data[0]] = (pairs[data[0]][0], outputs[0])
    elif outputs:
        usage_error(
            "more --output than formats to write; give each format its own file with -f FORMAT=FILE"
        )
    to_stdout = [name for name, file in pairs if file is None and name != "text"]
    if len(to_stdout) > 1:
        usage_error(
            f"only one format can go to stdout; give the others a file: -f {to_stdout[1]}=FILE"
        )
    files = [(name, file) for name, file in pairs if file is not None]
    for _, path in files:
        check_writable(path)
    return Outputs(files, to_stdout[0] if to_stdout else None, terminal=not to_stdout)


def check_writable(path: Path) -> None:
    """Before any work starts: a report file that cannot be written is a usage error now, not
    after a run of minutes whose report would then be lost."""
    folder = path.parent
    if path.is_dir():
        usage_error(f"cannot write {path}: it is a directory")
    if not folder.is_dir():
        usage_error(f"cannot write {path}: no directory {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        usage_error(f"cannot write {path}: permission denied")


def writable(path: Path | None) -> Path | None:
    """Option callback of a single `-o FILE`: checked when the command line is read."""
    if path is not None:
        check_writable(path)
    return path


def terminal() -> Console:
    """Stdout console; when not a terminal, 120 columns (so piped tables do not fold) unless
    COLUMNS says."""
    console = Console()
    if console.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return console
    return Console(width=max(console.width, 120))


def write(text: str, output: Path | None) -> None:
    """A report to a file, or to stdout."""
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write {output}: {err.strerror}")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C so that workspaces are removed before
    assay exits."""


_stopped_by: int | None = None  # the signal that stopped the command, if one did


def _on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    global _stopped_by
    _stopped_by = signum
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def interrupted_code() -> int:
    """130 after Ctrl-C, 143 after SIGTERM (128 + the signal), as shells report them."""
    return 143 if _stopped_by == signal.SIGTERM else 130


def main() -> None:
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
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
        code = 130
    if _stopped_by is not None:  # Typer turns KeyboardInterrupt into exit code 130 without a word
        if code in (130, 143):
            typer.echo("assay: interrupted", err=True)
        sys.exit(interrupted_code())
    sys.exit(code if isinstance(code, int) else 0)


def _click_exceptions(name: str) -> tuple[type[BaseException], ...]:
    """Click's exception class `name` as the Typer installed raises it: vendored in newer Typer
    releases (`typer._click`, whose `Abort` is `typer.exceptions`'), the `click` package in older
    ones. The first module that has it: a vendoring Typer never raises the `click` package's, and
    importing that package (another dependency installs it) cost every command 0.01 s CPU."""
    for module in ("typer._click.exceptions", "typer.exceptions", "click.exceptions"):
        try:
            return (getattr(importlib.import_module(module), name),)
        except (ImportError, AttributeError):
            continue
    return ()
