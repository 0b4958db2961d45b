"""Mutation testing outside Python: each language's own mature tool (PIT, StrykerJS,
cargo-mutants, a Go engine) run in assay's sandbox on the scratch copy, read back into the same
`MutationResult` the Python engine gives, so gate 4, `assay mutate`, the reports and the feedback
stay one code path whatever the language."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assay._assay_sandbox.mutation.protocol import BaselineTest
from assay.mutation.model import Mutant, MutantResult, MutationResult

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.execution.workspace import Workspace
    from assay.languages.base import Language
    from assay.project import Project
    from assay.sandbox import Profile, RunResult, Sandbox


@dataclass(frozen=True)
class ToolRequest:
    """What to mutate and with which tests, in a writable scratch copy (never the user's tree)."""

    root: Path  # the scratch copy
    project: Project
    settings: Settings
    sandbox: Sandbox
    tests: tuple[str, ...]  # project-relative test files whose tests judge the mutants
    targets: tuple[str, ...]  # project-relative source files to mutate
    lines: dict[str, frozenset[int]] | None = None  # only these lines of a target (diff scope)
    timeout_s: float = 60.0  # the whole tool run; each mutant's own timeout is the tool's rule
    # the scratch copy's workspace (HOME and build cache of the sandboxed run); None: under `root`
    workspace: Workspace | None = None
    passing: tuple[str, ...] = ()  # gate 2's test ids: a tool's test names are mapped onto them
    # gate 4: only the mutants of functions the tests run, where the tool tells (Python's scope);
    # `assay mutate` keeps every mutant, NoCoverage included
    executed_only: bool = False

    def exec(
        self, argv: list[str], cwd: str, profile: Profile, env: dict[str, str] | None = None
    ) -> RunResult:
        """`argv` in the sandbox under `profile`, in the project-relative `cwd` of the copy."""
        run_dir = self.workspace.run_dir if self.workspace else self.root.parent / "tool-run"
        cache = self.workspace.cache_dir if self.workspace else self.root.parent / "tool-cache"
        cache.mkdir(parents=True, exist_ok=True)
        environ = self.sandbox.env_for(run_dir / "home", extra=env, profile=profile, cache=cache)
        return self.sandbox.run(
            argv, cwd=self.root / cwd, env=environ, timeout=self.timeout_s, profile=profile
        )


class MutationTool(Protocol):
    """One language's mutation tool: a module in this package plus one line in `REGISTRY`."""

    name: str  # the tool as users know it: "pit", "stryker", "cargo-mutants"
    language: str  # `Language.name` it serves
    # whether a result names the very tests that killed a mutant (else every test of the file is
    # named: no test can then be told redundant)
    per_test_kills: bool

    def unavailable(self, request: ToolRequest) -> str | None:
        """Why the tool cannot serve this project at all (a Gradle build for PIT-through-Maven), or
        None: gate 4 then skips as for a language with no tool, with no verdict."""
        ...

    def problem(self, request: ToolRequest) -> str | None:
        """One line naming what is missing to run here (toolchain, plugin, runner), or None.
        A problem makes the file `unvalidated`, never rejected, and is never cached."""
        ...

    def run(self, request: ToolRequest) -> MutationResult:
        """Run the tool scoped to `targets` and `tests` and return every mutant with its status
        (killed_by / covered_by filled where the tool reports them)."""
        ...


def span_mutant(
    mutant_id: str,
    file: str,
    source: str,
    start: tuple[int, int],
    end: tuple[int, int],
    replacement: str,
    operator: str,
    after: str | None = None,
    reprint: Callable[[str, str], str] | None = None,
) -> Mutant:
    """A tool's mutant as assay's: `start`/`end` are 1-based (line, column), end exclusive, as in
    the mutation-testing-elements schema; `after` overrides the mutated line shown in feedback
    (a tool that names its change instead of giving the text: PIT); `reprint(original,
    replacement)` gives the replacement in the source's own text (a tool that prints the mutated
    node afresh: StrykerJS)."""
    lines = source.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(line: int, col: int) -> int:
        line = min(max(line, 1), len(lines))
        return min(offsets[line - 1] + max(col - 1, 0), len(source))

    a, b = offset(*start), offset(*end)
    if reprint is not None:
        replacement = reprint(source[a:b], replacement)
    first, last = min(max(start[0], 1), len(lines)), min(max(end[0], 1), len(lines))
    before = _compact("\n".join(lines[first - 1 : last]))
    mutated = _compact(source[offsets[first - 1] : a] + replacement + source[b : offsets[last] - 1])
    return Mutant(
        id=mutant_id,
        file=file,
        operator=operator,
        start=a,
        end=b,
        line=start[0],
        col=max(start[1] - 1, 0),
        end_line=end[0],
        end_col=max(end[1] - 1, 0),
        original=source[a:b],
        replacement=replacement,
        function="",
        before=before,
        after=mutated if after is None else after,
    )


def _compact(code: str, width: int = 100) -> str:
    """The touched lines on one line for feedback: whitespace runs folded, long text cut."""
    text = " ".join(code.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def assemble(
    mutants: list[Mutant],
    results: dict[str, MutantResult],
    sources: dict[str, str],
    request: ToolRequest,
    duration: float,
) -> MutationResult:
    """A tool's mutants in the shape the gate and the reports read, with each line's number of
    covering tests (survivors on the most-run lines come first in feedback)."""
    line_tests: dict[str, dict[int, int]] = {}
    ran: dict[str, None] = dict.fromkeys(request.passing)
    for m in mutants:
        if m.id not in results:  # out of gate 4's scope
            continue
        covered = results[m.id].covered_by
        row = line_tests.setdefault(m.file, {})
        row[m.line] = max(row.get(m.line, 0), len(covered))
        ran.update(dict.fromkeys(covered))
    return MutationResult(
        mutants,
        results,
        sources,
        tests=[BaselineTest(t, "passed", 0.0) for t in ran],
        line_tests=line_tests,
        duration_s=duration,
    )


def drop_other_tests(
    request: ToolRequest, language: Language, module: str, keep: Collection[str] = ()
) -> None:
    """The module's other test files out of the copy (restored at the workspace's reset): the
    tool runs only the requested tests, and a broken sibling cannot fail its build. `keep`: test
    files the requested ones import (a table of cases named like a test file)."""
    from assay.execution.workspace import SKIP_DIRS

    for dirpath, dirnames, filenames in os.walk(request.root / module):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            rel = Path(dirpath, name).relative_to(request.root).as_posix()
            if rel in request.tests or rel in keep or not language.is_test_file(rel):
                continue
            if request.workspace is not None:
                request.workspace.apply({rel: None})
            else:
                (request.root / rel).unlink()
