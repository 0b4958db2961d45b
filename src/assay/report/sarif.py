"""SARIF 2.1.0 for smells findings, in the shape GitHub code scanning accepts."""

from __future__ import annotations

import json
from typing import Any

from assay.model import LintReport
from assay.smells import RULES, Finding, SmellsConfig, level_of
from assay.version import __version__

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/assay/"
SARIF_LEVEL = {"reject": "error", "warn": "warning", "info": "note"}


def _pascal(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("-"))


def _rule(rule: Any, config: SmellsConfig) -> dict[str, Any]:
    level = level_of(rule, config)
    return {
        "id": rule.id,
        "name": _pascal(rule.name),
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": rule.doc.split("\n\n")[0].replace("\n", " ")},
        "help": {"text": f"{rule.hint}\n\n{rule.doc}"},
        "defaultConfiguration": {"level": SARIF_LEVEL.get(level, "none")},
    }


def to_sarif(
    findings: list[Finding], version: str, config: SmellsConfig | None = None
) -> dict[str, Any]:
    """One run with every rule described; result paths are relative to %SRCROOT% (the
    project root)."""
    config = config or SmellsConfig()
    ids = list(RULES)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "assay",
                        "informationUri": INFORMATION_URI,
                        "version": version,
                        "rules": [_rule(r, config) for r in RULES.values()],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the project root"}}},
                "results": [
                    {
                        "ruleId": f.rule,
                        "ruleIndex": ids.index(f.rule),
                        "level": SARIF_LEVEL[f.level],
                        "message": {"text": f.text},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                                    "region": {
                                        "startLine": max(f.line, 1),
                                        "startColumn": max(f.col, 1),
                                    },
                                }
                            }
                        ],
                    }
                    for f in findings
                ],
            }
        ],
    }


def render(report: LintReport) -> str:
    return json.dumps(to_sarif(report.findings, __version__, report.config), indent=2)
