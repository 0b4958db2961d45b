"""The pytest plugin that turns one collected session into a mutant server.

pytest imports the project and collects once (under the line tracer: lines run at import time); then,
instead of pytest's run loop: the baseline in a child, the plan, the jobs in children.
"""

from __future__ import annotations

import time
import traceback

import pytest

from ..fork import fork, wait
from .baseline import Baseline, traced_run
from .plan import plan
from .pool import Pool
from .rebind import ImportTime


class Server:
    """pytest plugin: takes over the run loop once collection is done."""

    def __init__(self, cfg: dict, events, tracer):
        self.cfg = cfg
        self.events = events
        self.tracer = tracer
        self.collect_errors: list[str] = []
        self.served = False
        self.started = time.monotonic()

    # --- pytest hooks ----------------------------------------------------------------------------
    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext[-1500:]}")

    def pytest_collection_finish(self, session):
        self.tracer.stop()
        self.import_lines, _ = self.tracer.take()
        self.collection_s = time.monotonic() - self.started

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        self.tracer.in_call = True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item):
        self.tracer.in_call = False

    def pytest_runtestloop(self, session):
        self.served = True
        if self.collect_errors:
            self.events.emit(event="error", message="collection failed:\n" + "\n".join(self.collect_errors))
            return True
        try:
            self.serve(session)
        except Exception:
            self.events.emit(event="error", message=traceback.format_exc()[-3000:])
        return True

    # --- the work --------------------------------------------------------------------------------
    def serve(self, session) -> None:
        cfg = self.cfg
        self.events.emit(event="collected", tests=len(session.items), collection_s=round(self.collection_s, 3))
        by_id = {item.nodeid: item for item in session.items}

        pid, r = fork(lambda: traced_run(self.tracer, list(session.items)))
        state, result, took = wait(pid, r, cfg.baseline_timeout)
        if state == "timeout" or "crash" in result:
            self.events.emit(event="error", message=f"baseline run failed: {result.get('crash', 'timed out')}")
            return
        baseline = Baseline(result, cfg.functions)
        self.events.emit(**baseline.event(took))

        jobs, original_code = plan(cfg, baseline, self.import_lines, self.collection_s, self.events)
        import_time = None
        if any(job.mode == "rebind" for job in jobs):
            import_time = ImportTime(cfg, original_code, baseline.covering, session.items)
        Pool(cfg, self.events, import_time).run(jobs, by_id)
        self.events.emit(event="done")
