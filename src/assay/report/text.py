"""The default view: a Rich table of files × gates, then the feedback of every file not accepted."""

from __future__ import annotations

import io
from collections import Counter

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from assay.model import GATE_ORDER, GateResult, GateStatus, Report, Verdict
from assay.report.symbols import STATUS_MARK, VERDICT_STYLE, unvalidated_count, verdict_label

STATUS_STYLE = {
    GateStatus.PASS: "green",
    GateStatus.REJECT: "red",
    GateStatus.WARN: "yellow",
    GateStatus.SKIP: "dim",
}


SHORT = {
    "compile": "cmp",
    "green": "grn",
    "stability": "stab",
    "mutation": "mut",
    "smells": "smell",
    "review": "rev",
}


def print_report(console: Console, report: Report) -> None:
    """The table, then feedback verbatim: soft-wrapped so that paths and code lines are
    never cut."""
    for part in renderable(report, short=console.width < 110).renderables:
        console.print(part, soft_wrap=isinstance(part, Text))


def renderable(report: Report, feedback: bool = True, short: bool = False) -> Group:
    """On narrow terminals gate headers are abbreviated and file names wrap: a verdict is
    never cut."""
    gates = [g for g in GATE_ORDER if any(r.gate == g for f in report.files for r in f.gates)]
    table = Table(title=f"assay verify — {report.root}", title_justify="left")
    table.add_column("file", overflow="fold", ratio=1)
    for name in gates:
        table.add_column(SHORT.get(name, name) if short else name, justify="center", no_wrap=True)
    labels = [verdict_label(f.verdict) + (" (cached)" if f.cached else "") for f in report.files]
    table.add_column("verdict", no_wrap=True, min_width=max(map(len, labels), default=7))
    table.add_column("tests", justify="right", no_wrap=True)
    for f in report.files:
        by_name = {g.gate: g for g in f.gates}
        cells = [
            Text(STATUS_MARK[by_name[n].status], style=STATUS_STYLE[by_name[n].status])
            if n in by_name
            else Text("")
            for n in gates
        ]
        ok = sum(t.verdict is Verdict.ACCEPTED for t in f.tests)
        label = verdict_label(f.verdict) + (" (cached)" if f.cached else "")
        table.add_row(
            f.path, *cells, Text(label, style=VERDICT_STYLE[f.verdict]), f"{ok}/{len(f.tests)}"
        )
    parts: list = [table]
    if feedback:
        for f in report.files:
            for g in f.gates:
                if (
                    g.status is GateStatus.REJECT
                    and g.feedback
                    or g.status is GateStatus.SKIP
                    and g.verdict
                ):
                    parts.append(Text(f"\n{f.path} — {g.gate}", style="bold"))
                    parts.append(Text(g.feedback))
                elif g.status is GateStatus.WARN:
                    parts.append(
                        Text(f"{f.path} — {g.gate}: {_warning_summary(g)}", style="yellow")
                    )
                # skipped without a verdict: one line
                elif g.status is GateStatus.SKIP and g.feedback:
                    parts.append(
                        Text(
                            f"{f.path} — {g.gate} skipped: {g.feedback.splitlines()[-1]}",
                            style="blue",
                        )
                    )
    s = report.summary()
    cached = sum(f.cached for f in report.files)
    parts.append(
        Text(
            f"\n{s['files']} file{'' if s['files'] == 1 else 's'}: {s['accepted']} accepted, "
            f"{s['rejected']} rejected, {s['flaky']} flaky, "
            f"{s['low_value']} low value, {unvalidated_count(s)} in {s['duration_s']:.1f} s"
            + (f" ({cached} answered from the cache; --no-cache to re-run)" if cached else ""),
            style="bold",
        )
    )
    parts.extend(Text(gap.describe(), style="bold yellow") for gap in report.environment_gaps())
    parts.extend(Text(note, style="yellow") for note in report.notes)
    if report.sandbox:
        sb = report.sandbox
        parts.append(
            Text(f"sandbox: network {sb.network}; {sb.filesystem}; {sb.processes}", style="dim")
        )
    return Group(*parts)


def _warning_summary(gate: GateResult) -> str:
    findings = gate.details.get("findings") or []
    rules = Counter(f["rule"] for f in findings if f.get("level") == "warn")
    if not rules:
        return gate.feedback.splitlines()[0] if gate.feedback else "warning"
    listed = ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in sorted(rules.items()))
    return f"{sum(rules.values())} warnings ({listed}); details in --format json"


def render(report: Report, width: int = 120) -> str:
    """Plain text at `width` columns (files, CI logs)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_report(console, report)
    return console.export_text()
