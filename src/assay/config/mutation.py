"""`[tool.assay.mutation]` settings."""

from __future__ import annotations

from typing import Literal

from assay.config import names
from assay.section import Section, setting

CodeClass = Literal["pure", "service", "io"]
DEFAULT_THRESHOLDS: dict[str, float] = {"pure": 60.0, "service": 50.0, "io": 40.0}


def _known_operators(value: list[str]) -> list[str]:
    unknown = names.unknown(names.OPERATOR, value)
    if unknown:
        known = ", ".join(names.known(names.OPERATOR) or ())
        raise ValueError(f"unknown operator {unknown[0]!r} (known: {known})")
    return value


def _percent(value: dict[str, float]) -> dict[str, float]:
    for name, pct in value.items():
        if not 0 <= pct <= 100:
            raise ValueError(f"threshold of {name} must be a percentage (0-100), got {pct}")
    return {**DEFAULT_THRESHOLDS, **value}


class MutationConfig(Section):
    thresholds: dict[CodeClass, float] = setting(
        default=DEFAULT_THRESHOLDS,
        check=_percent,
        description="least mutation score (percent) by code class",
    )
    code_classes: dict[str, CodeClass] = setting(
        default={},
        description="glob of project-relative paths -> code class, overriding detection",
    )
    timeout_factor: float = setting(
        default=2.0,
        gt=0,
        description="a test under a mutant may compute (CPU seconds) factor x its untraced "
        "baseline duration + timeout_s; one that sleeps or blocks, factor x its duration + 4 x "
        "timeout_s in wall time (longer while it or a process it started computes)",
    )
    sample: int = setting(
        default=100,
        ge=0,
        description="gate 4: at most this many mutants in a file's scope count for its score, one "
        "per line first, the same ones every run (0: all); the others run only to prove tests "
        "that have not killed yet (never a wrong `low_value`) and count as Ignored",
    )
    budget: float = setting(
        default=20.0,
        ge=0,
        description="gate 4: the sampled mutants' test time, each as a survivor (every test that "
        "covers it), stays within this many times the file's own run (collection and its tests, "
        "counted as at least 3 s), else only a prefix of the sample counts (at least 20 "
        "mutants; the note says so, and a failing score that could still reach the threshold "
        "is not judged): a test of seconds that covers the whole module runs on every "
        "survivor; 0: no budget",
    )
    prove: int = setting(
        default=20,
        ge=0,
        description="gate 4: at most this many mutants run only to prove each test function that "
        "has not killed yet (out of the sample, past the early stop; 0: no limit), those it runs "
        "directly first; a test still unproven then is not judged (a note), never `low_value`",
    )
    early_stop: bool = setting(
        default=True,
        description="gate 4: once the score is sure to reach every module's threshold (certain: "
        "the mutants killed so far reach it over the whole sample; or confident: the 99.9% "
        "lower bound of the score so far reaches it), the sampled mutants left count as Ignored "
        "and run only to prove tests that have not killed yet; the score is over the mutants "
        "that ran (a random part of the sample)",
    )
    attribution: Literal["proof", "exact"] = setting(
        default="proof",
        description="gate 4, which test kills what: `proof` runs each test function on every "
        "mutant it covers until it has killed one (exact `low_value`; a mutant then stops at its "
        "first killer), `exact` runs every covering test on every mutant (adds `redundant` notes; "
        "costs a multiple)",
    )
    timeout_s: float = setting(
        default=0.25,
        ge=0,
        aliases=("timeout_base_s",),
        description="CPU seconds added to each test's deadline (timeout_base_s: old name)",
    )
    deselect: list[str] = setting(
        default=[],
        description="tests left out of mutation runs: node ids, `file::function` or globs",
    )
    workers: int = setting(default=0, ge=0, description="mutants run at once; 0 = number of cores")
    max_survivors: int = setting(
        default=10, ge=1, le=50, description="survivors listed in gate feedback"
    )
    skip_operators: list[str] = setting(
        default=[], check=_known_operators, description="operator names never applied"
    )
