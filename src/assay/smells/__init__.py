"""Gate 5: static test-smell and test-value analysis (stdlib `ast`; no test code is executed).

`analyze()` turns one test file (plus the source of its targets) into findings; the CLI, the gate
and the reporters only format or judge those findings.
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path, PurePosixPath

from assay.config.smells import SmellsConfig
from assay.smells.context import Module, seeds
from assay.smells.mixins import Inherited, external_method, inherited_tests
from assay.smells.model import Finding, Hit, Rule
from assay.smells.rules import RULES
from assay.smells.value import TargetIndex

__all__ = [
    "RULES",
    "Finding",
    "Rule",
    "SmellsConfig",
    "analyze",
    "analyze_bytes",
    "decode",
    "level_of",
    "profile_of",
]

MAX_SOURCE_CHARS = 4 * 1024 * 1024


def profile_of(config: SmellsConfig, generated: bool = False) -> str:
    """The profile a test is judged under: the configured one, or under "auto" `generated` for tests
    marked `assay_generated` and `suite` for the others."""
    if config.profile != "auto":
        return config.profile
    return "generated" if generated else "suite"


def level_of(rule: Rule, config: SmellsConfig, generated: bool = False) -> str:
    """The level a rule reports at under `config` ("off" when disabled), for a test that is marked
    `assay_generated` or not (that matters only under the "auto" profile)."""
    if rule.id in config.levels:
        return config.levels[rule.id]
    if rule.low_value and not config.fail_on_low_value:
        return "warn"
    if rule.profiles:
        return rule.profiles[profile_of(config, generated)]  # type: ignore[index]
    return rule.level


def _finding(
    rule: Rule,
    hit: Hit,
    path: str,
    config: SmellsConfig,
    test: str | None = None,
    generated: bool = False,
) -> Finding:
    return Finding(
        rule.id,
        level_of(rule, config, generated),
        path,
        hit.line,
        hit.col,
        hit.message or rule.message,
        test,
        rule.hint,
        rule.low_value,
    )


def _unparsable(path: str, error: Exception, config: SmellsConfig) -> list[Finding]:
    rule = RULES["AS000"]
    return [_finding(rule, hit, path, config) for hit in rule.check(error)]


Targets = dict[str, str] | Callable[[str], dict[str, str]] | None


def analyze(
    source: str,
    path: str,
    targets: Targets = None,
    config: SmellsConfig | None = None,
    root: Path | None = None,
) -> list[Finding]:
    """Findings for one test file, sorted by position. `targets` maps project-relative paths of the
    code under test (the project's own modules the file imports) to their source, or is a function
    that gets the file's import statements (as source: cheap to parse again) and returns that map.
    The low-value rules need it, and AS005 uses it to tell project code from builtins and
    dependencies; None means "not known" (an empty map: the file imports no project module). With
    the project's `root`, the tests the file's classes inherit from other project files (mixins)
    are judged too: their findings point where those tests are written, under the name they run
    as here. Never raises on bad input: unparsable files give an AS000 finding."""
    config = config or SmellsConfig()
    if len(source) > MAX_SOURCE_CHARS:
        return _unparsable(path, ValueError(f"file too large ({len(source) // 1024} KiB)"), config)
    source = source.removeprefix("\ufeff")
    try:
        module = Module(ast.parse(source, filename=path), path, source.splitlines())
        if callable(targets):
            targets = targets(module.imports_source())
        module.targets = TargetIndex.build(targets) if targets is not None else None
        module.root = root
        if root is not None:
            module.outside = functools.partial(external_method, module, root)
        inherited = inherited_tests(module, root) if root is not None else []
        if root is not None and _conftest_seeds(root, path):
            module.seeded = True
        return _run_rules(module, config, inherited)
    except (SyntaxError, ValueError) as err:
        return _unparsable(path, err, config)
    except (RecursionError, MemoryError):
        return _unparsable(path, ValueError("nested too deeply to analyse"), config)


def _conftest_seeds(root: Path, path: str) -> bool:
    """A conftest.py between the test file and the project root seeds randomness or freezes time
    (an autouse fixture calling `random.seed(0)`): it does so for every test below it."""
    folder = PurePosixPath(path).parent
    for d in (folder, *folder.parents):
        conftest = root / d / "conftest.py"
        try:
            st = conftest.stat()
        except OSError:
            continue
        if _seeding(conftest, st.st_mtime_ns, st.st_size):
            return True
    return False


@lru_cache(maxsize=256)
def _seeding(conftest: Path, mtime_ns: int, size: int) -> bool:
    """Read once per version: every test file below a conftest.py asks."""
    try:
        return seeds(conftest.read_bytes().decode("utf-8", "replace"))
    except OSError:
        return False


def _run_rules(module: Module, config: SmellsConfig, inherited: list[Inherited]) -> list[Finding]:
    findings: list[Finding] = []
    for rule in RULES.values():
        if rule.scope == "parse":
            continue
        if rule.scope == "file":
            if level_of(rule, config, module.generated) != "off":
                findings += [
                    _finding(rule, h, module.path, config, generated=module.generated)
                    for h in rule.check(module, config)
                    if not module.suppressed(h.line, rule.id)
                ]
            continue
        runs = [(t, t.name) for t in module.tests] + [(i.test, i.name) for i in inherited]
        for test, name in runs:
            if level_of(rule, config, test.generated) == "off":
                continue
            owner = test.module  # where the test is written: a mixin's module for inherited ones
            for hit in rule.check(test, config):
                if not (
                    owner.suppressed(hit.line, rule.id)
                    or owner.suppressed(test.node.lineno, rule.id)
                ):
                    findings.append(_finding(rule, hit, owner.path, config, name, test.generated))
    return sorted(findings, key=lambda f: (f.path != module.path, f.path, f.line, f.col, f.rule))


def decode(data: bytes) -> str:
    """Source bytes to text as Python reads them (BOM, `coding:` cookie); raises
    SyntaxError/UnicodeError."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def analyze_bytes(
    data: bytes,
    path: str,
    targets: Targets = None,
    config: SmellsConfig | None = None,
    root: Path | None = None,
) -> list[Finding]:
    """`analyze` for raw file contents: undecodable bytes give an AS000 finding, not
    an exception."""
    config = config or SmellsConfig()
    try:
        source = decode(data)
    except (SyntaxError, UnicodeError, LookupError) as err:
        return _unparsable(path, ValueError(f"undecodable file: {err}"), config)
    return analyze(source, path, targets, config, root)


@lru_cache(maxsize=1024)
def _read_source(path: Path, mtime_ns: int, size: int) -> str:
    return decode(path.read_bytes())


def read_targets(root: Path, rels: list[str]) -> dict[str, str]:
    """Sources of the target files that exist and decode; the others are left out. Cached by
    (path, mtime, size): many test files share their targets."""
    out: dict[str, str] = {}
    for rel in rels:
        path = root / rel
        try:
            st = path.stat()
            out[rel] = _read_source(path, st.st_mtime_ns, st.st_size)
        except (OSError, SyntaxError, UnicodeError, LookupError):
            continue
    return out
