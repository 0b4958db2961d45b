"""What a writer is told beyond a gate's own words, for the failures small models repeat: a name
the file never imports (`NameError`), a file pytest collects nothing from, an answer that resends
the file unchanged. Each piece says what to do, not only what went wrong."""

from __future__ import annotations

import ast
import re

from assay.targets.model import Target

NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined")
UNCHANGED_HEADER = "REJECT: ANSWER — UNCHANGED"


def advise(feedback: str, target: Target, defined: set[str]) -> str:
    """`feedback` with a line of advice for each failure of a known kind. `defined`: the names the
    target's module defines at top level."""
    advice = []
    missing = sorted(set(NAME_ERROR.findall(feedback)))
    for name in missing[:3]:
        if name in defined and target.dotted:
            advice.append(
                f"`{name}` is not defined in the test file: add `from {target.dotted} import "
                f"{name}` at the top."
            )
        else:
            advice.append(
                f"`{name}` is not defined in the test file: import it from where the code under "
                "test gets it, or define it in the file; do not use names you were not shown."
            )
    if "no tests collected" in feedback and target.language == "python":
        advice.append(
            "pytest found no test: write top-level functions named `test_...` (or methods "
            "`test_...` of a class named `Test...` without `__init__`), not under "
            "`if __name__ == '__main__':`."
        )
    return "\n".join([feedback.rstrip(), *advice]) if advice else feedback


def unchanged(previous: str) -> str:
    """The feedback for an answer that resends the file it was asked to fix: the same feedback
    again would get the same file back."""
    if previous.startswith(UNCHANGED_HEADER):
        return previous
    return "\n".join(
        [
            UNCHANGED_HEADER,
            "Your answer is the same file as before, so it fails the same way:",
            previous.strip(),
            "Change the tests this names: fix their expected values from the code's contract, "
            "or delete them and keep the others.",
        ]
    )


def same_file(a: str, b: str) -> bool:
    """Equal but for blank lines and trailing spaces."""
    return _lines(a) == _lines(b)


def _lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.splitlines() if ln.strip()]


def top_level_names(source: str) -> set[str]:
    """What a module defines at top level: functions, classes, assigned names."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names
