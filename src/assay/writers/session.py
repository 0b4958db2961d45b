"""One `assay generate` run of the repair loop put together: settings, targets, writer, reviewer,
budget, cache, recorder, output. Kept apart from the loop so that the loop only knows the protocol
types. `LoopWriter` is the base of the writers the loop drives: `WRITERS` names them, and their
`generate` comes here."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from assay.config import Settings
from assay.errors import InputError
from assay.gates.review import ReviewGate
from assay.llm import Budget, Recorder, make_client
from assay.llm.prompts import Prompts
from assay.project import Project
from assay.store import Store
from assay.targets import resolve
from assay.targets.changes import changed_lines
from assay.targets.coverage import measure
from assay.targets.model import Target
from assay.writers.base import Attempt, Feedback, GenerateRequest, WriteContext, Writer
from assay.writers.loop import Generator
from assay.writers.output import Output
from assay.writers.report import GenerateReport


def generate_settings(settings: Settings) -> Settings:
    """The settings candidates are verified with: the smells profile for generated tests
    (AS003 rejects)."""
    out = settings.model_copy(deep=True)
    out.smells.profile = "generated"
    return out


@dataclass
class Resources:
    """What one run shares with the writer it builds: the cache, the budget, the recorder,
    the prompts."""

    store: Store
    use_cache: bool
    budget: Budget
    recorder: Recorder | None
    prompts: Prompts
    root: Path


class LoopWriter:
    """Base of the writers the repair loop drives. `create` builds one for a run (by default
    `cls(arg, settings)`, `arg` being what follows `name:` in `--writer`); `generate` runs the loop
    with it."""

    name: str = ""
    revises: ClassVar[bool] = True  # False: the loop calls `write` again instead of `revise`

    def __init__(self, arg: str = "", settings: Settings | None = None) -> None:
        self.arg = arg
        self.settings = settings

    @classmethod
    def create(cls, spec: str, settings: Settings, resources: Resources) -> Writer:
        writer: Writer = cls(spec.partition(":")[2], settings)
        return writer

    @classmethod
    def generate(cls, request: GenerateRequest) -> GenerateReport:
        return run_generate(request, cls)

    def write(self, target: Target, context: WriteContext) -> Attempt:
        raise NotImplementedError

    def revise(self, attempt: Attempt, feedback: Feedback) -> Attempt:
        raise NotImplementedError


def run_generate(request: GenerateRequest, kind: type[LoopWriter]) -> GenerateReport:
    start = time.monotonic()
    project, settings, specs = Project.load(request.root), request.settings, request.specs
    since, task, use_cache, dry_run = (
        request.since,
        request.task,
        request.use_cache,
        request.dry_run,
    )
    record, on_event, spec = request.record, request.on_event, request.writer
    conf = settings.generate
    if not specs and not since:
        raise InputError(
            "nothing to generate for: name a module (src/pkg/mod.py), a function (mod.py::func), a "
            "targets JSON file, or --since REV"
        )
    if task is not None and not task.strip():
        raise InputError("--task is empty")
    root = project.root
    templates = Path(conf.templates) if conf.templates else None
    prompts = Prompts(
        templates if templates is None or templates.is_absolute() else root / templates
    )
    changed = changed_lines(root, since) if since else None
    notes: list[str] = []
    store = Store(root if settings.cache else None)
    if store.problem:
        notes.append(store.problem)
    budget = Budget(conf.max_tokens, conf.max_cost)
    recorder = request.recorder or (Recorder(record) if record is not None else None)
    gsettings = generate_settings(settings)
    writer: Writer | None = None
    reviewer: ReviewGate | None = None
    try:
        # bad input first, in a second: the writer, the reviewer and the targets are checked before
        # the coverage run, which takes as long as the project's tests
        writer = kind.create(
            spec, gsettings, Resources(store, use_cache, budget, recorder, prompts, root)
        )
        if settings.review.reviewer:
            client = make_client(
                settings.review.reviewer,
                settings.llm,
                role="reviewer",
                store=store,
                use_cache=use_cache,
                budget=budget,
                recorder=recorder,
                root=root,
            )
            reviewer = ReviewGate(gsettings, client, prompts)
        targets = resolve(project, specs, None, task, changed, since)
        # another language's target has no coverage run: only Python's tests are measured
        if since or any(Path(spec.split("::")[0]).suffix in (".py", ".json") for spec in specs):
            cov = measure(project, settings, use_cache)
            if cov.problem:
                notes.append(f"coverage not measured: {cov.problem}")
            targets = resolve(project, specs, cov, task, changed, since)
        if conf.max_cost and not settings.llm.prices:
            notes.append("--max-cost has no effect: no prices configured ([tool.assay.llm] prices)")
        if not targets:
            notes.append(f"no functions changed since {since}" if since else "no targets")
            return GenerateReport(
                str(root),
                spec,
                settings.review.reviewer,
                [],
                budget.usage.to_json(),
                time.monotonic() - start,
                dry_run,
                None,
                notes,
            )
        output = Output(project, conf.output_dir, conf.file_name, dry_run)
        gen = Generator(
            project, gsettings, writer, reviewer, budget, output, prompts, use_cache, on_event
        )
        results = gen.run(targets, conf.jobs or os.cpu_count() or 1)
        bug_files = output.write_bugs(
            conf.bugs_file, [b for r in results for b in r.suspected_bugs]
        )
    finally:
        for owner in (writer, reviewer):
            if (opened := getattr(owner, "client", None)) is not None:
                opened.close()
        store.close()
    return GenerateReport(
        str(root),
        spec,
        settings.review.reviewer,
        results,
        budget.usage.to_json(),
        time.monotonic() - start,
        dry_run,
        gen.stopped,
        notes,
        bug_files,
        gen.fatal,
    )
