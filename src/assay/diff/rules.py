"""The test-diff integrity rules (AI001…): what a change may have done to weaken the tests, each
with an id, a message and a bad/good example; their docs page is generated (`assay.diff.docs`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class IntegrityRule:
    id: str
    name: str
    message: str
    doc: str  # why, then a bad and a good example (diff excerpts)


@dataclass(frozen=True)
class IntegrityFinding:
    """One weakening edit of a test: where (the new file's line; the old one for deletions),
    the text before and after, and how serious."""

    rule: str
    level: str  # "reject" | "warn"
    path: str
    line: int
    message: str
    test: str | None = None
    old: str = ""
    new: str = ""

    @property
    def text(self) -> str:
        where = f"{self.path}:{self.line}"
        said = f"{self.test.split('::')[-1]}: {self.message}" if self.test else self.message
        change = f" ({self.old!r} → {self.new!r})" if self.old or self.new else ""
        return f"{where}: {self.rule} {said}{change}"

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "level": self.level,
            "path": self.path,
            "line": self.line,
            "col": 1,
            "message": self.message,
            "test": self.test,
            "old": self.old,
            "new": self.new,
        }


RULES: dict[str, IntegrityRule] = {
    r.id: r
    for r in (
        IntegrityRule(
            "AI001",
            "deleted-test",
            "test deleted",
            """A test that existed at the base revision is gone (its file deleted, or the function
removed). When the code it tested changed too, the test may have been deleted because it caught
the change.

Bad:
```diff
-def test_clamp_upper():
-    assert clamp(42, 0, 10) == 10
```
Good: keep the test; if the contract changed, change the expectation in a reviewed commit of its
own and say why.""",
        ),
        IntegrityRule(
            "AI002",
            "newly-skipped",
            "test newly skipped or xfailed",
            """A test that ran at the base revision is now skipped or expected to fail
(`@pytest.mark.skip`, `skipif`, `xfail`, `unittest.skip`, a `pytest.skip()` call). A skipped test
checks nothing.

Bad:
```diff
+@pytest.mark.skip(reason="flaky")
 def test_parse_negative():
```
Good: fix the test or the code; a genuinely flaky test is a bug to file, not to hide.""",
        ),
        IntegrityRule(
            "AI003",
            "loosened-assertion",
            "assertion loosened",
            """An assertion now accepts more than before: an exact comparison became an
approximate one (`pytest.approx`, `math.isclose`), equality became membership (`in`) or a
truthiness check, an assert line was removed, or `pytest.raises` now accepts a wider exception
(a base class, a tuple, no `match=`).

Bad:
```diff
-    assert total(items) == 30
+    assert total(items)
```
Good:
```python
    assert total(items) == 30
```""",
        ),
        IntegrityRule(
            "AI004",
            "changed-expectation",
            "expected value changed while the code under test changed",
            """The expected value of an assertion changed in the same diff as the code the test
imports: the test was edited to agree with the new code. If the new code has a bug, the test now
pins the bug. Reported only when that code changed.

Bad (the change also edited `clamp`):
```diff
-    assert clamp(42, 0, 10) == 10
+    assert clamp(42, 0, 10) == 9
```
Good: derive the expectation from the contract (`clamp` returns the upper bound for values above
it), not from the new output.""",
        ),
    )
}
