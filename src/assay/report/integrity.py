"""`assay integrity` reports: text (one line per finding), JSON (`assay.integrity/1`), SARIF."""

from __future__ import annotations

import json
from typing import Any

from assay.diff.judge import IntegrityReport
from assay.diff.rules import RULES
from assay.report.sarif import INFORMATION_URI, SARIF_LEVEL, SCHEMA
from assay.version import __version__


def render_text(report: IntegrityReport) -> str:
    lines = [f.text + f" [{f.level}]" for f in report.findings]
    changed = len(report.changes.files)
    where = "the index" if report.changes.staged else "the working tree"
    lines.append(
        f"{len(report.findings)} finding{'' if len(report.findings) == 1 else 's'} in the test "
        f"diff of {where} since {report.changes.since} ({changed} changed "
        f"file{'' if changed == 1 else 's'})"
    )
    return "\n".join(lines) + "\n"


def render_json(report: IntegrityReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def render_sarif(report: IntegrityReport) -> str:
    ids = list(RULES)
    rules: list[dict[str, Any]] = [
        {
            "id": r.id,
            "name": "".join(p.capitalize() for p in r.name.split("-")),
            "shortDescription": {"text": r.message},
            "fullDescription": {"text": r.doc.split("\n\n")[0].replace("\n", " ")},
            "help": {"text": r.doc},
        }
        for r in RULES.values()
    ]
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": ids.index(f.rule),
            "level": SARIF_LEVEL[f.level],
            "message": {"text": f.text},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": max(f.line, 1)},
                    }
                }
            ],
        }
        for f in report.findings
    ]
    driver = {"name": "assay", "informationUri": INFORMATION_URI, "version": __version__}
    run = {
        "tool": {"driver": {**driver, "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the project root"}}},
        "results": results,
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2)
