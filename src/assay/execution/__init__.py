"""Running tests, apart from judging them: scratch workspaces with overlays and the Runner protocol
every language implements. Every command runs tests through this layer; the limits live one layer
down, in `assay.sandbox`."""

from assay.execution.runner import (
    CompileResult,
    Order,
    Outcome,
    Problem,
    Runner,
    TestResult,
    TestRun,
)
from assay.execution.workspace import Workspace, sweep_stale

__all__ = [
    "CompileResult",
    "Order",
    "Outcome",
    "Problem",
    "Runner",
    "TestResult",
    "TestRun",
    "Workspace",
    "sweep_stale",
]
