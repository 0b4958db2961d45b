"""`[tool.assay.generate]` and `[tool.assay.review]` settings."""

from __future__ import annotations

from pydantic import Field, field_validator

from assay.section import Section


def _spec(value: str | None) -> str | None:
    if value is not None and ":" not in value and value != "offline":
        raise ValueError(f"{value!r} is not provider:model (or offline)")
    return value


class ReviewConfig(Section):
    reviewer: str | None = Field(None, description="provider:model of gate 6; unset: no review")
    rounds: int = Field(2, ge=0, le=2, description="review rounds per target in `generate`")
    small_change: float = Field(
        0.3,
        ge=0,
        le=1,
        description="a revision changing at most this share of lines "
        "re-runs gates 1-2 only; a larger one gates 1-5",
    )

    _check = field_validator("reviewer")(classmethod(lambda cls, v: _spec(v)))


class GenerateConfig(Section):
    writer: str | None = Field(
        None,
        description="provider:model that writes the tests; unset or `offline`: the "
        "offline writer (no model, characterization tests)",
    )
    budget_s: float = Field(60.0, gt=0, description="offline writer: time budget per module")
    max_tests_per_function: int = Field(
        20, ge=1, le=200, description="offline writer: tests per function at most"
    )
    max_attempts: int = Field(
        3, ge=1, le=10, description="writer answers per target before giving up"
    )
    output_dir: str | None = Field(
        None,
        description="where accepted tests go; default: next to the module's "
        "existing tests, else tests/",
    )
    file_name: str = Field(
        "test_{module}_generated.py", description="{module}: the module's file stem"
    )
    templates: str | None = Field(
        None, description="directory of prompt templates overriding the built-in ones"
    )
    max_tokens: int = Field(
        0, ge=0, description="stop the run after this many tokens; 0 = no limit"
    )
    max_cost: float = Field(
        0.0, ge=0, description="stop after this cost (needs [tool.assay.llm] prices); 0 = none"
    )
    jobs: int = Field(0, ge=0, description="targets in flight at once; 0 = number of cores")
    bugs_file: str = Field(
        "assay-suspected-bugs", description="suspected bugs report, .md and .json"
    )

    _check = field_validator("writer")(classmethod(lambda cls, v: _spec(v)))

    @field_validator("file_name")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if "{module}" not in value or not value.endswith(".py") or "/" in value:
            raise ValueError("file_name must be a file name ending in .py containing {module}")
        return value
