"""`[tool.assay.generate]` and `[tool.assay.review]` settings."""

from __future__ import annotations

from assay.section import Section, setting


def _spec(value: str | None) -> str | None:
    if value is not None and ":" not in value and value != "offline":
        raise ValueError(f"{value!r} is not provider:model (or offline)")
    return value


def _pattern(value: str) -> str:
    if "{module}" not in value or not value.endswith(".py") or "/" in value:
        raise ValueError("file_name must be a file name ending in .py containing {module}")
    return value


class ReviewConfig(Section):
    reviewer: str | None = setting(
        default=None, check=_spec, description="provider:model of gate 6; unset: no review"
    )
    rounds: int = setting(
        default=2, ge=0, le=2, description="review rounds per target in `generate`"
    )
    small_change: float = setting(
        default=0.3,
        ge=0,
        le=1,
        description="a revision changing at most this share of lines "
        "re-runs gates 1-2 only; a larger one gates 1-5",
    )


class GenerateConfig(Section):
    writer: str | None = setting(
        default=None,
        check=_spec,
        description="provider:model that writes the tests; unset or `offline`: the "
        "offline writer (no model, characterization tests)",
    )
    budget_s: float = setting(
        default=60.0, gt=0, description="offline writer: time budget per module"
    )
    max_tests_per_function: int = setting(
        default=20, ge=1, le=200, description="offline writer: tests per function at most"
    )
    max_attempts: int = setting(
        default=3, ge=1, le=10, description="writer answers per target before giving up"
    )
    output_dir: str | None = setting(
        default=None,
        description="where accepted tests go; default: next to the module's "
        "existing tests, else tests/",
    )
    file_name: str = setting(
        default="test_{module}_generated.py",
        check=_pattern,
        description="{module}: the module's file stem",
    )
    templates: str | None = setting(
        default=None, description="directory of prompt templates overriding the built-in ones"
    )
    max_tokens: int = setting(
        default=0, ge=0, description="stop the run after this many tokens; 0 = no limit"
    )
    max_cost: float = setting(
        default=0.0,
        ge=0,
        description="stop after this cost (needs [tool.assay.llm] prices); 0 = none",
    )
    jobs: int = setting(
        default=0, ge=0, description="targets in flight at once; 0 = number of cores"
    )
    bugs_file: str = setting(
        default="assay-suspected-bugs", description="suspected bugs report, .md and .json"
    )
