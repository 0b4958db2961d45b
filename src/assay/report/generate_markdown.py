"""`assay generate -f markdown`: a pull-request description - accepted tests, rejected ones with
reasons, suspected bugs, tokens."""

from __future__ import annotations

from typing import Any


def render(report: Any) -> str:
    s = report.summary()
    cost = f" (${s['cost']:.4f})" if s["cost"] is not None else ""
    lines = [
        "## Tests written by assay",
        "",
        f"{s['tests_kept']} tests kept for {s['targets']} "
        f"targets, each through compile, green, stability, "
        "mutation and smells"
        + (" and a review" if report.reviewer else "")
        + f"; writer `{report.writer}`"
        + (f", reviewer `{report.reviewer}`" if report.reviewer else "")
        + f"; {s['tokens']:,} tokens{cost}.",
        "",
    ]
    kept = [t for t in report.targets if t.kept_tests]
    if kept:
        lines += ["### Accepted", "", "| target | file | tests | answers |", "|---|---|---:|---:|"]
        lines += [
            f"| `{t.target.id}` | `{t.output}` | {len(t.kept_tests)} | {t.writer_attempts} |"
            for t in kept
        ]
        lines.append("")
        tasks = sorted({t.target.task for t in kept if t.target.task})
        if tasks:
            lines += [f"Task: {task}" for task in tasks] + [""]
    not_kept = [t for t in report.targets if not t.kept_tests or t.dropped]
    if not_kept:
        lines += ["### Not kept", ""]
        for t in not_kept:
            if not t.kept_tests:
                lines.append(
                    f"- `{t.target.id}`: {t.outcome} — {t.note or 'no test passed every gate'}"
                )
            for d in t.dropped:
                lines.append(f"- `{d.test}`: {d.verdict} at {d.gate} — {d.reason}")
        lines.append("")
    bugs = [b for t in report.targets for b in t.suspected_bugs]
    if bugs:
        lines += [
            "### Suspected bugs",
            "",
            "Tests that follow the documented contract but fail on the code; kept "
            "as `xfail(strict=True)`.",
            "",
        ]
        for b in bugs:
            lines += [
                f"- `{b.test}` ({b.target}): {b.reason}",
                "",
                "  ```",
                *("  " + ln for ln in b.failure.splitlines()[:8]),
                "  ```",
            ]
        lines.append("")
    lines += [
        "<details><summary>Attempts and tokens</summary>",
        "",
        "| target | # | kind | verdict | at | tokens |",
        "|---|---:|---|---|---|---:|",
    ]
    for t in report.targets:
        for a in t.attempts:
            verdict = "answer format" if a.problem else (a.verdict or "")
            lines.append(
                f"| `{t.target.id}` | {a.number} | {a.kind} | {verdict} | {a.rejected_at or ''} | "
                f"{a.tokens:,} |"
            )
    lines += ["", "</details>"]
    if report.stopped:
        lines += ["", f"Run stopped early: {report.stopped}"]
    return "\n".join(lines) + "\n"
