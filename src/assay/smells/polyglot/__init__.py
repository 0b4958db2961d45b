"""Gate 5 for Java, Go, Rust, TypeScript, JavaScript and C#: test smells found with tree-sitter (rules AP000-AP006,
`docs/smells-polyglot.md`). Static: no test code runs. The Python analyser (`assay.smells`) is separate."""

from __future__ import annotations

from pathlib import PurePosixPath

from assay.config.smells import SmellsConfig
from assay.smells.model import Finding, Hit, Rule
from assay.smells.polyglot.rules import RULES, Context, file_mocks
from assay.smells.polyglot.syntax import calls, cases, parser

__all__ = ["LANGUAGES", "RULES", "analyze", "available"]

LANGUAGES = frozenset({"java", "go", "rust", "typescript", "javascript", "csharp"})
UNPARSABLE = Rule("AP000", "cannot-parse", "info", "cannot parse", "Check the file's syntax; gate 1 reports it.",
                  "The file has syntax tree-sitter cannot read; its smells were not measured.", lambda *_: iter(()))
MAX_SOURCE_CHARS = 4 * 1024 * 1024


def grammar_of(language: str, path: str) -> str:
    return "tsx" if language == "typescript" and path.endswith(".tsx") else language


def available(language: str, path: str = "") -> bool:
    """Whether the tree-sitter grammar of `language` is installed (else gate 5 skips with that reason)."""
    return parser(grammar_of(language, path)) is not None


def level(rule: Rule, config: SmellsConfig) -> str:
    return config.levels.get(rule.id, rule.level)


def _rust_module(path: str) -> str:
    """A Rust source file's module path (`src/price/mod.rs` -> `price`), as libtest prefixes its tests."""
    parts = PurePosixPath(path).with_suffix("").parts
    if "src" not in parts or "tests" in parts:
        return ""
    inner = list(parts[parts.index("src") + 1:])
    if inner and inner[-1] in ("lib", "main", "mod"):
        inner.pop()
    return "::".join(inner)


def analyze(source: str, path: str, language: str, config: SmellsConfig | None = None) -> list[Finding]:
    """Findings for one test file, sorted by position; never raises on bad input."""
    config = config or SmellsConfig.model_validate({})
    grammar = grammar_of(language, path)
    ts = parser(grammar)
    if ts is None:
        return []
    if len(source) > MAX_SOURCE_CHARS:
        return [_finding(UNPARSABLE, Hit(1, 1, "file too large to analyse"), path, config)]
    tree = ts.parse(source.encode("utf-8", "replace"))
    found = cases(grammar, tree.root_node, _rust_module(path) if language == "rust" else "")
    findings: list[Finding] = []
    if tree.root_node.has_error:
        findings.append(_finding(UNPARSABLE, Hit(1, 1), path, config))
    family = "js" if language in ("typescript", "javascript") else language
    shared = file_mocks(family, tree.root_node)
    for case in found:
        ctx = Context(language, calls(grammar, case.body) if case.body is not None else [], config.max_mocks, shared)
        for rule in RULES.values():
            if level(rule, config) == "off":
                continue
            for hit in rule.check(case, ctx):
                findings.append(_finding(rule, hit, path, config, case.name))
    return sorted(findings, key=lambda f: (f.line, f.col, f.rule))


def _finding(rule: Rule, hit: Hit, path: str, config: SmellsConfig, test: str | None = None) -> Finding:
    return Finding(rule.id, level(rule, config), path, hit.line, hit.col, hit.message or rule.message, test,
                   rule.hint, rule.low_value)
