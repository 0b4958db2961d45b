"""`assay generate -f text`: one line per target, what was kept and where, why the rest was not,
the totals."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assay.words import counted

STYLE = {
    "accepted": "green",
    "partial": "yellow",
    "rejected": "red",
    "flaky": "magenta",
    "budget": "blue",
    "unvalidated": "yellow",
    "error": "red",
}


def print_report(console: Console, report: Any) -> None:
    title = (
        f"assay generate — {report.root} (writer {report.writer}"
        + (f", reviewer {report.reviewer})" if report.reviewer else ")")
        + (" — dry run" if report.dry_run else "")
    )
    table = Table(title=title, title_justify="left")
    for col, just in (
        ("target", "left"),
        ("outcome", "left"),
        ("tests", "right"),
        ("answers", "right"),
        ("tokens", "right"),
        ("file", "left"),
    ):
        table.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for t in report.targets:
        table.add_row(
            t.target.id,
            Text(t.outcome, style=STYLE.get(t.outcome, "")),
            str(len(t.kept_tests)),
            str(t.writer_attempts),
            f"{t.tokens:,}",
            (t.output or "") if t.kept_tests or t.source else "",
        )
    console.print(table)
    for t in report.targets:
        if t.note:
            console.print(Text(f"{t.target.id}: {t.note}", style="dim"), soft_wrap=True)
        for d in t.dropped:
            console.print(
                Text(f"  dropped {d.test} ({d.verdict} at {d.gate}): {d.reason}", style="dim"),
                soft_wrap=True,
            )
        for b in t.suspected_bugs:
            console.print(
                Text(f"  suspected bug: {b.test}: {b.reason}", style="yellow"), soft_wrap=True
            )
    s = report.summary()
    cost = f", ${s['cost']:.4f}" if s["cost"] is not None else ""
    per = f" ({s['tokens_per_kept_test']:,} per kept test)" if s["tokens_per_kept_test"] else ""
    console.print(
        Text(
            f"\n{counted(s['targets'], 'target')}: {s['accepted']} accepted, "
            f"{s['partial']} partial, {s['rejected']} rejected, "
            f"{s['flaky']} flaky, {s['budget']} stopped by budget, "
            + (f"{s['unvalidated']} unvalidated, " if s["unvalidated"] else "")
            + f"{counted(s['error'], 'error')}; {counted(s['tests_kept'], 'test')} kept "
            f"from {counted(s['writer_attempts'], 'answer')}; "
            f"{s['tokens']:,} tokens{per}{cost}; {s['duration_s']:.1f} s",
            style="bold",
        )
    )
    if s["suspected_bugs"]:
        where = f" (see {', '.join(report.bugs_files)})" if report.bugs_files else ""
        console.print(
            Text(f"{counted(s['suspected_bugs'], 'suspected bug')}{where}", style="yellow")
        )
    if report.stopped:
        console.print(Text(f"run stopped: {report.stopped}", style="yellow"), soft_wrap=True)
    for note in report.notes:
        console.print(Text(note, style="yellow"), soft_wrap=True)


def render(report: Any, width: int = 120) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_report(console, report)
    return console.export_text()


def present(
    report: Any,
    format: str,
    output: Path | None,
    write: Callable[[str, Path | None], None],
    console: Callable[[], Console],
) -> None:
    """The table on the terminal (in text, or beside a file written in another format), the report
    in `format` to `output` or stdout, and a fatal stop in one line on stderr."""
    from assay.report import GENERATE_FORMATS

    if format == "text" or output is not None:
        print_report(console(), report)
    if format != "text" or output is not None:
        write(GENERATE_FORMATS[format](report), output)
    if report.fatal:
        print(f"assay: error: {report.stopped}", file=sys.stderr)
