"""Python adapter: runs pytest in the sandbox through the standalone runner and reads its JSON."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from assay._assay_sandbox import launch
from assay._assay_sandbox.protocol import PytestJob
from assay.gates.base import GateContext


@dataclass
class TestRecord:
    outcome: str  # passed failed error skipped xfailed xpassed timeout
    duration: float
    message: str


@dataclass
class PytestRun:
    """Structured outcome of one sandboxed pytest run."""

    collected: list[str] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    tests: dict[str, TestRecord] = field(default_factory=dict)
    exitstatus: int | None = None
    leaked: list[str] = field(default_factory=list)
    crash: str | None = None  # why the run itself ended abnormally (timeout, killed, no result)
    running: str | None = None  # the test that was running when the run was killed
    duration_s: float = 0.0


def _last_started(progress: Path) -> str | None:
    try:
        lines = progress.read_text().splitlines()
    except OSError:
        return None
    return lines[-1] if lines else None


def run_pytest(
    ctx: GateContext,
    test_rel: str,
    mode: str = "run",
    order: str = "file",
    seed: int = 0,
    ids: list[str] | None = None,
) -> PytestRun:
    """Run pytest on one test file (or the given ids, in isolation) inside the sandbox."""
    run_dir = ctx.workspace.run_dir
    out = run_dir / f"result-{uuid.uuid4().hex[:10]}.json"
    timeout = ctx.settings.sandbox.timeout_s
    job = PytestJob(mode=mode, out=str(out), user_root=str(ctx.root), scratch_root=str(ctx.workspace.project),
                    paths=[test_rel], source_roots=ctx.source_roots, order=order, seed=seed, ids=list(ids or []),
                    test_timeout=timeout, pytest_args=list(ctx.settings.python.pytest_args))
    if mode == "isolate":
        timeout = timeout * max(1, len(ids or [])) + 30
    job_path = out.with_suffix(".job.json")
    job_path.write_text(job.to_json())
    argv = launch.argv(ctx.python, "pytest", str(job_path))
    env = ctx.sandbox.env_for(run_dir / "home")
    result = ctx.sandbox.run(argv, cwd=ctx.workspace.project, env=env, timeout=timeout)
    run = PytestRun(duration_s=result.duration_s)
    try:
        data = json.loads(out.read_text())
    except (OSError, ValueError):
        data = None
    if data is None:
        why = result.limit_hit or f"pytest exited with status {result.returncode} and wrote no result"
        if result.timed_out:
            why = f"timed out after {timeout:g} s"
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
        run.crash = why + (f"\n{tail}" if tail and not result.timed_out else "")
        run.running = _last_started(Path(str(out) + ".progress"))
        return run
    run.collected = data["collected"]
    run.errors = data["errors"]
    run.exitstatus = data["exitstatus"]
    run.leaked = data["leaked"]
    run.tests = {k: TestRecord(v["outcome"], v["duration"], v["message"]) for k, v in data["tests"].items()}
    return run
