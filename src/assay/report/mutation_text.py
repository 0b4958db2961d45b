"""`assay mutate` text: the score against its threshold, the counts, the survivors on the most-run lines first."""

from __future__ import annotations

import io

from rich.console import Console

from assay.mutation.summary import MutateReport


def print_report(console: Console, report: MutateReport) -> None:
    d = report.details(max_survivors=20)
    run = report.run
    score = "n/a" if d["score"] is None else f"{d['score']:.1f}%"
    colour = "green" if report.passed else "red"
    console.print(f"[bold {colour}]mutation score {score}[/] (threshold {report.threshold:g}%, "
                  f"code class {report.code_class})")
    console.print(f"killed {d['killed']}, timeout {d['timeout']}, survived {d['survived']}, "
                  f"no coverage {d['no_coverage']}, ignored {d['ignored']}, runtime error {d['runtime_error']}, "
                  f"compile error {d['compile_error']} — {len(run.results)} mutants in {run.duration_s:.1f}s")
    for i, s in enumerate(d["survivors"], 1):
        console.print(f"{i}. {s['file']}:{s['line']} [dim]({s['operator']})[/dim]", highlight=False)
        console.print(f"   `{s['original']}` → `{s['mutated']}`", highlight=False, markup=False, soft_wrap=True)
    more = d["survived"] + d["no_coverage"] - len(d["survivors"])
    if more > 0:
        console.print(f"… and {more} more (--format json or html lists them all)")
    cached = sum(1 for _, r in run.scored if r.cached)
    if cached:
        console.print(f"{cached} of {len(run.results)} mutants from the cache (--no-cache to run them again)")


def render(report: MutateReport, width: int = 120) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    print_report(console, report)
    return console.export_text()
