"""Gate 5 for the languages other than Python whose `Language.smells` is set (Java, Go, Rust,
TypeScript, JavaScript, C#): test smells found with tree-sitter (rules AP000-AP006,
`docs/smells-polyglot.md`). Static: no test code runs. The Python analyser (`assay.smells`)
is separate."""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path
from typing import Any

from assay.config.smells import SmellsConfig
from assay.languages import LANGUAGES as REGISTRY
from assay.languages.base import SmellsFacts
from assay.smells.model import Finding, Hit, Rule
from assay.smells.polyglot.rules import RULES, Context
from assay.smells.polyglot.syntax import Family, calls, parser, text, token_calls

__all__ = ["LANGUAGES", "RULES", "analyze", "available"]

LANGUAGES = frozenset(name for name, lang in REGISTRY.items() if lang.smells is not None)
UNPARSABLE = Rule(
    "AP000",
    "cannot-parse",
    "info",
    "cannot parse",
    "Check the file's syntax; gate 1 reports it.",
    "The file has syntax tree-sitter cannot read; its smells were not measured.",
    lambda *_: iter(()),
)
MAX_SOURCE_CHARS = 4 * 1024 * 1024


def _facts(language: str) -> SmellsFacts | None:
    lang = REGISTRY.get(language)
    return lang.smells if lang is not None else None


@cache
def family(rules: str) -> Family:
    """The `FAMILY` of a rules module of this package (`Language.smells.rules`)."""
    found: Family = importlib.import_module(f"{__name__}.{rules}").FAMILY
    return found


def available(language: str, path: str = "") -> bool:
    """Whether the tree-sitter grammar of `language` is installed (else gate 5 skips with
    that reason)."""
    facts = _facts(language)
    return facts is not None and parser(facts.grammar_for(path)) is not None


def level(rule: Rule, config: SmellsConfig) -> str:
    """The rule's level: configured per rule, else per profile (no marker says a file of these
    languages was generated, so "auto" judges it as a suite), else the rule's own."""
    if rule.id in config.levels:
        return config.levels[rule.id]
    if rule.profiles:
        profile = "suite" if config.profile == "auto" else config.profile
        return rule.profiles[profile]
    return rule.level


def analyze(
    source: str,
    path: str,
    language: str,
    config: SmellsConfig | None = None,
    root: Path | None = None,
) -> list[Finding]:
    """Findings for one test file, sorted by position; never raises on bad input. With the
    project's `root`, the helpers of the modules the file declares count too."""
    config = config or SmellsConfig.model_validate({})
    facts = _facts(language)
    ts = parser(facts.grammar_for(path)) if facts is not None else None
    if facts is None or ts is None:
        return []
    if len(source) > MAX_SOURCE_CHARS:
        return [_finding(UNPARSABLE, Hit(1, 1, "file too large to analyse"), path, config)]
    tree = ts.parse(source.encode("utf-8", "replace"))
    syntax = family(facts.rules)
    found = syntax.cases(tree.root_node, path)
    findings: list[Finding] = []
    if tree.root_node.has_error:
        findings.append(_finding(UNPARSABLE, Hit(1, 1), path, config))
    shared = syntax.file_mocks(text(tree.root_node))
    more = _modules(root, path, tree.root_node, syntax, ts)
    package = syntax.package(tree.root_node)
    imported = syntax.imported_assertions(text(tree.root_node))
    helpers = asserting_helpers(tree.root_node, facts.calls, syntax, more, imported)
    for case in found:
        found_calls = (
            calls(facts.calls, case.body, syntax.named_args) if case.body is not None else []
        )
        ctx = Context(
            syntax,
            found_calls,
            config.max_mocks,
            shared,
            facts.sleep,
            facts.mocks,
            helpers,
            package,
        )
        for rule in RULES.values():
            if level(rule, config) == "off":
                continue
            for hit in rule.check(case, ctx):
                findings.append(_finding(rule, hit, path, config, case.name))
    return sorted(findings, key=lambda f: (f.line, f.col, f.rule))


_FUNCTIONS = ("function_declaration", "method_declaration", "function_item", "function_definition")


def asserting_helpers(
    root: Any,
    kinds: tuple[str, ...],
    syntax: Family,
    more: tuple[Any, ...] = (),
    imported: frozenset[str] = frozenset(),
) -> frozenset[str]:
    """Names of the file's functions whose body asserts, directly or through another such
    helper (`fn check(v: &str) { assert_eq!(parse(v).unwrap().to_string(), v) }`); the overloads
    of one name count together (`testByChunk(a, b)` calling `testByChunk(a, b, false)`), a test
    method called by another test is a helper too, and so are the functions of `more` (the
    modules the file declares), Rust's `macro_rules!` and the types whose `impl` asserts; the
    names the file imports from an assertion module (`imported`) are among them."""
    bodies: dict[str, list[Any]] = {}
    stack = [root, *more]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if node.type in _FUNCTIONS and name is not None and body is not None:
            bodies.setdefault(text(name), []).extend(calls(kinds, body, syntax.named_args))
        elif node.type == "impl_item" and body is not None:
            # a type whose methods assert (an `Iterator` panicking past its limit): a test or helper
            # that builds it (`Counter { .. }`) asserts through it
            kind = re.sub(r"<.*", "", text(node.child_by_field_name("type")))
            bodies.setdefault(kind, []).extend(calls(kinds, body, syntax.named_args))
        elif node.type == "macro_definition" and name is not None:
            inner = [c for c in node.named_children if c.type == "macro_rule"]
            found_calls = [
                call for rule in inner for t in rule.named_children for call in token_calls(t)
            ]
            bodies.setdefault(text(name) + "!", []).extend(found_calls)
    found: set[str] = set(imported)
    grew = True
    while grew:
        grew = False
        for name, inner in bodies.items():
            if name not in found and any(syntax.is_assertion(c) or c.name in found for c in inner):
                found.add(name)
                grew = True
    return frozenset(found)


def _modules(root: Path | None, path: str, tree: Any, syntax: Family, ts: Any) -> tuple[Any, ...]:
    """Parsed roots of the modules the file declares (Rust's `mod util;`), read from `root`."""
    if root is None:
        return ()
    out = []
    for rel in syntax.modules(tree, path):
        try:
            out.append(ts.parse((root / rel).read_bytes()).root_node)
        except OSError:
            continue
    return tuple(out)


def _finding(
    rule: Rule, hit: Hit, path: str, config: SmellsConfig, test: str | None = None
) -> Finding:
    return Finding(
        rule.id,
        level(rule, config),
        path,
        hit.line,
        hit.col,
        hit.message or rule.message,
        test,
        rule.hint,
        rule.low_value,
    )
