"""The library API: one function per command, each returning a report object; the CLI only
parses arguments, calls one of these and hands the report to a `report/` module. Errors
are `assay.errors.AssayError`s."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.config import Settings, apply_overrides
from assay.errors import InputError, RunFailed, ToolchainError
from assay.events import Started
from assay.execution.executor import threads
from assay.execution.order import longest_first
from assay.execution.workspace import Workspace, sweep_stale
from assay.languages import LANGUAGES, Language, language_of
from assay.model import Candidate, FileReport, LintReport, Report
from assay.pipeline import EventSink, Verifier
from assay.project import (
    Project,
    candidate,
    discover,
    find_root,
    project_root,
    project_settings,
    python_sources,
    read_source,
)
from assay.store import Store
from assay.words import counted

# what one command needs and another does not is imported where it is used, and the functions of
# other modules re-exported here on first use (`__getattr__`): `assay verify` does not load mutate's
# or prism's code, nor the diff scope without --since
if TYPE_CHECKING:
    from assay._assay_sandbox.mutation.protocol import Event as MutationEvent
    from assay.gates.base import BaseGate
    from assay.mutation.summary import MutateReport
    from assay.prism.api import prism_build, prism_check, prism_run
    from assay.sprint.api import generate_sprint, stats, tasks
    from assay.targets.api import targets
    from assay.writers.api import generate

__all__ = [
    "candidate",
    "generate",
    "integrity",
    "generate_sprint",
    "lint",
    "mutate",
    "prism_build",
    "prism_check",
    "prism_run",
    "stats",
    "targets",
    "tasks",
    "verify",
]


def _load_candidates(
    project: Project, files: list[Path], explicit: set[Path], targets: list[str] | None
) -> list[Candidate]:
    """Read each file; unreadable explicit files are input errors, unreadable discovered ones
    are rejected."""
    out = []
    for path in files:
        rel = project.rel(path)
        lang = language_of(path, project.root)
        assert lang is not None  # discover() keeps only files of known languages
        try:
            source, error = read_source(path), None
        except InputError as err:
            if path in explicit:
                raise
            source, error = "", str(err).replace(str(path), rel)
        found = targets if targets is not None else lang.targets_of(project, source, rel)
        out.append(
            Candidate(
                path=path,
                rel=rel,
                source=source,
                read_error=error,
                language=lang.name,
                targets=found,
            )
        )
    return out


def verify(
    paths: Sequence[Path | str] = (),
    settings: Settings | None = None,
    *,
    root: Path | str | None = None,
    targets: Sequence[Path | str] | None = None,
    use_cache: bool = True,
    on_event: EventSink | None = None,
    candidates: Sequence[Candidate] = (),
    gates: Sequence[BaseGate] | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
    review: str | None = None,
    languages: Sequence[str] | None = None,
    since: str | None = None,
    staged: bool = False,
) -> Report:
    """Verify test files (`paths`: files or directories) and in-memory `candidates` through
    the gates.

    On KeyboardInterrupt (Ctrl-C, or SIGTERM turned into one by the CLI) the files in flight are
    stopped, their workspaces removed, and the report holds the files that finished
    (`interrupted` set).

    `settings` default to the project's config (`config` names another file); `overrides` set dotted
    keys on them (`{"sandbox.timeout_s": 10}`); `review` (`provider:model`) adds gate 6.
    `languages`: only test files of these languages (a mixed repository). With `require_toolchain`
    set, a missing toolchain raises ToolchainError instead of `unvalidated` files. `since` (a
    revision or `auto`; `staged`: the index): diff scope, integrity check (`assay.diff.judge`)."""
    start = time.monotonic()
    if not paths and not candidates and since is None:
        raise InputError("no paths given")
    root = project_root(paths, root) if paths or root else find_root(Path.cwd())
    settings = project_settings(root, settings, config, overrides)
    if review is not None:
        from assay.pipeline import build_gates

        settings = apply_overrides(settings, {"review.reviewer": review})
        if gates is None and "review" not in (
            names := settings.gates or [g.name for g in build_gates(settings)]
        ):
            settings.gates = [*names, "review"]
    project = Project.load(root)
    path_list = [Path(p) for p in paths]
    langs = _languages(languages)
    files = discover(path_list, root, langs) if path_list else []
    if since:
        from assay.diff import judge
    diff = judge.plan(project, since, path_list, langs, staged) if since else None
    files = diff.files(project) if diff else files
    target_rels = None
    if targets:
        missing = [t for t in targets if not Path(t).is_file()]
        if missing:
            raise InputError(f"no such target file: {missing[0]}")
        target_rels = [project.rel(Path(t)) for t in targets]
    explicit = {p.resolve() for p in path_list if p.is_file()}
    todo = _load_candidates(project, files, explicit, target_rels) + list(candidates)
    if diff:
        diff.narrow(todo)
    if settings.require_toolchain:
        for name in dict.fromkeys(c.language for c in todo):
            if name in LANGUAGES and (problem := LANGUAGES[name].toolchain_problem(settings)):
                raise ToolchainError(f"{LANGUAGES[name].title} toolchain missing: {problem}")
    sweep_stale()
    if settings.scheduler:
        from assay.shipped import ShippedVerifier
    verifier = (ShippedVerifier if settings.scheduler else Verifier)(
        project, settings, use_cache, diff.progress(on_event) if diff else on_event, gates
    )
    verifier.emit(Started(len(todo)))
    jobs = settings.jobs or os.cpu_count() or 1
    start_order = longest_first(verifier.store, [c.rel for c in todo])
    verifier.batch([todo[i] for i in start_order], jobs)
    done: dict[int, FileReport] = {}
    interrupted = False
    pool = threads(max(1, min(jobs, len(todo))))
    futures: dict = {}
    try:
        futures = {pool.submit(verifier.verify_file, todo[i]): i for i in start_order}
        for future in as_completed(futures):
            if (result := future.result()) is not None:
                done[futures[future]] = result
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: stop the files in flight, keep what finished
        interrupted = True
        verifier.cancel()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        verifier.close()
    # after the shutdown: a file that said "done" just before the signal has its result set now
    if interrupted:
        for future, i in futures.items():
            if not future.cancelled() and future.exception() is None and future.result():
                done[i] = future.result()
    notes = [verifier.store.problem] if verifier.store.problem else []
    if interrupted:
        notes.append(f"interrupted: {len(done)} of {counted(len(todo), 'file')} finished")
    report = Report(
        str(root),
        [done[i] for i in sorted(done)],
        verifier.sandbox.info,
        time.monotonic() - start,
        notes,
        interrupted=interrupted,
    )
    if diff:
        report = judge.apply(report, diff)
    if settings.cache:
        with Store(root) as store:
            store.record_run("verify", time.time(), report.duration_s, report.summary())
    return report


def _languages(names: Sequence[str] | None) -> list[Language] | None:
    """The languages named (`--language`), or None for every known one."""
    if not names:
        return None
    unknown = [n for n in names if n not in LANGUAGES]
    if unknown:
        raise InputError(f"unknown language '{unknown[0]}' (known: {', '.join(LANGUAGES)})")
    return [LANGUAGES[n] for n in names]


def _mutation_tests(project: Project, paths: Sequence[Path]) -> list[str]:
    if not paths:
        raise InputError("no tests given: pass --tests tests/test_x.py (or a directory)")
    rels = []
    for p in paths:
        file = Path(str(p).split("::")[0])
        if not file.exists():
            raise InputError(f"no such test file or directory: {file}")
        rels.append(project.rel(file) + str(p)[len(str(file)) :])
    return rels


def mutate(
    paths: Sequence[Path | str],
    tests: Sequence[Path | str],
    settings: Settings | None = None,
    *,
    root: Path | str | None = None,
    threshold: float | None = None,
    use_cache: bool = True,
    progress: Callable[[MutationEvent], None] | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
    since: str | None = None,
    scope: str = "lines",
    witness: bool = False,
) -> MutateReport:
    """Mutate source files (or every module under directories) in memory and run `tests` against
    the mutants. Raises RunFailed when the run cannot give verdicts (the baseline fails,
    collection fails). `since`, `scope`: the changed code only (`assay.diff.mutants`); `witness`:
    a call each survivor gets wrong (`writers.offline.witness`)."""
    from assay.execution.executor import open_cluster
    from assay.languages.python import PYTHON, pytest_args
    from assay.mutation.codeclass import threshold_for
    from assay.mutation.distributed import DistributedEngine
    from assay.mutation.engine import Engine, MutationError
    from assay.mutation.mutants import read_sources
    from assay.sandbox import Sandbox

    if threshold is not None and not 0 <= threshold <= 100:
        raise InputError("the threshold is a percentage between 0 and 100")
    root = project_root(paths, root) if paths or root or since is None else find_root(Path.cwd())
    settings = project_settings(root, settings, config, overrides)
    project = Project.load(root)
    lang = next((language_of(Path(p), root) for p in paths if Path(p).is_file()), None)
    if lang is not None and lang.name != "python":  # the language's own tool (PIT, StrykerJS ...)
        from assay.mutation.tools import session

        paths_, tests_ = [Path(p) for p in paths], [Path(t) for t in tests]
        return session.mutate(project, settings, lang, paths_, tests_, threshold)
    from assay.diff.mutants import mutation_scope
    from assay.mutation.summary import MutateReport

    diff = mutation_scope(project, since, [Path(p) for p in paths], scope) if since else None
    if diff is not None:
        targets, tests = diff.targets, tests or [root / t for t in diff.tests]
    else:
        targets = python_sources(project, [Path(p) for p in paths])
    test_args = _mutation_tests(project, [Path(t) for t in tests])
    conf = settings.mutation
    sources = read_sources(root, targets)
    code_class, limit = threshold_for(sources, conf, project.packages)
    store = Store(root) if settings.cache and use_cache else None
    try:
        with Workspace(root) as ws, open_cluster(settings.scheduler) as cluster:
            engine = Engine(
                ws,
                Sandbox(settings.sandbox, protect=root),
                PYTHON.python(settings),
                project.source_roots,
                conf,
                pytest_args(project, settings),
                store,
            )
            if cluster is not None:  # the same run, its mutants in batches on the cluster's workers
                engine = DistributedEngine.on(cluster, settings, engine)
            only = diff.only(sources) if diff else None
            run = engine.run(targets, test_args, progress=progress, only=only)
    except MutationError as err:
        raise RunFailed(f"mutation run failed: {err}") from None
    finally:
        if store:
            store.close()
    report = MutateReport(run, threshold if threshold is not None else limit, code_class)
    if diff is not None:
        report.diff_scope = diff.to_json(len(run.mutants), len(run.results))
    if witness:
        from assay.writers.offline.witness import witnesses

        found = witnesses(project, settings, [m for m, _ in run.survivors()])
        report.witnesses = {k: w.to_json() for k, w in found.items()}
    return report


def integrity(root: Path | str | None = None, *, since: str = "HEAD", staged: bool = False) -> Any:
    """The test-diff integrity check (`assay integrity`): a `diff.judge.IntegrityReport`."""
    from assay.diff import judge

    return judge.check(Path(root).resolve() if root else find_root(Path.cwd()), since, staged)


def lint(
    paths: Sequence[Path | str],
    settings: Settings | None = None,
    *,
    root: Path | str | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> LintReport:
    """Static smell and value findings of test files; runs nothing."""
    from assay.smells import polyglot
    from assay.smells.files import lint_files

    root = project_root(paths, root)
    settings = project_settings(root, settings, config, overrides, runs_tests=False)
    files = discover([Path(p) for p in paths], root)
    project = Project.load(root)
    python = [f for f in files if f.suffix == ".py"]
    findings = lint_files(python, project, settings.smells) if python else []
    for path in files:  # other languages: tree-sitter rules (AP000-AP006)
        lang = language_of(path, root)
        if lang is not None and lang.name in polyglot.LANGUAGES:
            findings += polyglot.analyze(
                read_source(path), project.rel(path), lang.name, settings.smells, root
            )
    return LintReport(findings, len(files), settings.smells)


# the functions of assay generate and targets (issue 10), prism (issue 12) and of tasks, generate
# --sprint, stats (issue 30) live in their packages; re-exported here when first asked for
_ELSEWHERE = {
    "generate": "assay.writers.api",
    "targets": "assay.targets.api",
    "prism_build": "assay.prism.api",
    "prism_check": "assay.prism.api",
    "prism_run": "assay.prism.api",
    "generate_sprint": "assay.sprint.api",
    "stats": "assay.sprint.api",
    "tasks": "assay.sprint.api",
}


def __getattr__(name: str) -> Any:
    if name in _ELSEWHERE:
        import importlib

        return getattr(importlib.import_module(_ELSEWHERE[name]), name)
    raise AttributeError(f"module 'assay.api' has no attribute {name!r}")
