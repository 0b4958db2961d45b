"""The reviewer's answers, validated with pydantic. An answer that does not fit is never taken as
a pass."""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Confidence = Literal["HIGH", "MEDIUM", "LOW"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class TestReview(_Model):
    test: str = Field(min_length=1)
    verdict: Literal["OK", "REVISE", "LOW_VALUE"]
    confidence: Confidence
    reason: str = ""
    recommendation: str = ""


class FileReview(_Model):
    verdict: Literal["ACCEPT", "REVISE", "REJECT"]
    summary: str = ""
    missing_scenarios: list[str] = Field(default_factory=list)


class Review(_Model):
    tests: list[TestReview] = Field(default_factory=list)
    file: FileReview


class BugVerdict(_Model):
    test: str = Field(min_length=1)
    verdict: Literal["CODE_WRONG", "TEST_WRONG", "UNSURE"]
    confidence: Confidence
    reason: str = ""


class BugCheck(_Model):
    tests: list[BugVerdict] = Field(default_factory=list)


_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse(text: str, model: type[_Model]) -> tuple[_Model | None, str | None]:
    """(the validated answer, None) or (None, what is wrong with it in one line). A JSON object
    inside a ```json fence or surrounded by prose is taken; anything else is invalid."""
    candidates = [m.group(1) for m in _FENCED.finditer(text)] + [text]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    error = "no JSON object in the answer"
    for raw in candidates:
        try:
            data = json.loads(raw)
        except ValueError as err:
            error = f"not valid JSON: {err}"
            continue
        try:
            return model.model_validate(data), None
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "<root>"
            return None, f"JSON does not fit the schema at '{where}': {first['msg']}"
    return None, error
