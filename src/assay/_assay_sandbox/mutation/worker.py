"""Mutation worker: imports pytest and the project once, then serves mutants from forked children.

Standalone (stdlib + pytest), like the rest of `_assay_sandbox`, because it runs under the
interpreter of the user's tests.

1. Collection runs under a line tracer: lines of the target files run at import time, apart from
   those run for another module (a test module calling the target while it is imported).
2. The tests asked for are picked from what was collected (`identity`), minus the deselected ones.
3. Two forked children run every test once, one under the fastest per-test line recorder the
   interpreter has (coverage, module globals each test writes), one untraced (durations) -
   `baseline`, `baseline_record`.
4. Each mutant is compiled in memory (never written): equivalent and duplicate mutants (same
   bytecode as the original or an earlier mutant) are Ignored; uncovered ones are NoCoverage without
   running (`plan`).
5. The others run in forked children, `workers` at a time, stopping at the first failure; the worker
   holds a deadline per test and kills a child past it (Timeout, naming the test) - `pool`. A child
   applies its mutant one of three ways: `patch` (swap `__code__` of the live functions), `rebind`
   (re-run the module body in the live module, then `body_watch` / `same` / `readers` bound who can
   observe it), `reimport` (a fresh import and collection in the child, for state collection built).

Input: a JSON file (argv[1]). Output: JSON lines appended to `events` (never stdout, which
pytest captures).
"""

from __future__ import annotations

import os

import pytest

from .. import boot
from ..plugins import cache_args, quieting_args
from ..protocol import PROVE_EACH_TEST, MutationJob
from ..short_ids import ShortIds
from .events import Events
from .observe import OBSERVE
from .protocol import WorkerError
from .rewritten import share
from .server import Server
from .tracers import CollectTracer

EXIT_CODES = {
    1: "tests failed",
    2: "interrupted (collection errors?)",
    3: "internal error",
    4: "usage error (bad path or pytest option)",
    5: "no tests collected",
}


def main(job_path: str) -> int:
    cfg = MutationJob.read(job_path)
    # failing test functions a child looks for; 0: all; PROVE_EACH_TEST: see `pool.Pool._hunt`
    cfg.killers = max(PROVE_EACH_TEST, cfg.killers)
    boot.isolate_imports(cfg.user_root, cfg.scratch_root, cfg.source_roots)
    os.chdir(cfg.scratch_root)
    events = Events(cfg.events)
    tracer = CollectTracer(
        {os.path.realpath(p): rel for rel, p in cfg.targets.items()}, cfg.scratch_root
    )
    server = Server(cfg, events, tracer)
    files = list(dict.fromkeys(t.split("::")[0] for t in cfg.tests))
    args = [
        *files,
        "-q",
        *cache_args(),
        "-p",
        "no:randomly",
        "-p",
        "no:assay",
        *cfg.pytest_args,
        *quieting_args(cfg.pytest_args),
    ]
    share()  # children that import the tests again reuse the worker's assertion rewriting
    tracer.start()
    code = int(pytest.main(args, plugins=[ShortIds(), server, *([OBSERVE] if cfg.observe else [])]))
    tracer.stop()
    if not server.served:
        reason = "\n".join(server.collect_errors) or EXIT_CODES.get(code, "see the worker log")
        events.send(
            WorkerError(f"pytest stopped before running (exit code {code}): {reason[-3000:]}")
        )
    return 0
