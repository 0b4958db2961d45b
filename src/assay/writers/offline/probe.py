"""Run the offline probe of one module in the sandbox (`_assay_sandbox.offline`) and read what
it found.

The probe runs in a scratch copy of the project through `Sandbox.popen`, like every run of user
code, under the interpreter that runs the project's tests. Its budget is in seconds of an idle
machine, the interpreter's start included: on a busy machine it runs longer, by the slowdown it
measures (`_assay_sandbox.offline.pace`), up to `max_slowdown` times the budget; the whole process
tree is killed a margin after that.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from assay._assay_sandbox import launch
from assay._assay_sandbox.offline.pace import MAX_SLOWDOWN
from assay._assay_sandbox.protocol import MutantSpec, OfflineFunction, OfflineJob
from assay.execution.workspace import Workspace
from assay.mutation.model import Mutant
from assay.sandbox import Sandbox


@dataclass
class Kept:
    """An input whose outcome the oracle could pin, with what it pins and which mutants it kills."""

    id: str
    function: str
    input: dict[str, Any]
    outcome: dict[str, Any]
    lines: set[int]
    kills: set[str] = field(default_factory=set)
    # mutants the probe did not judge (its time ran out) whose code this input runs (`cover.reach`)
    reaches: set[str] = field(default_factory=set)
    seconds: float = 0.0  # one call, as the oracle timed it (a mutant's run is bounded by it)

    @property
    def size(self) -> int:
        """Length of the call as written: ties in the selection go to the shortest."""
        inp = self.input
        return (
            len(inp.get("receiver") or "")
            + sum(len(a) for a in inp.get("args", []))
            + sum(len(k) + len(v) + 1 for k, v in inp.get("kwargs", {}).items())
        )


@dataclass
class ProbeResult:
    functions: dict[str, dict[str, Any]]  # name -> params, tried, dropped, hung, memory, error
    kept: list[Kept]
    # mutant id -> run | equivalent | duplicate | compile_error | timeout | not_run | ...
    status: dict[str, str]
    error: str | None = None
    duration_s: float = 0.0
    explore_s: float = 0.0
    # mutants the probe did not judge that the confirming run did, against the chosen cases
    confirmed: set[str] = field(default_factory=set)
    idle_s: float = 0.0  # the budget it spent, in seconds of an idle machine (`pace`)
    slowdown: float = 1.0  # the machine's slowdown it measured last


def mutant_spec(m: Mutant) -> MutantSpec:
    return MutantSpec(
        id=m.id,
        file=m.file,
        start=m.start,
        end=m.end,
        replacement=m.replacement,
        line=m.line,
        end_line=m.end_line,
        stmt_line=m.stmt_line,
        function=m.function,
        chain=[list(c) for c in m.chain],
    )


def run_probe(
    ws: Workspace,
    sandbox: Sandbox,
    python: str,
    source_roots: list[str],
    *,
    rel: str,
    dotted: str,
    imports: list[str],
    functions: list[OfflineFunction],
    mutants: list[Mutant],
    literals: dict[str, list],
    budget_s: float,
    call_timeout: float,
    workers: int,
    memory_mb: int = 1024,
    hypothesis_examples: int = 40,
    warnings_fail: bool = False,
    max_slowdown: float = MAX_SLOWDOWN,
) -> ProbeResult:
    """Probe `functions` of module `rel` (import name `dotted`) in workspace `ws`, within
    `budget_s` seconds of an idle machine."""
    # the probe counts the interpreter's start from the launch; the wall-clock end bounds it
    # whatever the load, and the kill comes a margin after it, for writing the result
    started_at = time.time()
    ends_at = started_at + budget_s * max_slowdown
    margin = min(10.0, max(3.0, budget_s * 0.05))
    job = OfflineJob(
        user_root=str(ws.root),
        scratch_root=str(ws.project),
        out="",
        module=dotted,
        path=str(ws.path(rel)),
        imports=imports,
        functions=functions,
        mutants=[mutant_spec(m) for m in mutants],
        source_roots=source_roots,
        literals=literals,
        budget_s=budget_s,
        ends_at=ends_at,
        started_at=started_at,
        max_slowdown=max_slowdown,
        call_timeout=call_timeout,
        memory_mb=memory_mb,
        workers=workers,
        hypothesis_examples=hypothesis_examples,
        warnings_fail=warnings_fail,
    )
    data, error = launch_job(ws, sandbox, python, job, margin)
    if data is None:
        return ProbeResult({}, [], {}, error=error)
    kept: list[Kept] = []
    for name, found in data.get("functions", {}).items():
        for k in found.pop("kept", []):
            kept.append(
                Kept(
                    k["id"],
                    name,
                    k["input"],
                    k["outcome"],
                    set(k["lines"]),
                    seconds=k.get("s", 0.0),
                )
            )
    by_id = {k.id: k for k in kept}
    for mutant_id, killers in data.get("mutants", {}).items():
        for case in killers:
            if case in by_id:
                by_id[case].kills.add(mutant_id)
    return ProbeResult(
        data.get("functions", {}),
        kept,
        data.get("status", {}),
        data.get("error"),
        data.get("duration_s", 0.0),
        data.get("explore_s", 0.0),
        idle_s=data.get("idle_s", 0.0),
        slowdown=data.get("slowdown", 1.0),
    )


def launch_job(
    ws: Workspace, sandbox: Sandbox, python: str, job: OfflineJob, margin: float
) -> tuple[dict[str, Any] | None, str]:
    """Run an offline job (`job.out` is set here) in the sandbox, killed `margin` seconds after its
    wall-clock end: (its result, "") or (None, why it wrote none)."""
    tag = uuid.uuid4().hex[:8]
    out = ws.run_dir / f"offline-{tag}.json"
    job.out = str(out)
    job_path = ws.run_dir / f"offline-{tag}.job.json"
    job_path.write_text(job.to_json(), encoding="utf-8")
    env = sandbox.env_for(ws.run_dir / "home", cache=ws.cache_dir)
    result = sandbox.run(
        launch.argv(python, "offline", str(job_path)),
        cwd=ws.project,
        env=env,
        timeout=(job.ends_at - time.time() if job.ends_at else job.budget_s) + margin,
    )
    try:
        return json.loads(out.read_text(encoding="utf-8")), ""
    except (OSError, ValueError):
        why = result.limit_hit or f"exited with status {result.returncode}"
        tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        return None, f"the probe wrote no result ({why})" + (
            ": " + " | ".join(tail) if tail else ""
        )


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))
