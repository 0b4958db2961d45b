"""The rule registry: importing the rule modules registers their rules (one function per rule). The
ids of these and of the other languages' rules (AP000-AP006) are what `[tool.assay.smells] levels`
may name."""

from __future__ import annotations

from assay.config import names
from assay.smells.model import RULES as _REGISTRY
from assay.smells.model import Rule
from assay.smells.polyglot.rules import RULES as POLYGLOT

# (registration)
from assay.smells.rules import (  # noqa: F401
    assertions,
    conditional,
    flaky,
    hygiene,
    magic_numbers,
    mocking,
    parse,
    private,
    tautology,
    upkeep,
    value,
)

RULES: dict[str, Rule] = dict(sorted(_REGISTRY.items()))
names.register(names.RULE, lambda: [*RULES, "AP000", *POLYGLOT])
