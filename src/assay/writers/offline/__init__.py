"""The offline writer: mutant-killing characterization tests with no LLM and no key.

Entry points: `generate_offline(...)` (what `assay generate` runs when no model writer is
configured: `WRITERS` names `session.OfflineSession`) and
`OfflineWriter(project, settings).write(target)` (one module, returns the file text and the report;
writes nothing). Modules: `targets` (functions and skips, `--since`), `mine` (inputs from tests and
doctests; `bindings`: what a test's names stand for; `exports`: re-exports followed), `regex`
(strings that reach the module's data), `crosshair` (path-covering inputs, optional), `probe` (the
sandboxed run), `cover` (set cover, gate 4 foreseen), `minimise` (no
redundant case: the chosen cases' whole kill sets), `render` (the pytest file), `place` (where it
goes), `markers` (does the project accept the marks), `writer` (the steps, within the budget;
`verification`: gates 1-5 in rounds; `outcomes`: each function's line in the report), `session`
(one run over many modules)."""

from __future__ import annotations

from assay.writers.offline.model import (
    CHARACTERIZATION_NOTE,
    FunctionReport,
    ModuleResult,
    OfflineReport,
    OfflineTarget,
    PinnedTest,
)
from assay.writers.offline.session import OfflineSession, generate_offline
from assay.writers.offline.writer import OfflineWriter

__all__ = [
    "CHARACTERIZATION_NOTE",
    "FunctionReport",
    "ModuleResult",
    "OfflineReport",
    "OfflineSession",
    "OfflineTarget",
    "OfflineWriter",
    "PinnedTest",
    "generate_offline",
]
