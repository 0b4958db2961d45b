"""One `assay generate` run put together: settings, targets, writer, reviewer, budget, cache, recorder, output.
Kept apart from the loop so that the loop only knows the protocol types."""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

from assay.config import Settings
from assay.errors import InputError
from assay.gates.review import ReviewGate
from assay.llm import Budget, Recorder, make_client, parse_spec
from assay.llm.prompts import Prompts
from assay.project import Project
from assay.store import Store
from assay.targets import resolve
from assay.targets.changes import changed_lines
from assay.targets.coverage import measure
from assay.writers import WRITERS
from assay.writers.base import Writer
from assay.writers.loop import GenerateSink, Generator
from assay.writers.output import Output
from assay.writers.report import GenerateReport


def generate_settings(settings: Settings) -> Settings:
    """The settings candidates are verified with: the smells profile for generated tests (AS003 rejects)."""
    out = settings.model_copy(deep=True)
    out.smells.profile = "generated"
    return out


def make_writer(spec: str, settings: Settings, *, store: Store, use_cache: bool, budget: Budget,
                recorder: Recorder | None, prompts: Prompts, root: Path) -> Writer:
    name, _, arg = spec.partition(":")
    if name in WRITERS:
        module, _, cls = WRITERS[name].partition(":")
        return getattr(importlib.import_module(module), cls)(arg, settings)
    from assay.writers.llm import LLMWriter

    parse_spec(spec, "writer")
    client = make_client(spec, settings.llm, role="writer", store=store, use_cache=use_cache, budget=budget,
                         recorder=recorder, root=root)
    return LLMWriter(client, prompts)


def run_generate(project: Project, settings: Settings, specs: list[str], *, since: str | None = None,
                 task: str | None = None, use_cache: bool = True, dry_run: bool = False, record: Path | None = None,
                 on_event: GenerateSink | None = None) -> GenerateReport:
    start = time.monotonic()
    conf = settings.generate
    assert conf.writer, "api.generate sends a run without a model writer to the offline writer"
    if not specs and not since:
        raise InputError("nothing to generate for: name a module (src/pkg/mod.py), a function (mod.py::func), a "
                         "targets JSON file, or --since REV")
    if task is not None and not task.strip():
        raise InputError("--task is empty")
    root = project.root
    templates = Path(conf.templates) if conf.templates else None
    prompts = Prompts(templates if templates is None or templates.is_absolute() else root / templates)
    changed = changed_lines(root, since) if since else None
    notes: list[str] = []
    store = Store(root if settings.cache else None)
    if store.problem:
        notes.append(store.problem)
    budget = Budget(conf.max_tokens, conf.max_cost)
    recorder = Recorder(record) if record is not None else None
    gsettings = generate_settings(settings)
    writer: Writer | None = None
    reviewer: ReviewGate | None = None
    try:
        # bad input first, in a second: the writer, the reviewer and the targets are checked before the
        # coverage run, which takes as long as the project's tests
        writer = make_writer(conf.writer, gsettings, store=store, use_cache=use_cache, budget=budget,
                             recorder=recorder, prompts=prompts, root=root)
        if settings.review.reviewer:
            client = make_client(settings.review.reviewer, settings.llm, role="reviewer", store=store,
                                 use_cache=use_cache, budget=budget, recorder=recorder, root=root)
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
            return GenerateReport(str(root), conf.writer, settings.review.reviewer, [], budget.usage.to_json(),
                                  time.monotonic() - start, dry_run, None, notes)
        output = Output(project, conf.output_dir, conf.file_name, dry_run)
        gen = Generator(project, gsettings, writer, reviewer, budget, output, prompts, use_cache, on_event)
        results = gen.run(targets, conf.jobs or os.cpu_count() or 1)
        bug_files = output.write_bugs(conf.bugs_file, [b for r in results for b in r.suspected_bugs])
    finally:
        for owner in (writer, reviewer):
            if (opened := getattr(owner, "client", None)) is not None:
                opened.close()
        store.close()
    return GenerateReport(str(root), conf.writer, settings.review.reviewer, results, budget.usage.to_json(),
                          time.monotonic() - start, dry_run, gen.stopped, notes, bug_files, gen.fatal)
