"""The offline writer's report in words: per module what was written and what became of
each function."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the writer's code is not what a reporter of other commands should import
    from assay.writers.offline import OfflineReport


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _tests(functions: int, cases: int) -> str:
    """`3 tests (6 cases)`: pytest counts the functions; the cases are what was pinned."""
    return _n(functions, "test") + (f" ({_n(cases, 'case')})" if cases != functions else "")


def render(report: OfflineReport) -> str:
    """The report in words: per module what was written and what became of each function."""
    lines = []
    for m in report.modules:
        where = m.test_path if m.text is not None else "no file"
        state = (
            "written"
            if m.written
            else "dry run"
            if m.text is not None and report.dry_run
            else "not written"
            if m.text is not None
            else m.verdict
        )
        if m.text is not None and m.verdict not in (None, "accepted"):
            state = f"{state}; {m.verdict}"  # kept with gate 4 by the probe: said first
        score = f", gate 4 {m.gate_score:g}%" if m.gate_score is not None else ""
        lines.append(
            f"{m.module} -> {where}: "
            + (_tests(m.test_functions, len(m.tests)) if m.text is not None else "0 tests")
            + f", kill "
            f"{m.killed}/{m.mutants} mutants{score}, {m.duration_s:.1f} s ({state})"
        )
        width = max((len(f.name) for f in m.functions), default=0)
        for f in m.functions:
            if f.status == "tested":
                tried = sum(f.inputs_tried.values())
                lines.append(
                    f"  {f.name:<{width}}  {_n(f.tests, 'case')}, "
                    f"its mutants killed {f.killed}/{f.mutants} "
                    f"({f.inputs_kept} of {tried} inputs kept)"
                )
            else:
                lines.append(f"  {f.name:<{width}}  no test ({f.status}): {f.reason}")
        if m.survivors and m.text is not None:
            lines.append(
                # the writer's own probe, not gate 4 (which may kill more: it runs every mutant)
                f"  the probe's survivors ({m.mutants - m.killed}): "
                + "; ".join(m.survivors[:3])
                + (" ..." if len(m.survivors) > 3 else "")
            )
        lines += [f"  note: {n}" for n in m.notes]
    lines += report.notes
    if report.tests:
        from assay.writers.offline import CHARACTERIZATION_NOTE

        lines.append(CHARACTERIZATION_NOTE)
    files = sum(m.written or (report.dry_run and m.text is not None) for m in report.modules)
    lines.append(
        f"{_tests(report.test_functions, report.tests)} in {_n(files, 'file')}, "
        f"{report.duration_s:.1f} s"
    )
    return "\n".join(lines) + "\n"


def present(
    report: OfflineReport,
    format: str,
    output: Path | None,
    write: Callable[[str, Path | None], None],
    console: Callable[[], Any],
) -> None:
    """With --dry-run in text to stdout: the files on stdout and the report on stderr; else the
    report in `format` to `output` or stdout."""
    from assay.report import OFFLINE_FORMATS

    if report.dry_run and format == "text" and output is None:
        for m in report.modules:
            if m.text is not None:
                sys.stdout.write(f"# --- {m.test_path} (not written: --dry-run) ---\n{m.text}\n")
        sys.stderr.write(render(report))
    else:
        write(OFFLINE_FORMATS[format](report), output)
