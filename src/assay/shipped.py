"""`verify --scheduler`: the same gates, each file run on a worker of a Dask cluster from a shipped
copy of the project; kept apart from `pipeline`, which never needs a cluster."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from assay.config import Settings, settings_from_dict
from assay.errors import InputError
from assay.events import FileDone, GateStarted
from assay.execution.executor import open_cluster
from assay.execution.shipping import PackedTree, materialize, pack
from assay.gates.base import BaseGate
from assay.model import Candidate, FileReport
from assay.pipeline import EventSink, Verifier, build_gates
from assay.project import Project
from assay.sandbox import Cancelled
from assay.verdict_key import cache_key, cacheable


def verify_shipped(
    tree: PackedTree, settings: dict[str, Any], candidate: Candidate
) -> FileReport | None:
    """The unit of work on a cluster worker: one file through the gates in a scratch copy of the
    shipped tree, uncached (the parent keeps the cache)."""
    shipped = materialize(tree)
    conf = settings_from_dict(settings, "the parent's settings")
    conf.cache = False
    verifier = Verifier(Project.load(shipped.path), conf, use_cache=False)
    try:
        return verifier.verify_file(
            dataclasses.replace(
                candidate, path=None if candidate.path is None else shipped.path / candidate.rel
            )
        )
    finally:
        verifier.close()


class ShippedVerifier(Verifier):
    """A Verifier whose files run on the workers of the Dask cluster at `settings.scheduler`:
    the project tree is shipped to each worker once; the cache stays here, under the keys of a
    local run."""

    def __init__(
        self,
        project: Project,
        settings: Settings,
        use_cache: bool = True,
        on_event: EventSink | None = None,
        gates: Sequence[BaseGate] | None = None,
    ):
        if gates is not None and [g.name for g in gates] != [g.name for g in build_gates(settings)]:
            raise InputError(
                "gates of the caller's own cannot run on a cluster (the workers build theirs)"
            )
        super().__init__(project, settings, use_cache, on_event, gates)
        self._cluster = contextlib.ExitStack()
        self.cluster = self._cluster.enter_context(open_cluster(settings.scheduler))
        self.tree = self.cluster.share(pack(project.root)) if self.cluster else None
        self._plain = settings.plain()
        self._keyed = settings.model_copy(update={"scheduler": None})

    def _verify(self, candidate: Candidate) -> FileReport:
        start = time.monotonic()
        language = self.language(candidate)
        key = cache_key(self.project, candidate, self._keyed, self.toolchain(language)[0], language)
        if self.use_cache and (hit := self.store.get("verify", key)):
            report = FileReport.from_json(hit)
            report.cached, report.duration_s = True, time.monotonic() - start
            self.emit(FileDone.of(report))
            return report
        assert self.cluster is not None
        self.emit(GateStarted(candidate.rel, "on the cluster"))
        future = self.cluster.submit(verify_shipped, self.tree, self._plain, candidate)
        while not future.done():
            if self.sandbox.cancelled:
                future.cancel()
                raise Cancelled(candidate.rel)
            time.sleep(0.05)
        found = future.result()
        if found is None:
            raise Cancelled(candidate.rel)
        report = found
        if cacheable(report):
            self.store.put("verify", key, report.to_json())
        self.emit(FileDone.of(report))
        return report

    def close(self) -> None:
        super().close()
        self._cluster.close()
