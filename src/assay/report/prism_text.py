"""`assay prism` as text: the per-task table, the aggregate by category and language, then what to
look at (invalid tasks, over-fitting tests, faulty members no test catches, flaky tasks). Also
`check` and `build`."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TypeVar

from rich.console import Console
from rich.table import Table

from assay.prism.model import BuildReport, CheckReport, PrismReport, TaskResult

R = TypeVar("R", PrismReport, CheckReport, BuildReport)

COLUMNS = ("fails_original", "rar", "var", "irr", "jsf", "h", "change_coverage", "entry_coverage")


def num(value: object) -> str:
    """A metric for people: 1, 0, 0.67; '—' when undefined."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return (
            f"{value:.2f}".rstrip("0").rstrip(".") if value not in (0.0, 1.0) else str(int(value))
        )
    return str(value)


def _ratio(d: dict | None) -> float | None:
    return None if d is None else d["ratio"]


def task_row(t: TaskResult) -> list[str]:
    m = t.metrics
    if m is None:
        return [t.id, t.category, t.language, t.status, "", "", "", "", "", "", "", ""]
    return [
        t.id,
        t.category,
        t.language,
        t.status,
        num(m.fails_original),
        num(m.rar),
        num(m.var),
        num(m.irr),
        num(m.jsf),
        num(_ratio(t.change_coverage)),
        num(_ratio(t.entry_coverage)),
        "yes" if t.flaky else "",
    ]


TASK_HEADER = [
    "task",
    "category",
    "language",
    "status",
    "fails orig",
    "RAR",
    "VAR",
    "IRR",
    "JSF",
    "change cov",
    "entry cov",
    "flaky",
]
SUMMARY_HEADER = [
    "tasks",
    "evaluated",
    "fails orig",
    "RAR",
    "VAR",
    "IRR",
    "JSF",
    "H",
    "change cov",
    "entry cov",
]


def summary_row(name: str, s: dict) -> list[str]:
    return [name, str(s["tasks"]), str(s["evaluated"]), *(num(s[k]) for k in COLUMNS)]


def findings(report: PrismReport) -> list[str]:
    """One line per thing a reader should act on."""
    lines = []
    for t in report.tasks:
        if t.writer is not None:
            w = t.writer
            lines.append(
                f"{t.id}: suite by {w['writer']}: {w['calls']} call(s), {w['tokens']:,} tokens"
                + (" (estimated)" if w["estimated"] else "")
            )
        if not t.evaluated:
            lines.append(f"{t.id}: {t.status}: {t.reason}")
            continue
        if t.flaky:
            which = f" (tests: {', '.join(t.flaky_tests[:5])})" if t.flaky_tests else ""
            runs = next((m.runs for m in t.members if m.role == "reference"), [])
            lines.append(f"{t.id}: flaky: the reference runs disagree ({runs}){which}")
        if t.metrics is not None and not t.metrics.fails_original:
            lines.append(
                f"{t.id}: the suite passes on original/: it does not detect the missing change"
            )
        for test, members in t.overfitting_tests().items():
            lines.append(f"{t.id}: over-fits: {test} fails on {', '.join(members)}")
        for name in t.uncaught_faulty():
            lines.append(f"{t.id}: no test catches {name}")
    return lines


def print_report(console: Console, report: PrismReport) -> None:
    table = Table(title="assay prism", title_justify="left")
    for i, head in enumerate(TASK_HEADER):
        table.add_column(head, no_wrap=i < 4, overflow="fold")
    for t in report.tasks:
        table.add_row(*task_row(t))
    console.print(table)
    summary = Table(title="aggregate", title_justify="left")
    for i, head in enumerate(["", *SUMMARY_HEADER]):
        summary.add_column(head, no_wrap=i == 0)
    summary.add_row(*summary_row("all", report.aggregate))
    for attr, label in (("category", "category"), ("language", "language")):
        for key, s in report.by(attr).items():
            summary.add_row(*summary_row(f"{label} {key}", s))
    console.print(summary)
    for line in findings(report):
        console.print(f"- {line}", highlight=False, markup=False, soft_wrap=True)
    runs = report.runs
    where = report.executor.get("kind", "?") + (
        f", {report.executor['workers']} workers" if "workers" in report.executor else ""
    )
    console.print(
        f"{runs.get('total', 0)} runs ({runs.get('cached', 0)} from the cache) on {where} in "
        f"{report.duration_s:.1f}s",
        highlight=False,
    )
    for note in report.notes:
        console.print(f"note: {note}", highlight=False, markup=False)


def _render(fn: Callable[[Console, R], None], report: R, width: int = 140) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    fn(console, report)
    return console.export_text()


def render(report: PrismReport) -> str:
    return _render(print_report, report)


def print_check(console: Console, report: CheckReport) -> None:
    for t in report.tasks:
        console.print(
            f"{t.id}: {t.status}" + (f" — {t.reason}" if t.reason else ""),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        for fault in t.faults:
            console.print(f"  - {fault}", highlight=False, markup=False, soft_wrap=True)
    counts: dict[str, int] = {}
    for t in report.tasks:
        counts[t.status] = counts.get(t.status, 0) + 1
    console.print(
        ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        + f" — {report.runs.get('total', 0)} runs ({report.runs.get('cached', 0)} cached) in "
        f"{report.duration_s:.1f}s",
        highlight=False,
    )


def render_check(report: CheckReport) -> str:
    return _render(print_check, report)


def print_build(console: Console, report: BuildReport) -> None:
    console.print(
        f"{report.task}: {len(report.added)} of {report.wanted} faulty members added "
        f"({report.killed} of {report.candidates} mutants killed by the validator)",
        highlight=False,
    )
    for m in report.added:
        console.print(
            f"  {m.path}: {m.file}:{m.line} `{m.before}` → `{m.after}`; fails "
            f"{', '.join(m.failing[:4])}" + (" …" if len(m.failing) > 4 else ""),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


def render_build(report: BuildReport) -> str:
    return _render(print_build, report)
