"""`assay mcp`: an MCP server on stdio (the official `mcp` SDK) whose tools call the same
`assay.api` functions as the CLI and answer with the records of `agents.answers`.

Paths in tool arguments are relative to the project root the server was started for. An input
error (a missing file, a bad option) is a tool error with assay's one line, never a crash."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from assay import api
from assay.agents import diff_scoped
from assay.agents.answers import (
    GenerateAnswer,
    MutateAnswer,
    SurvivorsAnswer,
    VerifyAnswer,
    generate_answer,
    mutate_answer,
    survivors_answer,
    verify_answer,
)
from assay.errors import AssayError
from assay.mutation.summary import MutateReport
from assay.project import find_root

T = TypeVar("T")
INSTRUCTIONS = (
    "assay judges unit tests: verify gives each test file a verdict (accepted, rejected, flaky, "
    "low_value, unvalidated) and, when not accepted, the feedback to act on; mutate and survivors "
    "show the code changes no test notices; generate writes tests for a module."
)


def _call(fn: Callable[[], T]) -> T:
    """AssayErrors (bad input, a missing toolchain, a run that could not judge) reach the agent
    as the CLI's one line."""
    try:
        return fn()
    except AssayError as err:
        raise ToolError(f"assay: {err}") from None


def build_server(root: Path) -> MCPServer:
    root = root.resolve()
    server = MCPServer("assay", instructions=INSTRUCTIONS)

    def paths_of(paths: list[str]) -> list[Path]:
        return [root / p for p in paths]

    def since_of(fn: Callable[..., Any], since: str | None) -> dict[str, Any]:
        if since is None:
            return {}
        if not diff_scoped(fn):
            raise ToolError("assay: this version of assay has no diff scope (`since`); give paths")
        return {"since": since}

    @server.tool()
    def verify(paths: list[str] | None = None, since: str | None = None) -> VerifyAnswer:
        """Put test files (or directories) through assay's gates: a verdict per file and per test,
        as `assay verify`. `since`: a git revision (`auto`: the merge base with the default
        branch): only the test files the change touched and those covering changed code, plus
        the test-diff integrity findings. Not accepted: read `feedback` and fix the test, not the
        verdict."""
        if not paths and since is None:
            raise ToolError("assay: give paths (test files or directories) or since")
        extra = since_of(api.verify, since)
        report = _call(lambda: api.verify(paths_of(paths or []), root=root, **extra))
        return verify_answer(report)

    def run_mutate(targets: list[str], tests: list[str], since: str | None) -> MutateReport:
        extra = since_of(api.mutate, since)
        return _call(lambda: api.mutate(paths_of(targets), paths_of(tests), root=root, **extra))

    @server.tool()
    def mutate(targets: list[str], tests: list[str], since: str | None = None) -> MutateAnswer:
        """Mutate source files (`targets`) and run `tests` against each mutant, as `assay mutate`:
        the score against the threshold and the first surviving mutants. `since`: only the lines
        changed since that git revision."""
        return mutate_answer(run_mutate(targets, tests, since))

    @server.tool()
    def survivors(
        targets: list[str], tests: list[str], since: str | None = None
    ) -> SurvivorsAnswer:
        """Every mutant of `targets` that `tests` let survive, most-run lines first: the line, the
        change, the closest tests and, where known, what a killing test must assert. Cached
        verdicts make a call after `mutate` cheap."""
        return survivors_answer(run_mutate(targets, tests, since))

    @server.tool()
    def generate(
        modules: list[str] | None = None, since: str | None = None, dry_run: bool = False
    ) -> GenerateAnswer:
        """Write tests with the configured writer (default: the offline writer, no model), as
        `assay generate`: `modules` are source files or `file.py::function`; `since` a git
        revision whose changed functions get tests. Only tests the gates accept are written;
        `dry_run` writes nothing."""
        if not modules and since is None:
            raise ToolError("assay: give modules (source files) or since")
        specs = [str(root / m) for m in modules or []]
        report = _call(lambda: api.generate(specs, root=root, since=since, dry_run=dry_run))
        return generate_answer(report)

    return server


def serve(root: Path | None = None) -> None:
    """Answer on stdin/stdout until the client closes the connection; `root` defaults to the
    project around the working directory."""
    build_server(root or find_root(Path.cwd())).run("stdio")
