"""Each function's line in a module's result: tested, skipped, dropped or no-kill, and why, in
words a user can act on (a larger budget, type hints, a test to mine)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from assay.mutation.model import Mutant
from assay.writers.offline.functions import FunctionInfo
from assay.writers.offline.model import FunctionReport
from assay.writers.offline.probe import Kept, ProbeResult

UNJUDGED = {
    "not_run": "not run (the probe's share of the budget ran out)",
    "timeout": "timed out",
    "crash": "crashed",
}

LABELS = {**UNJUDGED, "no_coverage": "reached by no input"}


def _function_report(
    info: FunctionInfo,
    probe: ProbeResult,
    counted: list[Mutant],
    final: list[Kept],
    killed: set[str],
    dropped: dict[str, str],
    unverified: dict[str, str] | None = None,
) -> FunctionReport:
    """`unverified`: function -> why the file holding its tests was not accepted (the budget ran
    out in the gates, the gates rejected it): that, not a lack of kills, is why it has none."""
    found = probe.functions.get(info.name, {})
    own = [m for m in counted if m.function == info.name]
    kept = [k for k in probe.kept if k.function == info.name]
    rep = FunctionReport(
        info.name,
        "tested",
        inputs_tried=found.get("tried", {}),
        inputs_kept=len(kept),
        mutants=len(own),
        killed=sum(m.id in killed for m in own),
        tests=sum(k.function == info.name for k in final),
    )
    if rep.tests:
        return rep
    if "error" in found:
        rep.status, rep.reason = "error", found["error"]
    elif not found:
        # the probe's own failure (the module does not import) said as that, not as time
        lines = (probe.error or "").strip().splitlines()
        rep.status = "skipped"
        rep.reason = "not probed: " + (lines[-1][:300] if lines else "the probe ran out of time")
    elif not kept:
        rep.status, rep.reason = "skipped", _no_input(found)
    elif info.name in dropped:
        rep.status, rep.reason = "dropped", dropped[info.name]
    elif unverified and info.name in unverified:
        rep.status, rep.reason = "unverified", unverified[info.name]
    elif not any(k.kills for k in kept):
        rep.status, rep.reason = "no-kill", _no_kill(own, probe.status)
    else:
        rep.status, rep.reason = "no-kill", "other tests already kill every mutant its inputs kill"
    return rep


def _no_kill(own: list[Mutant], status: dict[str, str]) -> str:
    """Why no input kills a mutant: none ran (the budget), none was reached, or they all live."""
    if not own:
        return "it has no mutants"
    seen = Counter(status.get(m.id, "not_run") for m in own)
    n = len(own)
    if seen["run"] == n:
        return f"no input kills any of its {n} mutants"
    if seen["run"]:
        return f"no input kills any of the {seen['run']} of its {n} mutants the probe ran"
    if seen["no_coverage"] == n:
        return f"no input reaches the lines of its {n} mutants"
    return f"none of its {n} mutants was run: " + ", ".join(
        f"{v} {LABELS.get(k, k.replace('_', ' '))}" for k, v in seen.most_common()
    )


def _no_input(found: dict[str, Any]) -> str:
    n = found.get("inputs", 0)
    if not n:
        return "no input could be built for it (no mined call, no type hints)"
    dropped = found.get("dropped", {})
    late = dropped.get("out of time", 0)  # not run: the time went to the ones that hung
    if found.get("hung") and found["hung"] + late >= n:
        return "hangs on every input it was given"
    if found.get("memory") and found["memory"] + late >= n:
        return "runs out of memory on every input it was given"
    if len(dropped) == 1 and next(iter(dropped)).startswith("raise "):
        kind = next(iter(dropped))[len("raise ") :]
        example = found.get("examples", {}).get(f"raise {kind}")
        return (
            f"all its {n} inputs raise {kind}"
            + (f" ({example!r})" if example else "")
            + ": no input of the right type was found (add a type hint or a test that calls it)"
        )
    ranked = sorted(dropped.items(), key=lambda kv: -kv[1])
    why = ", ".join(f"{v} {k}" for k, v in ranked)
    # the first error behind the main reason: "does not evaluate" alone does not say what to fix
    example = found.get("examples", {}).get(ranked[0][0]) if ranked else None
    return (
        f"none of its {n} inputs gave an outcome a test can pin ({why}"
        + (f": {example}" if example else "")
        + ")"
    )
