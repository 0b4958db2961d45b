"""What a writer is told beyond a gate's own words, for the failures small models repeat: a name
the file never imports (`NameError`), a file pytest collects nothing from, an answer that resends
the file unchanged. Each piece says what to do, not only what went wrong."""

from __future__ import annotations

import ast
import re

from assay.targets.model import Target

NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined")
UNCHANGED_HEADER = "REJECT: ANSWER — UNCHANGED"
MAX_QUOTED = 8
MAX_GATE_LINES = 12


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


def unchanged(
    previous: str,
    source: str,
    flagged: list[int],
    failing: list[str],
    behaviours: list[str],
    resends: int,
) -> str:
    """The feedback for an answer that resends the file it was asked to fix: the same words again
    would get the same file back, so these quote the lines the gate flagged, name the tests to
    delete and ask for a new test of one named behaviour (another one each resend). `previous`:
    the gate's feedback the resent file got; `flagged`: the lines of the file it points at;
    `failing`: its tests' node ids."""
    lines = source.splitlines()
    flagged = sorted({n for n in flagged if 0 < n <= len(lines)})
    names = list(dict.fromkeys(t.split("::")[-1].split("[")[0] for t in failing))
    out = [UNCHANGED_HEADER, "Your answer is the same file as before, so it fails the same way."]
    if flagged:
        out.append("These lines of it are what the gate flagged:")
        out += [f"  {n:>3} | {lines[n - 1].rstrip()}" for n in flagged[:MAX_QUOTED]]
    gate = [ln for ln in previous.strip().splitlines() if ln.strip()][:MAX_GATE_LINES]
    out += ["The gate said:", *(f"  {ln}" for ln in gate)]
    ask = (
        f"one new test of this behaviour instead: {behaviours[(resends - 1) % len(behaviours)]}"
        if behaviours
        else "one new test of a behaviour the file does not test yet, its expected value worked "
        "out from the code"
    )
    if names:
        out.append(
            f"Do not send this file again. Delete {', '.join(f'`{n}`' for n in names)} "
            f"and write {ask}. Keep the other tests as they are."
        )
    else:
        out.append(f"Do not send this file again. Keep its tests and add {ask}.")
    return "\n".join(out)


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


def off_target(code: str, target: Target) -> str | None:
    """The answer-format reject for a Python file that never names a function it was asked to
    test (a small model wrote tests of another function of the module: gate 4 scores the module, so
    the file passed and the target was reported as tested); None when it names one, does not
    parse, or the target's functions are reached through syntax (`__init__`, `__eq__`)."""
    wanted = [f.name.rsplit(".", 1)[-1] for f in target.functions]
    if not wanted or any(w.startswith("__") for w in wanted):
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    named |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    named |= {n.name.rsplit(".", 1)[-1] for n in ast.walk(tree) if isinstance(n, ast.alias)}
    if named & set(wanted):
        return None
    shown = ", ".join(f"`{w}`" for w in wanted[:4]) + (" ..." if len(wanted) > 4 else "")
    return "\n".join(
        [
            "REJECT: ANSWER — NOT THE TARGET",
            f"No test in the file calls {shown}: its tests are of other code.",
            f"Write tests that call {shown}, as the import lines you were given show.",
        ]
    )
