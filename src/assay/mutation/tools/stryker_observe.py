"""Gate 4's observer for JavaScript files run with mocha: what a test *receives* from the project,
as Python's gate 4 (docs/mutation.md, "What a file is accountable for").

A survivor whose every covering test received from the project's code exactly what it received
from the original (return values, thrown errors' type and message, arguments' and `this`'s state
after the call, the arguments of the project's calls back into the test, the final state of what
the test handed in) changed nothing any assertion of the file could see: it is `Unexercised`, not
counted. router's test/route.js was rejected on index.js (45 %) for survivors in dispatch code
every request runs through (mounting, `use` prefixes, absolute URLs) that route.js's inputs never
make matter.

How: assay's reporter plugin (`stryker_observe.mjs`) runs once Stryker has run every mutant, while
the copy still holds Stryker's instrumented code; it starts `stryker_observer.cjs`, which runs the
file's tests under a membrane (`stryker_membrane.cjs`) on the original, under each survivor, and on
the original again, and writes a verdict per survivor. mocha (per test) and node's own runner
(`node --test`: the file is one test) have it, for test files that `require` the project's code
(the membrane wraps what `require` gives the test; an ES module's `import` is not seen, and its
survivors stay counted); jest, vitest and tape keep Stryker's survivors.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from assay.mutation.model import RECEIVED, MutantResult, ObserverCost, Status
from assay.sandbox.view import hand_over

HERE = Path(__file__).parent
OUT = "observed.json"
PLUGIN_FILES = {
    "stryker_observe.mjs": "observe.mjs",
    "stryker_observer.cjs": "observer.cjs",
    "stryker_membrane.cjs": "stryker_membrane.cjs",
    "stryker_preload.cjs": "stryker_preload.cjs",
}
WHOLE = "the file"  # node --test: the file is one test


def configure(
    config: dict[str, Any],
    own: Path,
    runner: str,
    mocha: Path | None,
    tests: list[str],
    root: Path,
    targets: tuple[str, ...],
    deadline: float,
) -> None:
    """`config`'s reporter plugin that observes the survivors: the project's `runner` ("mocha",
    with its `mocha` package, or "node"), the candidate `tests` (package-relative, as Stryker runs
    them) and `targets` (relative to the copy at `root`); the observer ends by `deadline` (epoch
    seconds: what is left of gate 4's limit once Stryker has run the mutants)."""
    own.mkdir(exist_ok=True)
    hand_over(own)
    for source, name in PLUGIN_FILES.items():
        shutil.copyfile(HERE / source, own / name)
    (own / OUT).unlink(missing_ok=True)
    (own / "observe.json").write_text(
        json.dumps(
            {
                "runner": runner,
                "mocha": str(mocha) if mocha else None,
                "spec": tests,
                "whole": WHOLE,
                "targets": [str(root / t) for t in targets],
                "out": str(own / OUT),
                "deadline": deadline,
            }
        ),
        encoding="utf-8",
    )
    hand_over(*(own / n for n in (*PLUGIN_FILES.values(), "observe.json")))
    config["plugins"] = [*config.get("plugins", []), str(own / "observe.mjs")]
    config["reporters"] = [*config.get("reporters", []), "assay-observe"]


def settle(results: dict[str, MutantResult], own: Path) -> tuple[str, ObserverCost | None]:
    """Survivors the observer found unexercised become `Unexercised`; the others keep what a test
    received differently (`RECEIVED` in their reason). The note to give when the observer could
    not judge (its survivors then stay counted), else ''; and what it cost."""
    try:
        data = json.loads((own / OUT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "", None
    for key, verdict in (data.get("verdicts") or {}).items():
        r = results.get(f"stryker-{key}")
        if r is None or r.status is not Status.SURVIVED:
            continue
        if not verdict.get("unexercised"):
            if differs := verdict.get("differs"):
                r.reason = f"{RECEIVED}{differs}"
            continue
        n = len(r.covered_by)
        r.status = Status.UNEXERCISED
        r.reason = (
            f"none of its {n} test{'s' if n != 1 else ''} received a different value, exception"
            " or argument state from the project's code"
        )
    cost = None
    if data.get("survivors"):
        cost = ObserverCost(
            int(data["survivors"]),
            round(float(data.get("seconds") or 0.0), 2),
            round(float(data.get("cpu_s") or 0.0), 2),
        )
    if error := str(data.get("error") or "").strip():
        line = error.splitlines()[0]
        return f"gate 4's observer could not judge the survivors ({line}): they stay counted", cost
    return "", cost
