"""Base of every settings section, in its own module so that gate packages can define their sections
without importing `assay.config` (which imports them)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """Unknown keys are errors, and assignments are validated: a typo must not fall back to
    a default."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)
