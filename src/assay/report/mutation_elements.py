"""Stryker's mutation-testing-elements report (schema version 2) of a mutation run.

Locations are 1-based lines and columns; `replacement` is the exact text that replaces the span, so
that applying it to the file on disk reproduces the mutant.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from assay.mutation.model import MutationResult, Status

SCHEMA = "https://git.io/mutation-testing-schema"
# the viewer's syntax highlighting, by file suffix
LANGUAGES = {
    ".py": "python",
    ".java": "java",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".cs": "csharp",
}


def language(rel: str) -> str:
    return LANGUAGES.get(PurePosixPath(rel).suffix, PurePosixPath(rel).suffix.lstrip("."))


def elements(run: MutationResult, thresholds: tuple[float, float] = (80, 60)) -> dict[str, Any]:
    files: dict[str, Any] = {
        rel: {"language": language(rel), "source": text, "mutants": []}
        for rel, text in run.sources.items()
    }
    for m, r in run.scored:
        mutant = {
            "id": m.id,
            "mutatorName": m.operator,
            "replacement": m.replacement,
            "location": {
                "start": {"line": m.line, "column": m.col + 1},
                "end": {"line": m.end_line, "column": m.end_col + 1},
            },
            "status": r.status.value,
            "coveredBy": r.covered_by,
            "killedBy": r.killed_by,
            "testsCompleted": r.tests_completed,
            "duration": round(r.duration_s * 1000),
            "static": False,
        }
        if r.reason:
            mutant["statusReason"] = r.reason
        if r.status is Status.UNEXERCISED:  # not in the schema: not counted, as Ignored
            mutant["status"] = Status.IGNORED.value
            mutant["statusReason"] = f"unexercised: {r.reason}"
        files[m.file]["mutants"].append(mutant)
    test_files: dict[str, Any] = {}
    for t in run.tests:
        path, _, name = t.id.partition("::")
        test_files.setdefault(path, {"tests": []})["tests"].append(
            {"id": t.id, "name": name or t.id}
        )
    return {
        "$schema": SCHEMA,
        "schemaVersion": "2",
        "thresholds": {"high": thresholds[0], "low": thresholds[1]},
        "projectRoot": ".",
        "files": files,
        "testFiles": test_files,
        "framework": {"name": "assay"},
    }


def render(run: MutationResult) -> str:
    return json.dumps(elements(run), indent=2) + "\n"
