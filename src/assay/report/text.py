"""The default view: a Rich table of files × gates, then the feedback of every file not accepted."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from assay.model import GATE_ORDER, GateStatus, Report, Verdict
from assay.report.symbols import STATUS_MARK, VERDICT_STYLE, verdict_label

STATUS_STYLE = {GateStatus.PASS: "green", GateStatus.REJECT: "red", GateStatus.WARN: "yellow", GateStatus.SKIP: "dim"}


def renderable(report: Report, feedback: bool = True) -> Group:
    gates = [g for g in GATE_ORDER if any(r.gate == g for f in report.files for r in f.gates)]
    table = Table(title=f"assay verify — {report.root}", title_justify="left")
    table.add_column("file", overflow="fold")
    for g in gates:
        table.add_column(g, justify="center")
    table.add_column("verdict")
    table.add_column("tests", justify="right")
    for f in report.files:
        by_name = {g.gate: g for g in f.gates}
        cells = [Text(STATUS_MARK[by_name[g].status], style=STATUS_STYLE[by_name[g].status]) if g in by_name
                 else Text("") for g in gates]
        ok = sum(t.verdict is Verdict.ACCEPTED for t in f.tests)
        label = verdict_label(f.verdict) + (" (cached)" if f.cached else "")
        table.add_row(f.path, *cells, Text(label, style=VERDICT_STYLE[f.verdict]), f"{ok}/{len(f.tests)}")
    parts: list = [table]
    if feedback:
        for f in report.files:
            for g in f.gates:
                if g.feedback and (g.status is not GateStatus.PASS):
                    parts.append(Text(f"\n{f.path} — {g.gate}", style="bold"))
                    parts.append(Text(g.feedback))
    s = report.summary()
    parts.append(Text(
        f"\n{s['files']} files: {s['accepted']} accepted, {s['rejected']} rejected, {s['flaky']} flaky, "
        f"{s['low_value']} low value, {s['unvalidated']} unvalidated in {s['duration_s']:.1f} s", style="bold"))
    if report.sandbox:
        sb = report.sandbox
        parts.append(Text(f"sandbox: network {sb.network}; {sb.filesystem}; {sb.processes}", style="dim"))
    return Group(*parts)


def render(report: Report, width: int = 120) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable(report))
    return console.export_text()
