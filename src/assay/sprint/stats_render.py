"""Views of `assay stats`: a table (text), JSON, and an HTML page with a chart (inline SVG, no
script, no network: it opens offline and in a mail attachment)."""

from __future__ import annotations

import html
import json

from assay.sprint.stats import StatsReport, Tally

ROWS = (("task", "by task"), ("sprint", "by sprint"), ("writer", "by writer"), ("day", "over time"))
COLOURS = {"unchanged": "#2e7d32", "edited": "#f9a825", "deleted": "#c62828"}


def _row(t: Tally, width: int) -> str:
    c = t.counts
    return (
        f"  {t.key:<{width}} {t.total:>5} {c['unchanged']:>9} {c['edited']:>6} "
        f"{c['deleted']:>7} {t.acceptance:>10.1%}"
    )


def stats_text(report: StatsReport) -> str:
    if not report.tests:
        since = f" since {report.since}" if report.since else ""
        return f"no generated tests in the history of {report.rev}{since}\n"
    lines = []
    for attr, title in ROWS:
        groups = report.by(attr)
        width = max(len(title), *(len(g.key) for g in groups))
        lines.append(f"{title:<{width + 2}} {'tests':>5} {'unchanged':>9} {'edited':>6} "
                     f"{'deleted':>7} {'acceptance':>10}")  # fmt: skip
        lines += [_row(g, width) for g in groups]
        lines.append("")
    overall = report.overall
    lines.append(
        f"{overall.total} generated tests: {overall.counts['unchanged']} unchanged, "
        f"{overall.counts['edited']} edited, {overall.counts['deleted']} deleted; "
        f"acceptance {overall.acceptance:.1%} (kept, edited or not)"
    )
    return "\n".join(lines) + "\n"


def stats_json(report: StatsReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def chart(groups: list[Tally]) -> str:
    """Stacked bars per group (unchanged, edited, deleted), the acceptance above each."""
    bar, gap, height, top = 48, 24, 200, 30
    width = max(len(groups), 1) * (bar + gap) + gap
    most = max((g.total for g in groups), default=1) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + top + 40}" '
        f'role="img" aria-label="generated tests kept by review">'
    ]
    for n, g in enumerate(groups):
        x = gap + n * (bar + gap)
        y: float = top + height
        for status in ("unchanged", "edited", "deleted"):
            h = height * g.counts[status] / most
            y -= h
            parts.append(
                f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" '
                f'fill="{COLOURS[status]}"><title>{status}: {g.counts[status]}</title></rect>'
            )
        parts.append(
            f'<text x="{x + bar / 2}" y="{y - 6:.1f}" text-anchor="middle" '
            f'font-size="12">{g.acceptance:.0%}</text>'
        )
        parts.append(
            f'<text x="{x + bar / 2}" y="{top + height + 16}" text-anchor="middle" '
            f'font-size="11">{html.escape(g.key)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _table(title: str, groups: list[Tally]) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(g.key)}</td><td>{g.total}</td><td>{g.counts['unchanged']}</td>"
        f"<td>{g.counts['edited']}</td><td>{g.counts['deleted']}</td>"
        f"<td>{g.acceptance:.1%}</td></tr>"
        for g in groups
    )
    return (
        f"<h2>{title}</h2><table><tr><th></th><th>tests</th><th>unchanged</th><th>edited</th>"
        f"<th>deleted</th><th>acceptance</th></tr>{rows}</table>"
    )


def stats_html(report: StatsReport) -> str:
    overall = report.overall
    legend = " ".join(f'<span style="color:{c}">&#9632;</span> {s}' for s, c in COLOURS.items())
    tables = "".join(_table(title, report.by(attr)) for attr, title in ROWS)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>assay stats</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}td:first-child{{text-align:left}}
</style></head><body>
<h1>Generated tests after review</h1>
<p id="overall">{overall.total} generated tests at {html.escape(report.rev)}:
{overall.counts["unchanged"]} unchanged, {overall.counts["edited"]} edited,
{overall.counts["deleted"]} deleted; acceptance {overall.acceptance:.1%}.</p>
<h2>Acceptance over time (by day of generation)</h2>
<figure id="chart">{chart(report.by("day"))}<figcaption>{legend}</figcaption></figure>
{tables}
</body></html>
"""


STATS_FORMATS = {"text": stats_text, "json": stats_json, "html": stats_html}
