"""`verify`: each candidate file through the gates in order, stopping at the first reject.

Data flows one way: candidate -> scratch workspace -> gates -> verdict -> Report. Results are cached by
a hash of everything that can change them; nothing here prints.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from assay import __version__
from assay.config import Settings, load_settings
from assay.gates import REGISTRY
from assay.gates.base import Gate, GateContext
from assay.model import (
    GATE_ORDER,
    Candidate,
    FileReport,
    GateResult,
    GateStatus,
    Report,
    TestOutcome,
    Verdict,
)
from assay.project import InputError, Project, discover, find_root, read_source
from assay.sandbox import Sandbox
from assay.store import Store
from assay.workspace import Workspace, sweep_stale

EventSink = Callable[[str, str, str], None]  # (event, file, detail): "start"/"gate"/"done"
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "assay.toml")


def build_gates(names: Sequence[str] | None) -> list[Gate]:
    """The configured gates, or every registered gate in the canonical order."""
    if names is None:
        names = [g for g in GATE_ORDER if g in REGISTRY] + [g for g in REGISTRY if g not in GATE_ORDER]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise InputError(f"unknown gate '{unknown[0]}' (available: {', '.join(REGISTRY)})")
    return [REGISTRY[n]() for n in names]


def _interpreter_problem(python: str) -> str | None:
    """Why `python` cannot run pytest here, or None."""
    try:
        proc = subprocess.run([python, "-c", "import pytest"], capture_output=True, timeout=60, text=True)
    except (OSError, subprocess.SubprocessError) as err:
        return f"cannot run {python}: {err}"
    if proc.returncode:
        return f"pytest is not importable by {python}"
    return None


def _closure(project: Project, targets: list[str]) -> list[str]:
    """The targets and every project module they import, transitively."""
    seen: list[str] = []
    todo = list(targets)
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.append(rel)
        with contextlib.suppress(OSError, UnicodeDecodeError):
            todo.extend(project.targets_of((project.root / rel).read_text(encoding="utf-8"), rel))
    return sorted(seen)


def cache_key(project: Project, candidate: Candidate, settings: Settings, python: str) -> str:
    """Hash of the test file, its targets (transitively), conftests, test config, settings and versions."""
    h = hashlib.sha256()
    h.update(f"{__version__}\0{settings.fingerprint()}\0{python}\0{candidate.rel}\0".encode())
    h.update(candidate.source.encode())
    extra = [Path(candidate.rel).parent / "conftest.py"]
    extra += [p / "conftest.py" for p in Path(candidate.rel).parents]
    files = _closure(project, candidate.targets) + [p.as_posix() for p in extra] + list(CONFIG_FILES)
    for rel in dict.fromkeys(files):
        path = project.root / rel
        if path.is_file():
            h.update(f"\0{rel}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def stops(result: GateResult) -> bool:
    """A reject ends a file's run; so does a skip that leaves the file unvalidated (later gates need it)."""
    return result.status is GateStatus.REJECT or (result.status is GateStatus.SKIP and result.verdict is not None)


def assemble(candidate: Candidate, results: list[GateResult], collected: list[str], duration: float,
             gates_run_all: bool) -> FileReport:
    """The file's verdict and per-test verdicts from the gates that ran.

    A test no gate singled out is `accepted` when the file is, and also when every gate ran and the last one
    rejected other tests by name (the test passed all gates); otherwise it was not fully judged: `unvalidated`.
    """
    decided: dict[str, TestOutcome] = {}
    for result in results:
        for outcome in result.tests:
            decided[outcome.id] = outcome
    stop = next((r for r in results if stops(r)), None)
    if stop is not None:
        verdict, rejected_at = stop.verdict or Verdict.REJECTED, stop.gate
    else:
        verdict = next((r.verdict for r in results if r.verdict), Verdict.ACCEPTED)
        rejected_at = None
    passed_all = verdict is Verdict.ACCEPTED or (gates_run_all and stop is results[-1] and bool(stop.tests))
    tests = []
    for nodeid in dict.fromkeys([*collected, *decided]):
        if nodeid in decided:
            tests.append(decided[nodeid])
        elif passed_all:
            tests.append(TestOutcome(nodeid, Verdict.ACCEPTED, None, ""))
        else:
            tests.append(TestOutcome(nodeid, Verdict.UNVALIDATED, None, f"not judged: file stopped at {rejected_at}"))
    return FileReport(candidate.rel, candidate.language, candidate.targets, verdict, rejected_at,
                      results, tests, duration_s=duration)


class Verifier:
    """Holds what one `verify` call shares across files: project, settings, sandbox, gates, store."""

    def __init__(self, project: Project, settings: Settings, use_cache: bool, on_event: EventSink | None):
        self.project = project
        self.settings = settings
        self.python = settings.python.interpreter or sys.executable
        self.sandbox = Sandbox(settings.sandbox, protect=project.root)
        self.gates = build_gates(settings.gates)
        self.use_cache = use_cache and settings.cache
        self.store = Store(project.root)
        self.emit = on_event or (lambda *_: None)
        self.toolchain_problem = _interpreter_problem(self.python)

    def verify_file(self, candidate: Candidate) -> FileReport:
        start = time.monotonic()
        key = cache_key(self.project, candidate, self.settings, self.python)
        if self.use_cache and (hit := self.store.get("verify", key)):
            report = FileReport.from_json(hit)
            report.cached = True
            report.duration_s = time.monotonic() - start
            self.emit("done", candidate.rel, "cached")
            return report
        if self.toolchain_problem:
            skip = GateResult(self.gates[0].name, GateStatus.SKIP, 0.0, self.toolchain_problem,
                              verdict=Verdict.UNVALIDATED)
            return FileReport(candidate.rel, candidate.language, candidate.targets, Verdict.UNVALIDATED,
                              None, [skip], [], duration_s=time.monotonic() - start)
        results: list[GateResult] = []
        with Workspace(self.project.root) as ws:
            ctx = GateContext(self.project, self.settings, ws, self.sandbox, self.python)
            for gate in self.gates:
                self.emit("gate", candidate.rel, gate.name)
                result = gate.run(candidate, ctx)
                results.append(result)
                ctx.results[gate.name] = result
                if stops(result):
                    break
        report = assemble(candidate, results, ctx.state.get("collected", []), time.monotonic() - start,
                          gates_run_all=len(results) == len(self.gates))
        self.store.put("verify", key, report.to_json())
        self.emit("done", candidate.rel, report.verdict.value)
        return report


def load_candidates(project: Project, files: list[Path], explicit: set[Path], targets: list[str] | None):
    """Read each file; unreadable explicit files are input errors, unreadable discovered ones are rejected."""
    out = []
    for path in files:
        rel = project.rel(path)
        try:
            source, error = read_source(path), None
        except InputError as err:
            if path in explicit:
                raise
            source, error = "", str(err).replace(str(path), rel)
        out.append(Candidate(path=path, rel=rel, source=source, read_error=error,
                             targets=targets if targets is not None else project.targets_of(source, rel)))
    return out


def verify(
    paths: Sequence[Path | str],
    settings: Settings | None = None,
    *,
    root: Path | None = None,
    targets: Sequence[Path | str] | None = None,
    use_cache: bool = True,
    on_event: EventSink | None = None,
) -> Report:
    """Verify candidate test files. Raises InputError / ConfigError for bad input."""
    start = time.monotonic()
    if not paths:
        raise InputError("no paths given")
    path_list = [Path(p) for p in paths]
    root = (root or find_root(path_list[0])).resolve()
    if not root.is_dir():
        raise InputError(f"project root {root} is not a directory")
    settings = settings or load_settings(root)
    project = Project.load(root)
    files = discover(path_list, root)
    target_rels = None
    if targets:
        missing = [t for t in targets if not Path(t).is_file()]
        if missing:
            raise InputError(f"no such target file: {missing[0]}")
        target_rels = [project.rel(Path(t)) for t in targets]
    explicit = {p.resolve() for p in path_list if p.is_file()}
    candidates = load_candidates(project, files, explicit, target_rels)
    sweep_stale()
    verifier = Verifier(project, settings, use_cache, on_event)
    verifier.emit("start", str(len(candidates)), "")
    jobs = settings.jobs or os.cpu_count() or 1
    try:
        with ThreadPoolExecutor(max_workers=min(jobs, len(candidates))) as pool:
            reports = list(pool.map(verifier.verify_file, candidates))
    finally:
        verifier.store.close()
    notes = [verifier.store.problem] if verifier.store.problem else []
    report = Report(str(root), reports, verifier.sandbox.info, time.monotonic() - start, notes)
    with Store(root) as store:
        store.record_run("verify", time.time(), report.duration_s, report.summary())
    return report
