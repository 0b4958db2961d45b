"""`assay verify --format sarif`: SARIF 2.1.0 for GitHub code scanning (the Action uploads it).

Two kinds of results: each file not accepted, under a rule per verdict (AV001-AV004) with the
deciding gate's feedback as its message; and each smell gate 5 found, under its own rule (as
`assay smells --format sarif`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from assay.model import FileReport, Report, Verdict
from assay.report.sarif import SARIF_LEVEL, to_sarif
from assay.smells import RULES, Finding
from assay.version import __version__

HELP = "docs/report-format.md (assay verify --format sarif): what each verdict means, what to do"


@dataclass(frozen=True)
class VerdictRule:
    """A file verdict other than `accepted`, as a SARIF rule."""

    id: str
    verdict: Verdict
    level: str  # SARIF level
    message: str


VERDICT_RULES = {
    r.verdict: r
    for r in (
        VerdictRule("AV001", Verdict.REJECTED, "error", "test file rejected by assay's gates"),
        VerdictRule("AV002", Verdict.FLAKY, "error", "test file is flaky"),
        VerdictRule("AV003", Verdict.LOW_VALUE, "warning", "test file kills no mutant"),
        VerdictRule("AV004", Verdict.UNVALIDATED, "warning", "test file could not be judged"),
    )
}


def _findings(f: FileReport) -> list[Finding]:
    """Gate 5's findings of one file, from its report entry."""
    return [
        Finding(d["rule"], d["level"], f.path, d["line"], d["col"], d["message"], d.get("test"))
        for g in f.gates
        if g.gate == "smells"
        for d in g.details.get("findings", [])
    ]


def _location(rule: str, level: str, text: str, path: str, line: int, col: int) -> dict[str, Any]:
    """A result of a rule the driver does not list (no `ruleIndex`)."""
    return {
        "ruleId": rule,
        "level": SARIF_LEVEL.get(level, "note"),
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": max(line, 1), "startColumn": max(col, 1)},
                }
            }
        ],
    }


def _verdict_result(f: FileReport, index: int) -> dict[str, Any]:
    rule = VERDICT_RULES[f.verdict]
    gate = next((g for g in f.gates if g.gate == f.rejected_at), None)
    text = f"{f.verdict.value} at gate {f.rejected_at}" if f.rejected_at else f.verdict.value
    if gate is not None and gate.feedback.strip():
        text += "\n" + gate.feedback.strip()
    result = _location(rule.id, "reject", text, f.path, 1, 1)
    result["level"] = rule.level
    return {**result, "ruleIndex": index}


def to_verify_sarif(report: Report) -> dict[str, Any]:
    findings = [x for f in report.files for x in _findings(f)]
    # smells of other languages (AP rules) have no entry in RULES: their results name the rule only
    sarif = to_sarif([x for x in findings if x.rule in RULES], __version__)
    run = sarif["runs"][0]
    known = len(run["tool"]["driver"]["rules"])
    order = list(VERDICT_RULES.values())
    run["tool"]["driver"]["rules"] += [
        {
            "id": r.id,
            "name": r.verdict.value.title().replace("_", ""),
            "shortDescription": {"text": r.message},
            "help": {"text": HELP},
            "defaultConfiguration": {"level": r.level},
        }
        for r in order
    ]
    run["results"] += [
        _location(x.rule, x.level, x.text, x.path, x.line, x.col)
        for x in findings
        if x.rule not in RULES
    ]
    run["results"] += [
        _verdict_result(f, known + order.index(VERDICT_RULES[f.verdict]))
        for f in report.files
        if f.verdict is not Verdict.ACCEPTED
    ]
    # the test-diff integrity findings (`verify --since`): AI001... at the test's line
    run["results"] += [
        _location(x["rule"], x["level"], x["message"], x["path"], x["line"], 1)
        for f in report.files
        for g in f.gates
        if g.gate == "integrity"
        for x in g.details.get("findings", [])
    ]
    return sarif


def render(report: Report) -> str:
    return json.dumps(to_verify_sarif(report), indent=2)
