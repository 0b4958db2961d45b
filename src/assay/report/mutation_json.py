"""`assay mutate -f json`: every mutant with its verdict, plus the numbers (schema
`assay.mutate/1`)."""

from __future__ import annotations

import json
from dataclasses import asdict

from assay.mutation.summary import MutateReport


def render(report: MutateReport) -> str:
    run = report.run
    data = {
        "schema": "assay.mutate/1",
        "passed": report.passed,
        **report.details(max_survivors=10_000),
        "duration_s": round(run.duration_s, 3),
        "baseline": run.baseline.to_json() if run.baseline else {},
        "slowest": [asdict(t) for t in run.slowest],
        "longest_mutant": asdict(run.longest_mutant) if run.longest_mutant else {},
        "split_mutants": run.split_mutants,
        "hangs_in_a_row": run.hangs_in_a_row,
        "modes": run.modes,
        "deselected": run.deselected,
        "diff_scope": report.diff_scope,
        "mutants": [{**m.to_json(), **run.results[m.id].to_json()} for m, _ in run.scored],
    }
    return json.dumps(data, indent=2) + "\n"
