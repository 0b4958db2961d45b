"""Mutation worker: imports pytest and the project once, then serves mutants from forked children.

Standalone (stdlib + pytest), like its sibling `_assay_mutation_*` modules, because it runs under the
interpreter of the user's tests; started by path, so this directory is sys.path[0].

1. Collection runs under a line tracer: lines of the target files executed at import time.
2. A forked child runs every test once under the tracer: per test, the target lines it executes (call
   phase apart, for the verify gate's scope) and its duration.
3. Each mutant is compiled in memory (never written): equivalent and duplicate mutants (same bytecode as
   the original or an earlier mutant) are Ignored; uncovered ones are NoCoverage without running.
4. The others run in forked children, `workers` at a time, only the covering tests, fastest first, stopping
   at the first failure; a child past its deadline is killed (Timeout).
   - mutant inside a function: the child swaps `__code__` of the live function objects of the enclosing
     defs (decorated, nested, methods, closures alike) - no re-import;
   - mutant whose line runs at import time (module code, decorators, calls made while importing): the
     child re-runs the mutated module body in the live module and rebinds the globals of the project's
     and tests' modules that held the old objects - no re-collection - then diffs the namespace against
     the live one: unchanged is Ignored, else only the tests that may read a changed name run, or every
     test when the effect cannot be bounded;
   - otherwise (the swap is impossible): the child drops the project's modules and re-runs pytest
     in-process with a meta-path finder that serves the mutated module code.

Modules: trace (line tracer, events), fork (children and their results), baseline (step 2), plan (step 3),
pool (step 4), patch / rebind / reimport (the three ways a child applies a mutant), and for rebind: watch
(effects of the re-run), same (namespace diff), select (tests that may read a changed name), code
(reading code objects); server is the pytest plugin that drives them.

Input: a JSON file (argv[1]). Output: JSON lines appended to `events` (never stdout, which pytest captures).
"""

from __future__ import annotations

import os

import pytest

from .. import boot
from ..protocol import MutationJob
from .server import Server
from .trace import Events, LineTracer


def main(job_path: str) -> int:
    cfg = MutationJob.read(job_path)
    boot.isolate_imports(cfg.user_root, cfg.scratch_root, cfg.source_roots)
    os.chdir(cfg.scratch_root)
    events = Events(cfg.events)
    tracer = LineTracer({os.path.realpath(p): rel for rel, p in cfg.targets.items()})
    server = Server(cfg, events, tracer)
    args = [*cfg.tests, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:assay", *cfg.pytest_args]
    tracer.start()
    code = pytest.main(args, plugins=[server])
    tracer.stop()
    if not server.served:
        events.emit(event="error", message=f"pytest stopped before running (exit code {int(code)}): "
                    + ("\n".join(server.collect_errors) or "no tests collected")[-3000:])
    return 0
