"""Findings and rules of the smells analyzer: plain data, no analysis."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["reject", "warn", "info"]
Profile = Literal["generated", "suite"]


@dataclass(frozen=True)
class Finding:
    """One smell at one place. `test` is the test's name inside the file (`Class::test_x`),
    if any."""

    rule: str
    level: str
    path: str
    line: int
    col: int
    message: str
    test: str | None = None
    hint: str = ""
    low_value: bool = False

    @property
    def text(self) -> str:
        """The message as users read it, prefixed with the test it concerns."""
        return f"{self.test.split('::')[-1]}: {self.message}" if self.test else self.message

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "level": self.level,
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "message": self.message,
            "test": self.test,
        }


@dataclass(frozen=True)
class Hit:
    """What a rule function yields: where, and optionally a more specific message than
    the rule's."""

    line: int
    col: int
    message: str | None = None

    @classmethod
    def at(cls, node: Any, message: str | None = None) -> Hit:
        return cls(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, message)


@dataclass(frozen=True)
class Rule:
    """A smell rule. `doc` (the check's docstring) holds the why plus a bad and a good example."""

    id: str
    name: str
    level: Level
    message: str
    hint: str
    doc: str
    check: Callable[..., Iterator[Hit]]
    scope: Literal["test", "file", "parse"] = "test"
    low_value: bool = False
    profiles: dict[Profile, Level] | None = None  # level per profile, when the profile decides it


RULES: dict[str, Rule] = {}


def rule(
    id: str,
    name: str,
    level: Level,
    message: str,
    hint: str,
    *,
    scope: Literal["test", "file", "parse"] = "test",
    low_value: bool = False,
    profiles: dict[Profile, Level] | None = None,
    registry: dict[str, Rule] | None = None,
) -> Callable[[Callable[..., Iterator[Hit]]], Callable[..., Iterator[Hit]]]:
    """Register a check function as a rule; the registry is ordered by id when read. `profiles`,
    when given, sets the level per profile (generated or suite tests) in place of `level`.
    `registry`: another language family's rules (the polyglot ones), else the Python rules'."""
    rules = RULES if registry is None else registry

    def register(fn: Callable[..., Iterator[Hit]]) -> Callable[..., Iterator[Hit]]:
        if id in rules:
            raise ValueError(f"duplicate rule id {id}")
        rules[id] = Rule(
            id,
            name,
            level,
            message,
            hint,
            inspect.cleandoc(fn.__doc__ or ""),
            fn,
            scope,
            low_value,
            profiles,
        )
        return fn

    return register


def level_text(r: Rule, code: str = "") -> str:
    """A rule's level as the docs print it: per profile where the profile decides it."""
    if r.profiles:
        return " / ".join(
            f"{code}{level}{code} ({profile})" for profile, level in r.profiles.items()
        )
    return f"{code}{r.level}{code}{' (low value)' if r.low_value else ''}"


def doc_section(doc: str) -> str:
    """A rule's docstring as markdown (docs/smells*.md): prose stays prose; the indented block after
    `Bad:` / `Good:` becomes a Python code block."""
    out: list[str] = []
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() in ("Bad:", "Good:"):
            block = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            out += [
                f"**{line.strip()[:-1]}**",
                "",
                "```python",
                textwrap.dedent("\n".join(block)).strip(),
                "```",
                "",
            ]
            continue
        out.append(line)
        i += 1
    return "\n".join(out).strip()
