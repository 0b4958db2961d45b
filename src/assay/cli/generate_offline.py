"""`assay generate-offline`: characterization tests with no LLM (temporary home of `assay generate --writer
offline`). Parses, calls `assay.offline.generate_offline`, prints; nothing else."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.app import app, call, usage_error
from assay.offline import CHARACTERIZATION_NOTE, OfflineReport, generate_offline

_BUDGET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$")


def parse_budget(text: str) -> float:
    """`60s`, `2m`, `90` (seconds), `1h` -> seconds; a usage error otherwise."""
    m = _BUDGET.match(text)
    if not m or float(m.group(1)) <= 0:
        usage_error(f"--budget: expected a positive time such as 60s or 2m, got {text!r}")
    unit = {"m": 60, "min": 60, "h": 3600}.get(m.group(2) or "s", 1)
    return float(m.group(1)) * unit


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def summary(report: OfflineReport) -> str:
    """The report in words: per module what was written and what became of each function."""
    lines = []
    for m in report.modules:
        where = m.test_path if m.text is not None else "no file"
        state = "written" if m.written else "dry run" if m.text is not None and report.dry_run else \
            "not written" if m.text is not None else m.verdict
        score = f", gate 4 {m.gate_score:g}%" if m.gate_score is not None else ""
        lines.append(f"{m.module} -> {where}: {_n(len(m.tests) if m.text is not None else 0, 'test')}, kill "
                     f"{m.killed}/{m.mutants} mutants{score}, {m.duration_s:.1f} s ({state})")
        width = max((len(f.name) for f in m.functions), default=0)
        for f in m.functions:
            if f.status == "tested":
                tried = sum(f.inputs_tried.values())
                lines.append(f"  {f.name:<{width}}  {_n(f.tests, 'test')}, its mutants killed {f.killed}/{f.mutants} "
                             f"({f.inputs_kept} of {tried} inputs kept)")
            else:
                lines.append(f"  {f.name:<{width}}  no test ({f.status}): {f.reason}")
        if m.survivors and m.text is not None:
            lines.append(f"  survivors ({m.mutants - m.killed}): " + "; ".join(m.survivors[:3])
                         + (" ..." if len(m.survivors) > 3 else ""))
        lines += [f"  note: {n}" for n in m.notes]
    lines += report.notes
    if report.tests:
        lines.append(CHARACTERIZATION_NOTE)
    files = sum(m.written or (report.dry_run and m.text is not None) for m in report.modules)
    lines.append(f"{_n(report.tests, 'test')} in {_n(files, 'file')}, "
                 f"{report.duration_s:.1f} s")
    return "\n".join(lines) + "\n"


@app.command("generate-offline")
def generate_offline_command(
    paths: Annotated[list[str] | None, typer.Argument(
        metavar="PATH", help="source files, directories, or file.py::function")] = None,
    budget: Annotated[str, typer.Option(metavar="TIME", help="time budget per module: 60s, 2m, 90")] = "60s",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the test files instead of writing them")] = False,
    since: Annotated[str | None, typer.Option(metavar="REV",
                                              help="only the functions changed since this git revision")] = None,
    max_tests: Annotated[int, typer.Option(metavar="N", help="at most N tests per function")] = 20,
    out_dir: Annotated[Path | None, typer.Option(metavar="DIR",
                                                 help="write here (default: next to the module's tests)")] = None,
    root: Annotated[Path | None, typer.Option(metavar="DIR", help="project root (default: found from PATH)")] = None,
    format: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="text or json")] = "text",
    config: Annotated[Path | None, typer.Option(metavar="FILE", help="config file")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="ignore cached verdicts")] = False,
    no_crosshair: Annotated[bool, typer.Option("--no-crosshair",
                                               help="skip CrossHair even when it is installed")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress lines on stderr")] = False,
) -> None:
    """Write mutant-killing characterization tests with no LLM: inputs from your tests, doctests and type hints,
    outcomes recorded in the sandbox, every test verified by gates 1-5."""
    if format not in ("text", "json"):
        usage_error(f"unknown format '{format}' (choose from text, json)")
    if max_tests < 1:
        usage_error("--max-tests must be at least 1")
    seconds = parse_budget(budget)

    def progress(line: str) -> None:
        if not quiet:
            print(f"generate: {line}", file=sys.stderr, flush=True)

    report = call(lambda: generate_offline(paths or [], budget_s=seconds, max_tests_per_function=max_tests,
                                           dry_run=dry_run, out_dir=out_dir, since=since, root=root,
                                           config=config, use_cache=not no_cache, progress=progress,
                                           crosshair=False if no_crosshair else None))
    if format == "json":
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
    elif dry_run:
        for m in report.modules:
            if m.text is not None:
                sys.stdout.write(f"# --- {m.test_path} (not written: --dry-run) ---\n{m.text}\n")
        sys.stderr.write(summary(report))
    else:
        sys.stdout.write(summary(report))
    raise typer.Exit(report.exit_code)
