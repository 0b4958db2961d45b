"""Names the settings refer to that registries above the base define: the languages that have a tool
section, the smells rule ids, the mutation operators.

The base cannot import those registries (they import it), so each registry registers its names here
where it is built, and the settings are checked against what is registered. A kind nobody registered
yet is not checked (`known` is None): every command goes through `assay.api`, which loads every
registry first."""

from __future__ import annotations

from collections.abc import Callable, Iterable

# `[tool.assay.<language>]`: languages.LANGUAGES, where `Language.tool_section`
TOOL_SECTION = "tool section"
RULE = "smells rule"  # smells.rules.RULES and smells.polyglot.rules.RULES
OPERATOR = "mutation operator"  # mutation.operators.OPERATORS

_SOURCES: dict[str, list[Callable[[], Iterable[str]]]] = {}


def register(kind: str, source: Callable[[], Iterable[str]]) -> None:
    """Take names of `kind` from `source`, asked each time they are checked: a registry that grows
    later (a language added to `LANGUAGES` at run time) is seen as it is then."""
    _SOURCES.setdefault(kind, []).append(source)


def known(kind: str) -> list[str] | None:
    """The registered names of `kind` in registration order, or None when no registry of that kind
    is loaded."""
    sources = _SOURCES.get(kind)
    if sources is None:
        return None
    return list(dict.fromkeys(name for source in sources for name in source()))


def unknown(kind: str, names: Iterable[str]) -> list[str]:
    """Those of `names` that are not registered as `kind`, sorted; none when the kind is
    not loaded."""
    found = known(kind)
    return [] if found is None else sorted(set(names) - set(found))
