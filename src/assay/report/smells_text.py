"""`assay smells` text: `path:line:col RULE-ID [level] Class::test: message`, one finding a line,
then a summary line (findings by level, files, why the exit code is what it is) - like a linter's
last line."""

from __future__ import annotations

from assay.model import LintReport

LEVELS = ("reject", "warn", "info")


def render(report: LintReport) -> str:
    lines = [
        f"{f.path}:{f.line}:{f.col} {f.rule} [{f.level}] "
        + (f"{f.test}: {f.message}" if f.test else f.message)
        for f in report.findings
    ]
    counts = {lvl: sum(1 for f in report.findings if f.level == lvl) for lvl in LEVELS}
    files = f"{report.files} file" + ("s" if report.files != 1 else "")
    if report.findings:
        by_level = ", ".join(f"{n} {lvl}" for lvl, n in counts.items() if n)
        head = (
            f"{len(report.findings)} finding{'s' if len(report.findings) != 1 else ''} "
            f"in {files} ({by_level})"
        )
    else:
        head = f"no findings in {files}"
    why = "exit 1: reject-level findings" if counts["reject"] else "exit 0: no reject-level finding"
    return "".join(line + "\n" for line in [*lines, f"{head}; {why}"])
