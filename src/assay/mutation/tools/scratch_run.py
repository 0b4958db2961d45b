"""Running a mutation tool's command in the scratch copy of a `ToolRequest`, through assay's
sandbox with the language's own profile; line/column spans turned into `Mutant` offsets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import RunFailed
from assay.mutation.mutants import display
from assay.sandbox import RunResult
from assay.sandbox.process import WORKSPACE_PREFIX

if TYPE_CHECKING:
    from assay.mutation.tools.base import ToolRequest
    from assay.sandbox import Profile


class ToolFailed(RunFailed):
    """The tool gave no verdicts (it crashed, timed out or its baseline failed): one line saying
    why. The file is then `unvalidated`, never rejected."""


@dataclass(frozen=True)
class ScratchDirs:
    """Where a tool's HOME, build cache and report go: beside the scratch project when it is an
    assay workspace (`<ws>/tree/<the user's path>`, `<ws>/run`, `<ws>/cache`), else inside the
    scratch copy."""

    home: Path
    cache: Path
    out: Path

    @classmethod
    def of(cls, root: Path, tool: str) -> ScratchDirs:
        base = next(
            (
                p
                for p in root.parents
                if p.name.startswith(WORKSPACE_PREFIX)
                and (p / "run").is_dir()
                and root.is_relative_to(p / "tree")
            ),
            None,
        )
        if base is None:
            base = root / ".assay-tool"
        dirs = cls(base / "run" / "home", base / "cache", base / "run" / tool)
        for d in (dirs.home, dirs.cache, dirs.out):
            d.mkdir(parents=True, exist_ok=True)
        return dirs


def ended(ran: RunResult, limit_s: float) -> str:
    """Why a tool's run ended without a report, in words a user can act on: a timeout says how
    long it ran and which setting bounds it (nanoid's "StrykerJS failed: timed out" said
    neither)."""
    if ran.timed_out:
        return (
            f"timed out after {ran.duration_s:.0f} s (gate 4 gives the tool {limit_s:g} s: "
            "the larger of 600 s and `sandbox.timeout_s`)"
        )
    return ran.limit_hit or f"exit {ran.returncode}"


def run_tool(
    request: ToolRequest,
    argv: list[str],
    cwd: Path,
    profile: Profile,
    dirs: ScratchDirs,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> RunResult:
    environ = request.sandbox.env_for(dirs.home, extra=env, profile=profile, cache=dirs.cache)
    return request.sandbox.run(
        argv, cwd=cwd, env=environ, timeout=timeout or request.timeout_s, profile=profile
    )


def offset(text: str, line: int, col: int) -> int:
    """Character offset of a 1-based line and 0-based column in `text` (clamped to the text)."""
    lines = text.splitlines(keepends=True)
    if line < 1:
        return 0
    if line > len(lines):
        return len(text)
    return min(sum(len(x) for x in lines[: line - 1]) + col, len(text))


def touched_lines(text: str, line: int, end_line: int) -> str:
    """The source lines a mutant touches, for feedback: on one line and capped, as Python's mutants
    show them (a Rust `FnValue` mutant replaces a whole function body; Go's lines start with
    tabs)."""
    return display(text, line, end_line)
