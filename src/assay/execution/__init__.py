"""Running tests, apart from judging them: scratch workspaces with overlays, the sandbox and its profiles, and
the Runner protocol every language implements. Every command runs tests through this layer."""

from assay.execution.runner import CompileResult, Order, Outcome, Problem, Runner, TestResult, TestRun
from assay.execution.sandbox import PYTHON, Profile, RunResult, Sandbox
from assay.execution.workspace import Workspace, sweep_stale

__all__ = ["PYTHON", "CompileResult", "Order", "Outcome", "Problem", "Profile", "RunResult", "Runner", "Sandbox",
           "TestResult", "TestRun", "Workspace", "sweep_stale"]
