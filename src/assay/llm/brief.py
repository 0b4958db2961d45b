"""The end of a write prompt, for small models that follow the last lines they read and copy what
they see: the exact import lines to start the file with, the behaviours to test by name (one test
each), and one test in the expected shape (from the docstring's own examples when it has some)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from assay.llm.excerpt import FunctionInfo, Subject, chosen_functions, exported_names, index
from assay.project import Project

MAX_BEHAVIOURS = 6
PER_FUNCTION = 3
DOCTEST = re.compile(r"^\s*>>> (.+)\n\s*([^\s>].*)$", re.MULTILINE)
# the shape of a test, when the code under test has no doctest and the project no test to show
SHAPE = """\
def test_clamp_raises_when_low_is_above_high():
    with pytest.raises(ValueError):
        clamp(5, low=3, high=1)


def test_clamp_returns_high_for_a_value_above_it():
    assert clamp(9, low=0, high=5) == 5"""


@dataclass
class WriteBrief:
    imports: str  # the lines the test file starts with
    behaviours: list[str] = field(default_factory=list)  # one test each
    example: str = ""  # one or two tests in the expected shape
    example_is_ours: bool = False  # the example tests the code under test (a doctest)


def write_brief(project: Project, target: Subject) -> WriteBrief:
    """What the write prompt ends with for `target`; imports alone when the module does not
    parse."""
    source = (project.root / target.module).read_text(encoding="utf-8")
    funcs = index(source)
    dotted = target.dotted or next(
        (m for m, r in project.modules.items() if r == target.module), ""
    )
    if not funcs or not dotted:
        return WriteBrief("import pytest")
    chosen = chosen_functions(funcs, target)
    names = exported_names(ast.parse(source), chosen)
    imports = f"import pytest\n\nfrom {dotted} import {', '.join(names)}"
    per_function = [_behaviours(info) for info in chosen]
    behaviours: list[str] = []
    for rank in range(PER_FUNCTION):  # round robin: every function gets its first items
        behaviours += [b[rank] for b in per_function if len(b) > rank]
    example = next((e for e in map(_doctest_test, chosen) if e), "")
    return WriteBrief(imports, behaviours[:MAX_BEHAVIOURS], example or SHAPE, bool(example))


def _behaviours(info: FunctionInfo) -> list[str]:
    """The function's branches in words: each `if` that raises, each other `if`, its docstring's
    examples; a typical call when it has none."""
    name = info.qualname
    out = []
    for node in ast.walk(info.node):
        if not isinstance(node, ast.If):
            continue
        cond = ast.unparse(node.test)
        if len(cond) > 70:
            cond = cond[:67] + "..."
        raised = next((s for s in node.body if isinstance(s, ast.Raise)), None)
        if raised is not None and raised.exc is not None:
            exc = raised.exc.func if isinstance(raised.exc, ast.Call) else raised.exc
            out.append(f"`{name}` raises `{ast.unparse(exc)}` when `{cond}`")
        else:
            out.append(f"`{name}` when `{cond}` is true, and when it is false")
    if DOCTEST.search(ast.get_docstring(info.node) or ""):
        out.insert(0, f"`{name}` on its docstring's examples")
    return out or [f"`{name}` on a typical input, the expected value worked out by hand"]


def _doctest_test(info: FunctionInfo) -> str:
    """The first doctest of the function's docstring as a pytest test; "" when it has none or
    its lines are not plain expressions."""
    found = DOCTEST.search(ast.get_docstring(info.node) or "")
    if not found:
        return ""
    call, value = found.group(1).strip(), found.group(2).strip()
    try:
        ast.parse(call, mode="eval")
        ast.literal_eval(value)
    except (SyntaxError, ValueError):
        return ""
    short = info.qualname.rsplit(".", 1)[-1].strip("_")
    return f"def test_{short}_example():\n    assert {call} == {value}"
