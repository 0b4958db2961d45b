"""What gate 4 says of a sample its time budget cut (`_assay_sandbox.mutation.budget`): a note,
and which failing scores are too uncertain to reject on.

A cut sample is a random prefix of the sample, so its score is an estimate as the whole sample's
is, only wider: over 20 mutants a score of 50% has a 95% interval of about 30-70%. A module that
fails its threshold there but whose interval still reaches it is not judged (`unvalidated`, with
the cause): the budget, not the tests, left too few mutants to tell. One whose interval stays
below is rejected as usual, and a pass is a pass (the whole sample's pass is a point estimate too).
"""

from __future__ import annotations

import math
from typing import Any

from assay._assay_sandbox.mutation.budget import Cut

Z = 1.96  # two-sided 95%


def _s(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def budget_note(cut: Cut) -> str:
    """One line for the verdict's notes: the sample was cut, and why."""
    return (
        f"scored on {cut.kept} of its {cut.planned} sampled mutants: as survivors they would run "
        f"{_s(cut.estimate_s)} of tests, over gate 4's time budget of {_s(cut.budget_s)} "
        "(mutation.budget x the file's own run; 0: no budget)"
    )


def upper_bound(detected: float, ran: int) -> float:
    """The upper end of the 95% Wilson score interval of `detected` / `ran` (1 when none ran)."""
    if ran <= 0:
        return 1.0
    p = detected / ran
    spread = Z * math.sqrt(p * (1 - p) / ran + Z * Z / (4 * ran * ran))
    return (p + Z * Z / (2 * ran) + spread) / (1 + Z * Z / ran)


def undecided(modules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The failing module rows (`attribution.module_scores`) whose threshold lies within their
    score's 95% interval: too few mutants to reject on."""
    every = sum(m["mutants"] for m in modules)
    out = []
    for m in modules:
        if m["passed"] or m["score"] is None:
            continue
        score, ran = (
            (m["pooled"], every) if m.get("pooled") is not None else (m["score"], m["mutants"])
        )
        if 100 * upper_bound(score / 100 * ran, ran) >= m["threshold"]:
            out.append(m)
    return out


def too_few(cut: Cut, rows: list[dict[str, Any]]) -> str:
    """Why a failing score on a cut sample is not judged."""
    said = "; ".join(
        f"{m['file']} {m.get('pooled') or m['score']}% over {m['mutants']} mutants, threshold "
        f"{m['threshold']:g}%"
        for m in rows
    )
    return (
        f"too few mutants to judge within gate 4's time budget ({said}: the threshold lies within "
        f"the score's 95% interval). Its tests would run {_s(cut.estimate_s)} as survivors on "
        f"the {cut.planned} sampled mutants, over the budget of {_s(cut.budget_s)}: raise "
        "mutation.budget (0: none) to have the file judged"
    )
