"""The rule registry: importing the rule modules registers their rules (one function per rule)."""

from __future__ import annotations

from assay.smells.model import RULES as _REGISTRY
from assay.smells.model import Rule
from assay.smells.rules import assertions, conditional, hygiene, mocking, numbers, parse, upkeep, value  # noqa: F401  (registration)

RULES: dict[str, Rule] = dict(sorted(_REGISTRY.items()))
