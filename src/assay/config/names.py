"""Names the settings refer to that registries above the base define: the languages that have a tool section,
the smells rule ids, the mutation operators.

The base cannot import those registries (they import it), so each registry registers its names here where it is
built, and the settings are checked against what is registered. A kind nobody registered yet is not checked
(`known` is None): every command goes through `assay.api`, which loads every registry first."""

from __future__ import annotations

from collections.abc import Iterable

TOOL_SECTION = "tool section"  # `[tool.assay.<language>]`: languages.LANGUAGES, where `Language.tool_section`
RULE = "smells rule"  # smells.rules.RULES and smells.polyglot.rules.RULES
OPERATOR = "mutation operator"  # mutation.operators.OPERATORS

_KNOWN: dict[str, dict[str, None]] = {}


def register(kind: str, names: Iterable[str]) -> None:
    """Add names of `kind` (in order; registering one twice is harmless)."""
    _KNOWN.setdefault(kind, {}).update(dict.fromkeys(names))


def known(kind: str) -> list[str] | None:
    """The registered names of `kind` in registration order, or None when no registry of that kind is loaded."""
    found = _KNOWN.get(kind)
    return list(found) if found is not None else None


def unknown(kind: str, names: Iterable[str]) -> list[str]:
    """Those of `names` that are not registered as `kind`, sorted; none when the kind is not loaded."""
    found = _KNOWN.get(kind)
    return [] if found is None else sorted(set(names) - set(found))
