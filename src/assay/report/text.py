"""The default view: a Rich table of files × gates, then the feedback of every file not accepted."""

from __future__ import annotations

import io
from collections import Counter

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from assay.model import GATE_ORDER, FileReport, GateResult, GateStatus, Report, Verdict
from assay.report.symbols import STATUS_MARK, VERDICT_STYLE, summary_counts, verdict_label

STATUS_STYLE = {
    GateStatus.PASS: "green",
    GateStatus.REJECT: "red",
    GateStatus.WARN: "yellow",
    GateStatus.SKIP: "dim",
}


NAMED = 5  # tests a warning line names before "and N more"

SHORT = {
    "compile": "cmp",
    "green": "grn",
    "stability": "stab",
    "mutation": "mut",
    "smells": "smell",
    "review": "rev",
}


def print_report(console: Console, report: Report, verbose: bool = False) -> None:
    """The table, then feedback verbatim: soft-wrapped so that paths and code lines are
    never cut."""
    for part in renderable(report, short=console.width < 110, verbose=verbose).renderables:
        console.print(part, soft_wrap=isinstance(part, Text))


def renderable(
    report: Report, feedback: bool = True, short: bool = False, verbose: bool = False
) -> Group:
    """On narrow terminals gate headers are abbreviated and file names wrap: a verdict is
    never cut. `verbose`: every test's verdict and reason after the table."""
    gates = [g for g in GATE_ORDER if any(r.gate == g for f in report.files for r in f.gates)]
    table = Table(title=f"assay verify — {report.root}", title_justify="left")
    table.add_column("file", overflow="fold", ratio=1)
    for name in gates:
        table.add_column(SHORT.get(name, name) if short else name, justify="center", no_wrap=True)
    labels = [verdict_label(f.verdict) + (" (cached)" if f.cached else "") for f in report.files]
    table.add_column("verdict", no_wrap=True, min_width=max(map(len, labels), default=7))
    table.add_column("tests", justify="right", no_wrap=True)
    for f in report.files:
        by_name = {g.gate: g for g in f.gates}
        cells = [
            Text(STATUS_MARK[by_name[n].status], style=STATUS_STYLE[by_name[n].status])
            if n in by_name
            else Text("")
            for n in gates
        ]
        ok = sum(t.verdict is Verdict.ACCEPTED for t in f.tests)
        label = verdict_label(f.verdict) + (" (cached)" if f.cached else "")
        table.add_row(
            f.path, *cells, Text(label, style=VERDICT_STYLE[f.verdict]), f"{ok}/{len(f.tests)}"
        )
    parts: list = [table]
    if verbose:
        parts.extend(_test_lines(report))
    if feedback:
        for f in report.files:
            for g in f.gates:
                if (
                    g.status is GateStatus.REJECT
                    and g.feedback
                    or g.status is GateStatus.SKIP
                    and g.verdict
                ):
                    parts.append(Text(f"\n{f.path} — {g.gate}", style="bold"))
                    parts.append(Text(g.feedback))
                elif g.status is GateStatus.WARN:
                    parts.append(
                        Text(f"{f.path} — {g.gate}: {_warning_summary(g, f)}", style="yellow")
                    )
                # skipped without a verdict: one line
                elif g.status is GateStatus.SKIP and g.feedback:
                    parts.append(
                        Text(
                            f"{f.path} — {g.gate} skipped: {g.feedback.splitlines()[-1]}",
                            style="blue",
                        )
                    )
                parts.extend(
                    Text(f"{f.path} — {g.gate} note: {note}", style="dim")
                    for note in g.details.get("notes") or []
                )
            parts.extend(Text(line, style="blue") for line in _unjudged_lines(f))
            redundant = _names([t.id for t in f.tests if t.redundant])
            if redundant:
                parts.append(
                    Text(
                        f"{f.path} — note: redundant (every mutant they kill, other tests of the "
                        f"file kill too; not a failure): {redundant}",
                        style="dim",
                    )
                )
    parts.append(Text(summary_line(report), style="bold"))
    parts.extend(Text(gap.describe(), style="bold yellow") for gap in report.environment_gaps())
    parts.extend(Text(note, style="yellow") for note in report.notes)
    if report.sandbox:
        sb = report.sandbox
        if sb.warning:
            parts.append(Text(sb.warning, style="bold yellow"))
        parts.append(
            Text(f"sandbox: {sb.backend}; network {sb.network}; {sb.filesystem}", style="dim")
        )
    parts.extend(Text(line, style="dim") for line in limit_lines(report))
    return Group(*parts)


def limit_lines(report: Report) -> list[str]:
    """One line per sandbox profile the files ran under: the limits each language got."""
    seen: dict[str, list[str]] = {}
    for f in report.files:
        if f.limits:
            lim = f.limits
            line = (
                f"limits ({lim.get('profile')}): memory {lim.get('memory')}, processes "
                f"{lim.get('processes')}, CPU {lim.get('cpu_s')} s, files up to "
                f"{lim.get('file_size_mb')} MB, timeout {lim.get('timeout_s'):g} s"
            )
            if lim.get("backend") and (
                not report.sandbox or lim["backend"] != report.sandbox.backend
            ):
                line += f", backend {lim['backend']}"  # not the one the sandbox line names
            seen.setdefault(line, []).append(f.language)
    return list(seen)


def summary_line(report: Report) -> str:
    cached = sum(f.cached for f in report.files)
    return f"\n{summary_counts(report)} in {report.summary()['duration_s']:.1f} s" + (
        f" ({cached} answered from the cache; --no-cache to re-run)" if cached else ""
    )


def _said(messages: list[str]) -> str:
    """What a rule's findings are about: their message when they share it, else the head they share
    (`private access`, of "private access: `.__dict__`" and "private access: `_` imported from its
    module"): the first finding's details are not the others' (funcy's test_colls.py read "AS014 ×11
    (private access: `.__dict__`)" for one `__dict__` and ten imported `_`)."""
    if len(set(messages)) == 1:
        return messages[0]
    heads = {m.split(": ", 1)[0] for m in messages}
    return heads.pop() if len(heads) == 1 else "several findings"


def _warning_summary(gate: GateResult, f: FileReport) -> str:
    """One line naming what the warning is about: each rule with its tests (smells), the
    low-value tests (mutation)."""
    findings = [x for x in gate.details.get("findings") or [] if x.get("level") == "warn"]
    if findings:
        by_rule: dict[str, list[str]] = {}
        messages: dict[str, list[str]] = {}
        for x in findings:
            # a finding's test is `Class::test`: as a node id of the file, so that the class stays
            by_rule.setdefault(x["rule"], []).append(
                f"{f.path}::{x['test']}" if x.get("test") else f"line {x['line']}"
            )
            messages.setdefault(x["rule"], []).append(x.get("message", ""))
        said = {rule: _said(texts) for rule, texts in messages.items()}
        # each test once: a test's several findings are not cases of a parametrized test
        listed = "; ".join(
            f"{rule}{f' ×{len(where)}' if len(where) > 1 else ''} ({said[rule]}): "
            + _names(list(dict.fromkeys(where)))
            for rule, where in sorted(by_rule.items())
        )
        return f"{len(findings)} warning{'' if len(findings) == 1 else 's'}: {listed}"
    # the gate's own list: a test a later gate decided (AS020) is still one this gate warned of
    low = [
        t for t in gate.tests or f.tests if t.verdict is Verdict.LOW_VALUE and t.gate == gate.gate
    ]
    if low:
        reach = [t.id for t in low if t.reason.startswith("reaches no mutant")]
        values = [t.id for t in low if t.reason.startswith("runs no code of the project")]
        kill = [t.id for t in low if t.id not in reach and t.id not in values]
        lists = [f"low value (kill no mutant of the code they run): {_names(kill)}"] * bool(kill)
        lists += [
            f"low value (run no code of the project, read only its module-level values): "
            f"{_names(values)}"
        ] * bool(values)
        lists += [
            "low value (reach no mutant: none of the project lines they run has one): "
            + _names(reach)
        ] * bool(reach)
        return "; ".join(lists)
    return gate.feedback.splitlines()[0] if gate.feedback else "warning"


def _unjudged_lines(f: FileReport) -> list[str]:
    """For a file no gate stopped, its `unvalidated` tests by reason (a skip naming a module the
    environment lacks, an xfail): no gate's feedback tells of them, and the table's `11/24` alone
    hid rfc3986's 13 tests skipped for want of `idna`. A stopped file's feedback says it already."""
    if f.rejected_at or f.verdict is Verdict.UNVALIDATED:
        return []
    by_reason: dict[str, list[str]] = {}
    for t in f.tests:
        if t.verdict is Verdict.UNVALIDATED:
            why = f"{t.gate}: {t.reason}" if t.gate else t.reason
            by_reason.setdefault(why, []).append(t.id)
    return [
        f"{f.path} — {len(ids)} test{'' if len(ids) == 1 else 's'} unvalidated ({why}): "
        + _names(ids)
        for why, ids in by_reason.items()
    ]


def _names(ids: list[str], limit: int = NAMED) -> str:
    """Test names (a parametrized function once, with its number of cases), the first `limit`
    then how many more."""
    cases = Counter(nodeid.split("::", 1)[-1].split("[", 1)[0] for nodeid in ids)
    names = [f"{n} ({c} cases)" if c > 1 else n for n, c in cases.items()]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _test_lines(report: Report) -> list[Text]:
    """One line per test: verdict, id, the gate and reason that decided it, its note. The cases of
    a parametrized test that share verdict and reason are one line with their count (ftfy: 161
    identical lines hid the rest); the JSON keeps every case."""
    lines = [Text("")]
    for f in report.files:
        groups: dict[tuple[str, Verdict, str], list[str]] = {}
        cases: Counter[str] = Counter()
        for t in f.tests:
            why = "; ".join(
                x for x in (f"{t.gate}: {t.reason}" if t.gate else t.reason, t.note) if x
            )
            base, case = _case(t.id)
            cases[base] += 1
            groups.setdefault((base, t.verdict, why), []).append(case)
        for (base, verdict, why), found in groups.items():
            line = Text(f"{verdict_label(verdict):<12} ", style=VERDICT_STYLE[verdict])
            line.append(_grouped(base, found, cases[base]) + (f" — {why}" if why else ""))
            lines.append(line)
    return lines


def _case(nodeid: str) -> tuple[str, str]:
    """A test id as its function's and its case's (`[a]`; "" for a test that is not parametrized):
    a case's id may hold `::` (`[::1]`), a file's or function's name never holds `[`."""
    at = nodeid.find("[")
    if at < 0 or not nodeid.endswith("]"):
        return nodeid, ""
    return nodeid[:at], nodeid[at:]


def _grouped(base: str, found: list[str], total: int) -> str:
    """A test's id, or its function's with the cases of one line: all of them, or some, named."""
    if len(found) == 1:
        return base + found[0]
    if len(found) == total:
        return f"{base} ({total} cases)"
    named = ", ".join(found[:NAMED]) + (
        f" and {len(found) - NAMED} more" if len(found) > NAMED else ""
    )
    return f"{base} ({len(found)} of {total} cases: {named})"


def render(report: Report, width: int = 120, verbose: bool = False) -> str:
    """Plain text at `width` columns (files, CI logs)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_report(console, report, verbose)
    return console.export_text()
