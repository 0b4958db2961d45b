"""The writer protocols: what every writer of tests gets and returns, and what
`writers.WRITERS` names.

Writers the repair loop drives (`Writer`: LLM writers, agent CLIs behind the `command` provider, any
`session.LoopWriter`) never run the gates themselves; the loop (`writers/loop.py`) verifies every
attempt in memory and sends the gates' own feedback back through `revise`. A writer that does not
repair sets `revises = False`, and the loop asks it to `write` again. A kind of writer that runs the
whole command its own way (the offline writer: search, not repair) implements `WriterKind.generate`
and returns its own `WriterReport`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

from assay.config import Settings
from assay.events import ProgressEvent
from assay.languages.base import WritePlan
from assay.llm.base import Call
from assay.llm.brief import WriteBrief
from assay.llm.replay import Recorder
from assay.model import FileReport
from assay.project import Project
from assay.targets.model import Target

if TYPE_CHECKING:
    from assay.pipeline import Verifier

AttemptKind = Literal["write", "revise", "review-revise", "rewrite"]


@dataclass
class WriteContext:
    """Everything about a target that is not the target itself, computed once per target by
    the loop."""

    project: Project
    settings: Settings
    test_path: str  # project-relative path the file will be verified (and written) at
    excerpt: str  # the code under test as the writer should see it (llm.excerpt.excerpt)
    # the project's tests of this module, summarised (another language: one as an example)
    existing_tests: str
    rules: str  # what the gates enforce, one paragraph
    language: str = "python"
    verifier: Verifier | None = None  # sandbox and workspaces, for writers that run code
    # another language than Python: its test file, framework and imports
    plan: WritePlan | None = None
    # Python: how the write prompt ends (imports, behaviours to test, an example test)
    brief: WriteBrief | None = None


@dataclass
class Feedback:
    """Why an attempt was not accepted, as the writer gets it. `text` is what an LLM reads (<= 50
    lines, cheap causes first); the rest is typed for writers that act on structure (failing tests,
    surviving mutants)."""

    text: str
    # compile | green | stability | mutation | smells | review | None (answer format)
    gate: str | None = None
    failing_tests: list[str] = field(default_factory=list)
    survivors: list[dict[str, Any]] = field(default_factory=list)  # gate 4's surviving mutants
    report: FileReport | None = None  # the whole verification of the attempt, when there was one
    # tests taken out for good (flaky, suspected bugs)
    dropped: list[str] = field(default_factory=list)


@dataclass
class Attempt:
    """One test file a writer produced (or the reason it produced none)."""

    target: Target
    context: WriteContext
    # the complete test file; None when the answer held none (then `problem` says why)
    source: str | None
    kind: AttemptKind = "write"
    rationale: str = ""  # the writer's own words on what the tests cover (shown to the reviewer)
    problem: str | None = None  # answer-format reject: no code block, truncated, wrong language
    # model calls made for this attempt (none without a model)
    calls: list[Call] = field(default_factory=list)
    parent: Attempt | None = None
    copied: list[str] = field(default_factory=list)  # pasted definitions taken out of the answer
    imported: list[str] = field(default_factory=list)  # names the answer used, imports added
    unbound: list[str] = field(default_factory=list)  # tests taken out: a decorator's unbound name
    borrowed: list[str] = field(default_factory=list)  # tables of the project's tests copied in


@runtime_checkable
class Writer(Protocol):
    """`write` starts a file for a target; `revise` answers feedback on an attempt with a new
    attempt. Both may raise `assay.llm.LLMError` (BudgetExhausted, PermanentError, TransientError
    after retries)."""

    name: str
    revises: ClassVar[bool]  # False: the loop calls `write` again instead of `revise`

    def write(self, target: Target, context: WriteContext) -> Attempt: ...

    def revise(self, attempt: Attempt, feedback: Feedback) -> Attempt: ...


@dataclass
class GenerateRequest:
    """One `assay generate` as `api.generate` received it: what a kind of writer in
    `WRITERS` runs."""

    root: Path
    settings: Settings
    specs: list[str]  # modules, `mod.py::func`, targets JSON files
    writer: str  # `name` or `name:arg` (`openai:gpt-4.1-mini`, `replay:answers.jsonl`, `offline`)
    since: str | None = None
    task: str | None = None
    use_cache: bool = True
    dry_run: bool = False
    record: Path | None = None  # every model answer to this JSONL file
    # (event, target, detail); "note" is one line
    on_event: Callable[[ProgressEvent], None] | None = None
    crosshair: bool | None = None  # None: where installed; False: never (writers that use it)
    recorder: Recorder | None = None  # or to this one, shared with other runs (a sprint's tasks)


class WriterReport(Protocol):
    """What a generate run returns: `kind` names its reporters (`report.WRITER_FORMATS`)."""

    kind: ClassVar[str]
    written_by: ClassVar[str]  # for messages: "the offline writer"

    @property
    def exit_code(self) -> int: ...


class WriterKind(Protocol):
    """What a line of `writers.WRITERS` names: a class whose `generate` runs a whole
    `assay generate` with writers of its kind (the repair loop's writers inherit it
    from `writers.session.LoopWriter`)."""

    @classmethod
    def generate(cls, request: GenerateRequest) -> WriterReport: ...
