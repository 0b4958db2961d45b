"""Gate 3 of a vitest file in one vitest instance: the reruns, the seeded random order and each test
alone run by `vitest_plan.mjs` through vitest's Node API (`createVitest`, `runTestSpecifications`),
where `vitest run` would start node, vite and vitest again for each (7+ starts of about a second of
CPU each).

Each run isolates the test file (`isolate: true`: a fresh worker and module graph, as a new
`vitest run` gives); the runs share vitest's start-up and vite's transform cache. Random order is
vitest's own `sequence.shuffle` with the step's seed; a test alone is selected by its full name, as
`vitest run -t` does.
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.execution.runner import Order, RunStep
from assay.languages.plans import PlannedRun

SCRIPT = Path(__file__).with_name("vitest_plan.mjs")


def package_dir(vitest_bin: str) -> Path | None:
    """The vitest package behind `node_modules/.bin/vitest`, when it has the Node API
    (`dist/node.js`, vitest 3)."""
    found = Path(vitest_bin).resolve().parent
    return found if (found / "dist" / "node.js").is_file() else None


def write(
    plan_file: Path,
    out_dir: Path,
    vitest: Path,
    target: str,
    steps: list[RunStep],
    ids: list[str] | None,
    pattern_of: dict[str, str],
) -> list[PlannedRun]:
    """The plan file for vitest_plan.mjs; the runs it makes, in order (a step alone is one run per
    test of `ids`, `pattern_of[id]` its name pattern)."""
    runs: list[PlannedRun] = []
    spec = []
    for n, s in enumerate(steps):
        groups: list[list[str] | None] = [[t] for t in ids or []] if s.isolate else [None]
        for judged in groups:
            out = out_dir / f"run-{len(runs)}.json"
            spec.append(
                {
                    "out": str(out),
                    "seed": s.seed if s.order is Order.RANDOM else None,
                    "pattern": pattern_of[judged[0]] if judged else None,
                    "last": s.last_if_failed,
                }
            )
            runs.append(PlannedRun(n, out, judged))
    plan = {"vitest": str(vitest), "file": target, "runs": spec}
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    return runs


def argv(plan_file: Path) -> list[str]:
    return ["node", str(SCRIPT), str(plan_file)]
