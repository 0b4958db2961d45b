"""Running jobs in forked children, `workers` at a time, and turning each child's end into a verdict.

A child past its deadline is killed (Timeout). Tests that killed a mutant on the same line, then those
that killed most so far, run first: a killed mutant stops at its first failing test.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import time

from ..fork import fork, read_all
from .patch import run_patched
from .reimport import run_reimported


class Pool:
    def __init__(self, cfg: dict, events, import_time):
        self.cfg = cfg
        self.events = events
        self.import_time = import_time  # ImportTime, or None when no job is a rebind
        self.kills: dict[str, int] = {}
        self.line_killers: dict[tuple[str, int], set[str]] = {}

    def run(self, jobs, by_id) -> None:
        # Everything alive now is shared with every child: keep the collector from walking (and so copying)
        # those pages in each child.
        gc.freeze()
        workers = max(1, self.cfg.workers)
        pending = list(reversed(jobs))
        running: dict[int, tuple] = {}
        while pending or running:
            while pending and len(running) < workers:
                job = pending.pop()
                m, ordered, code = job.m, job.ordered, job.code
                items = [by_id[i] for i in self._likely_killers_first(m, ordered)]
                if job.mode == "patch":
                    pid, r = fork(lambda p=job.patches, it=items: run_patched(p, it))
                elif job.mode == "rebind":
                    pid, r = fork(lambda m=m, c=code, it=items: self.import_time.run(m, c, it))
                else:
                    pid, r = fork(lambda m=m, c=code, o=ordered: run_reimported(self.cfg, m, c, o))
                running[pid] = (job, r, time.monotonic())
            self._reap_one(running)

    def _likely_killers_first(self, m: dict, ordered: list[str]) -> list[str]:
        """Tests that killed a mutant on the same line first, then those that killed most mutants so far,
        then the fastest: a killed mutant stops at its first failing test, so this only saves time."""
        same_line = self.line_killers.get((m.file, m.line), ())
        return sorted(ordered, key=lambda i: (i not in same_line, -self.kills.get(i, 0)))

    def _reap_one(self, running: dict[int, tuple]) -> None:
        """Wait until one child exits or passes its deadline; record its verdict."""
        now = time.monotonic()
        nearest = min(start + job.timeout for job, _, start in running.values())
        fds = {}
        for pid in running:
            with contextlib.suppress(AttributeError, OSError):
                fds[os.pidfd_open(pid)] = pid
        try:
            if fds and len(fds) == len(running):
                select.select(list(fds), [], [], max(0.0, nearest - now))
            else:
                time.sleep(0.002)
        finally:
            for fd in fds:
                os.close(fd)
        now = time.monotonic()
        for pid, (job, r, start) in list(running.items()):
            m, ordered = job.m, job.ordered
            done, status = os.waitpid(pid, os.WNOHANG)
            if not done:
                if now >= start + job.timeout:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    os.close(r)
                    del running[pid]
                    self.events.mutant(m, "Timeout", ordered, duration=now - start,
                                       reason=f"no verdict within {job.timeout:.1f}s")
                continue
            del running[pid]
            raw = read_all(r)
            result = json.loads(raw) if raw else {"crash": f"child died (status {status})"}
            took = time.monotonic() - start
            if "crash" in result:
                self.events.mutant(m, "RuntimeError", ordered, duration=took, reason=result["crash"])
            elif "equivalent" in result:
                self.events.mutant(m, "Ignored", [], duration=took, reason=result["equivalent"])
            else:
                covered = result.get("selected", ordered)
                status = "Killed" if result["killed_by"] else "Survived"
                for killer in result["killed_by"][:1]:
                    self.kills[killer] = self.kills.get(killer, 0) + 1
                    self.line_killers.setdefault((m.file, m.line), set()).add(killer)
                self.events.mutant(m, status, covered, result["killed_by"], result["tests_completed"], took)
