"""Diff scope and test-diff integrity (issue 29): what a change touched (`changes`), which test
files it puts in scope and why (`scope`), and what it did to the tests (`integrity`, rules
AI001…). Used by `verify --since`, `mutate --since` and `assay integrity`."""

from assay.diff.changes import AUTO, ChangeSet, FileChange, Kind, changes
from assay.diff.integrity import integrity
from assay.diff.rules import RULES, IntegrityFinding, IntegrityRule
from assay.diff.scope import InScope, scope

__all__ = [
    "AUTO",
    "RULES",
    "ChangeSet",
    "FileChange",
    "InScope",
    "IntegrityFinding",
    "IntegrityRule",
    "Kind",
    "changes",
    "integrity",
    "scope",
]
