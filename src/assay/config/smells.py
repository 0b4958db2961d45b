"""`[tool.assay.smells]`: per-rule levels and the thresholds of the smells rules."""

from __future__ import annotations

from typing import Literal

from assay.config import names
from assay.section import Section, setting


def _known_rules(levels: dict[str, str]) -> dict[str, str]:
    unknown = names.unknown(names.RULE, levels)
    if unknown:
        raise ValueError(f"unknown rule id {unknown[0]}")
    return levels


class SmellsConfig(Section):
    profile: Literal["auto", "generated", "suite"] = setting(
        default="auto",
        description="whose tests: 'generated' (strict), "
        "'suite' (a project's own tests), or 'auto': "
        "'generated' for tests marked assay_generated, else 'suite'",
    )
    levels: dict[str, Literal["reject", "warn", "info", "off"]] = setting(
        default={}, check=_known_rules, description="per-rule level override, e.g. {AS016 = 'off'}"
    )
    max_unexplained_asserts: int = setting(
        default=5, ge=1, description="AS003: assertions without message per test"
    )
    max_mocks: int = setting(
        default=6, ge=0, description="AS004: mock objects and patches per test"
    )
    max_test_lines: int = setting(default=60, ge=5, description="AS022: lines of one test")
    fail_on_low_value: bool = setting(
        default=True, description="low-value tests (AS020, AS021) reject the file"
    )
