"""One self-contained HTML page of a mutation run: source per file, mutants under their lines,
status filters.

No external assets (opens offline); Jinja2 autoescaping keeps the user's source from
injecting markup.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from assay.mutation.model import MutationResult, Status, score

WORST = [Status.SURVIVED, Status.NO_COVERAGE, Status.TIMEOUT, Status.KILLED]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def render(run: MutationResult) -> str:
    env = Environment(
        loader=FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )
    files = []
    for rel, text in run.sources.items():
        per_line: dict[int, list] = {}
        for m, r in run.scored:
            if m.file == rel:
                per_line.setdefault(m.line, []).append(
                    {
                        "status": r.status.value,
                        "operator": m.operator,
                        "before": m.before,
                        "after": m.after,
                        "killed_by": ", ".join(r.killed_by),
                        "reason": r.reason,
                    }
                )
        lines = []
        for number, line in enumerate(text.split("\n"), 1):
            mutants = per_line.get(number, [])
            statuses = {m["status"] for m in mutants}
            status = next((s.value for s in WORST if s.value in statuses), "")
            lines.append({"number": number, "text": line, "mutants": mutants, "status": status})
        file_results = [r for m, r in run.scored if m.file == rel]
        files.append({"path": rel, "lines": lines, "score": _pct(score(file_results))})
    counts = run.counts
    return env.get_template("mutation.html.j2").render(
        score=_pct(run.score), counts=counts, statuses=[s.value for s in Status], files=files
    )
