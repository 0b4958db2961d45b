"""The panel metrics, exactly as issue 12 defines them; pure functions of acceptances, no I/O.

Per task, with panel P = {reference} ∪ C and faulty set F:
  RAR = fails_original ∧ accepts(reference);   VAR = |accepted C| / |C|;   IRR = |rejected F| / |F|;
  JSF = fails_original ∧ every member of P accepted ∧ every member of F rejected.
A flaky task (the reference runs disagree) counts as a RAR and JSF failure. Over tasks the four
are means, and H is the harmonic mean of the mean VAR and the mean IRR (0 when both are 0). VAR
(IRR) is undefined for a task with an empty C (F) and left out of that mean; then JSF = RAR when
both are empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TaskMetrics:
    fails_original: bool
    rar: int
    var: float | None
    irr: float | None
    jsf: int


def task_metrics(
    fails_original: bool,
    reference_accepted: bool,
    correct_accepted: Sequence[bool],
    faulty_rejected: Sequence[bool],
    flaky: bool = False,
) -> TaskMetrics:
    rar = int(fails_original and reference_accepted and not flaky)
    var = sum(correct_accepted) / len(correct_accepted) if correct_accepted else None
    irr = sum(faulty_rejected) / len(faulty_rejected) if faulty_rejected else None
    jsf = int(bool(rar) and all(correct_accepted) and all(faulty_rejected))
    return TaskMetrics(fails_original, rar, var, irr, jsf)


def harmonic(var: float | None, irr: float | None) -> float | None:
    """H of VAR and IRR: 0 when both are 0, None when either is undefined."""
    if var is None or irr is None:
        return None
    return 0.0 if var + irr == 0 else 2 * var * irr / (var + irr)


def mean(values: Iterable[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return sum(found) / len(found) if found else None


def aggregate(
    metrics: Sequence[TaskMetrics],
    change: Sequence[float | None] = (),
    entry: Sequence[float | None] = (),
) -> dict[str, float | int | None]:
    """Means over evaluated tasks, and H."""
    var = mean(m.var for m in metrics)
    irr = mean(m.irr for m in metrics)
    return {
        "evaluated": len(metrics),
        "fails_original": mean(float(m.fails_original) for m in metrics),
        "rar": mean(m.rar for m in metrics),
        "var": var,
        "irr": irr,
        "jsf": mean(m.jsf for m in metrics),
        "h": harmonic(var, irr),
        "change_coverage": mean(change),
        "entry_coverage": mean(entry),
    }
