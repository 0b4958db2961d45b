"""`assay prism` as one self-contained HTML page: tables, findings, and each task's per-test matrix.

No external assets; Jinja2 autoescaping keeps test ids and failure messages from injecting markup.
"""

from __future__ import annotations

from assay.prism.model import PrismReport
from assay.report.prism_text import SUMMARY_HEADER, TASK_HEADER, findings, summary_row, task_row

TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>assay prism</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin-top: 2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: .5rem 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; }
th { background: #f5f5f5; }
td.passed { background: #e3f6e5; } td.failed, td.error, td.timeout { background: #fde2e1; }
td.skipped, td.not-run { background: #f3f3f3; color: #777; }
th.faulty { color: #b71c1c; } th.correct, th.reference { color: #1b5e20; }
.muted { color: #777; }
</style>
</head>
<body>
<h1>assay prism</h1>
<p class="muted">Benchmark <code>{{ benchmark }}</code>,
suites <code>{{ suites }}</code>; {{ runs }}.</p>
<table>
<tr>{% for h in task_header %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in task_rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}
</table>
<h2>Aggregate</h2>
<table>
<tr><th></th>{% for h in summary_header %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in summary_rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}
</table>
{% if findings %}<h2>Findings</h2>
<ul>{% for f in findings %}<li>{{ f }}</li>{% endfor %}</ul>{% endif %}
{% for t in tasks if t.matrix %}
<h2>{{ t.id }}</h2>
<p class="muted">{{ t.summary }}</p>
<table>
<tr><th>test</th>{% for m in t.members %}
<th class="{{ m.role }}" title="{{ m.reason }}">{{ m.name }}</th>
{% endfor %}</tr>
{% for test, row in t.matrix.items() %}<tr><td><code>{{ test }}</code></td>
{% for m in t.members %}{% set o = row[m.name] %}<td class="{{ o | replace(' ', '-') }}"
 title="{{ t.messages.get(m.name, {}).get(test, '') }}">{{ o }}</td>{% endfor %}</tr>
{% endfor %}
<tr><td><b>suite</b></td>{% for m in t.members %}
<td class="{{ 'passed' if m.accepted else 'failed' }}">
{{ 'accepts' if m.accepted else 'rejects' }}</td>{% endfor %}</tr>
</table>
{% endfor %}
</body>
</html>
"""


def render(report: PrismReport) -> str:
    from jinja2 import Environment  # here: verify and mutate import this module, never use it

    env = Environment(autoescape=True)
    rows = [summary_row("all", report.aggregate)]
    rows += [summary_row(f"category {k}", s) for k, s in report.by("category").items()]
    rows += [summary_row(f"language {k}", s) for k, s in report.by("language").items()]
    tasks = []
    for t in report.tasks:
        if not t.evaluated:
            continue
        tasks.append(
            {
                "id": t.id,
                "members": t.members,
                "matrix": t.matrix(),
                "messages": {m.name: m.messages for m in t.members},
                "summary": " · ".join(
                    f"{h} {c}" for h, c in zip(TASK_HEADER[4:], task_row(t)[4:], strict=True) if c
                ),
            }
        )
    runs = (
        f"{report.runs.get('total', 0)} runs ({report.runs.get('cached', 0)} from the cache) in "
        f"{report.duration_s:.1f}s"
    )
    return env.from_string(TEMPLATE).render(
        benchmark=report.benchmark,
        suites=report.suites,
        runs=runs,
        task_header=TASK_HEADER,
        task_rows=[task_row(t) for t in report.tasks],
        summary_header=SUMMARY_HEADER,
        summary_rows=rows,
        findings=findings(report),
        tasks=tasks,
    )
