"""Helpers shared by the mutation tests (imported by conftest and the test modules)."""

from __future__ import annotations

import sys
from pathlib import Path

from assay.config.mutation import MutationConfig
from assay.execution.workspace import Workspace
from assay.mutation.engine import Engine
from assay.sandbox import Sandbox

FIXTURES = Path(__file__).parent / "fixtures"


def tree_digest(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def run_engine(
    root: Path,
    sandbox: Sandbox,
    targets,
    tests,
    scoped=False,
    store=None,
    killers=1,
    sample=0,
    **config,
):
    with Workspace(root) as ws:
        engine = Engine(
            ws,
            sandbox,
            sys.executable,
            ["src", "."],
            MutationConfig(workers=2, **config),
            store=store,
        )
        return engine.run(targets, tests, scoped=scoped, killers=killers, sample=sample)
