"""The labelled corpus: every `# expect[ID]` marker must be found on its line, and nothing else.

Each corpus file mixes positives and (tricky) negatives, so an exact match checks both recall and
precision of the rules on them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.smells import RULES, analyze, read_targets

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(CORPUS.glob("case_*.py"))
MARKER = re.compile(r"expect\[([A-Z0-9,]+)\]")


def expected(source: str) -> set[tuple[int, str]]:
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        m = MARKER.search(line)
        if m:
            out |= {(lineno, rule) for rule in m.group(1).split(",")}
    return out


def findings_of(path: Path):
    source = path.read_text()
    m = re.search(r"# targets: (.*)", source)
    targets = read_targets(CORPUS, m.group(1).split()) if m else None
    return analyze(source, path.name, targets)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_corpus_file_findings_match_markers(path):
    got = {(f.line, f.rule) for f in findings_of(path)}
    want = expected(path.read_text())
    assert sorted(want - got) == [], "missed"
    assert sorted(got - want) == [], "false positives"


def test_every_rule_has_a_positive_case_in_the_corpus():
    covered = {rule for path in CASES for _, rule in expected(path.read_text())}
    # AS000 (unparsable input) and AS022 (long test) are covered by test_analyzer.py
    assert set(RULES) - covered == {"AS000", "AS022"}


def test_every_reject_rule_has_a_negative_case():
    """A tricky negative is a test named *_is_fine that mentions what the rule looks at; at least
    one such test per file must come out clean (checked above); here: there are enough of them."""
    fine = sum(len(re.findall(r"def test_\w+_is_fine", p.read_text())) for p in CASES)
    assert fine >= 30
