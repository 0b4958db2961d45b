"""Check verdicts the slow, obvious way: the mutant written into a fresh scratch copy, a fresh
pytest process.

The report formats promise that `replacement` applied on disk reproduces the mutant; the test suite
and the bench use this to show that the in-memory engine gives the same verdicts.
"""

from __future__ import annotations

from pathlib import Path

from assay._assay_sandbox import launch
from assay._assay_sandbox.protocol import HASH_SEED
from assay.execution.workspace import Workspace
from assay.mutation.model import Mutant, Status
from assay.mutation.mutants import apply
from assay.sandbox import Sandbox


def detected(status: Status) -> bool:
    """Killed and Timeout detect a mutant; Survived and NoCoverage do not (the score's
    two sides)."""
    return status in (Status.KILLED, Status.TIMEOUT)


def rerun_from_disk(
    root: Path,
    mutant: Mutant,
    text: str,
    tests: list[str],
    python: str,
    sandbox: Sandbox,
    source_roots: list[str],
    timeout: float = 60.0,
) -> Status:
    """Killed, Survived or Timeout for `mutant` applied to `text` in a new scratch copy
    of `root`."""
    with Workspace(root) as ws:
        ws.path(mutant.file).write_text(apply(text, mutant), encoding="utf-8")
        argv = launch.argv(
            python,
            "pytest-main",
            str(ws.root),
            str(ws.project),
            ",".join(source_roots),
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            *tests,
        )
        # the worker's seed
        env = {**sandbox.env_for(ws.run_dir / "home"), "PYTHONHASHSEED": HASH_SEED}
        result = sandbox.run(argv, cwd=ws.project, env=env, timeout=timeout)
    if result.timed_out:
        return Status.TIMEOUT
    return Status.SURVIVED if result.returncode == 0 else Status.KILLED
