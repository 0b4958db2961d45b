"""`assay mutate` text: the score against its threshold, the counts, the survivors on the most-run
lines first."""

from __future__ import annotations

import io

from rich.console import Console

from assay.mutation.model import Status
from assay.mutation.summary import MutateReport


def print_report(console: Console, report: MutateReport) -> None:
    d = report.details(max_survivors=20)
    run = report.run
    score = "n/a" if d["score"] is None else f"{d['score']:.1f}%"
    colour = "green" if report.passed else "red"
    console.print(
        f"[bold {colour}]mutation score {score}[/] (threshold {report.threshold:g}%, "
        f"code class {report.code_class})"
    )
    console.print(
        f"killed {d['killed']}, timeout {d['timeout']}, survived {d['survived']}, "
        f"no coverage {d['no_coverage']}, ignored {d['ignored']}, "
        f"runtime error {d['runtime_error']}, "
        f"compile error {d['compile_error']} — {len(run.results)} mutants in {run.duration_s:.1f}s"
    )
    if report.diff_scope:
        ds = report.diff_scope
        console.print(
            f"diff scope since {ds['since']}: {ds['mutants']} of {ds['mutants_whole_files']} "
            f"mutants of {', '.join(ds['targets'])} (changed {ds['by']}), tests: "
            f"{', '.join(ds['tests']) or 'none given'}",
            highlight=False,
            markup=False,
        )
    for i, (s, b) in enumerate(zip(d["survivors"], d["briefs"], strict=True), 1):
        console.print(f"{i}. {s['file']}:{s['line']} [dim]({s['operator']})[/dim]", highlight=False)
        console.print(
            f"   `{s['original']}` → `{s['mutated']}`\n   a killing test"
            + (": " if "witness" in b else " asserts ")
            + f"{b['must_assert']} (e.g. {b['suggested_test']})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    more = d["survived"] + d["no_coverage"] - len(d["survivors"])
    if more > 0:
        console.print(f"… and {more} more (--format json or html lists them all)")
    for m, r in [
        (m, r) for m, r in run.scored if r.status in (Status.RUNTIME_ERROR, Status.TIMEOUT)
    ][:10]:
        why = (r.reason.splitlines() or ["?"])[-1]
        console.print(
            f"{r.status.value} {m.file}:{m.line} `{m.before}` → `{m.after}`: {why}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if run.slowest:
        costly = ", ".join(
            f"{t.id} {t.seconds:.1f}s ({t.share * 100:.0f}%)" for t in run.slowest[:5]
        )
        console.print(
            f"slowest tests (share of the run): {costly}; leave one out with --deselect ID",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    b = run.baseline
    if b is not None and b.untraced_s is not None:
        console.print(
            f"baseline: {b.untraced_s:.1f}s untraced, {b.traced_s or 0:.1f}s with "
            f"coverage ({b.tracer})"
            + (f"; longest mutant {run.longest_mutant.seconds:.1f}s" if run.longest_mutant else ""),
            highlight=False,
        )
    cached = sum(1 for _, r in run.scored if r.cached)
    if cached:
        console.print(
            f"{cached} of {len(run.results)} mutants from the cache (--no-cache to run them again)"
        )


def render(report: MutateReport, width: int = 120) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    print_report(console, report)
    return console.export_text()
