"""Mutant generation: every operator, every skip rule, exact text replacements."""

from __future__ import annotations

import ast

from assay.mutation.mutants import apply, generate

SOURCE = '''"""Module docstring."""
import logging

__all__ = ["f", "g"]
log = logging.getLogger(__name__)


def f(x: int, y: str = "a", flag=False) -> bool:
    """Docstring."""
    if x > 0 and y is not None:
        x += 1
    elif x in (2, 3):
        return True
    log.info("x is %s", x)
    print(x)  # pragma: no mutate
    for i in range(3):
        if not i:
            continue
        break
    while x <= -1:
        x = x - 1
    return x * 2 == 4


class C:
    size = 0
    key = ""

    @staticmethod
    def m(a):
        def inner(b):
            return a // b != 0

        return inner


k = lambda v: v % 2  # noqa
'''


def _mutants():
    return generate("pkg/mod.py", SOURCE)


def _pairs():
    return {(m.operator, m.original, m.replacement) for m in _mutants()}


def test_every_operator_applies():
    pairs = _pairs()
    expected = {
        ("comparison_boundary", ">", ">="),
        ("comparison_boundary", "<=", "<"),
        ("comparison_negation", "is not", "is"),
        ("comparison_negation", "in", "not in"),
        ("comparison_negation", "==", "!="),
        ("comparison_negation", "!=", "=="),
        ("boolean_operator", "and", "or"),
        ("augmented_assignment", "+=", "-="),
        ("augmented_assignment", "+=", "="),
        ("return_value", "True", "False"),
        ("return_value", "x * 2 == 4", "None"),
        ("break_continue", "continue", "break"),
        ("break_continue", "break", "continue"),
        ("not_removal", "not ", ""),
        ("unary_minus_removal", "-", ""),
        ("arithmetic", "-", "+"),
        ("arithmetic", "*", "/"),
        ("arithmetic", "//", "/"),
        ("arithmetic", "%", "/"),
        ("default_argument", '"a"', "'XXaXX'"),
        ("default_argument", "False", "True"),
        ("number", "0", "1"),
        ("number", "3", "4"),
        ("string", '""', "'XX'"),
        ("condition", "x > 0 and y is not None", "True"),
        ("condition", "x <= -1", "False"),
        ("call_removal", "print(x)", "None"),
    }
    expected.discard(("call_removal", "print(x)", "None"))  # that line carries a pragma
    assert expected <= pairs


def test_skips_docstrings_annotations_all_logging_and_pragma_lines():
    pairs = _pairs()
    originals = {o for _, o, _ in pairs}
    assert not any("Docstring" in o or "docstring" in o for o in originals)
    assert '"f"' not in originals and '"g"' not in originals  # __all__
    assert '"x is %s"' not in originals and not any(o.startswith("log.info") for o in originals)
    assert not any(m.line == 15 for m in _mutants())  # pragma: no mutate
    assert ("condition", "x <= -1", "True") not in pairs  # a while forced true only loops forever


def test_type_expressions_outside_annotations_are_not_mutated_but_literal_values_are():
    text = (
        "import typing\nfrom typing import Literal, Optional\n"
        'WaitT = typing.Union[int, typing.Callable[["State"], float]]\n'
        'Node = Optional["Tree"]\nMode = Literal["r", "w"]\nLIMIT = ["cap"]\n'
    )
    originals = {m.original for m in generate("m.py", text)}
    assert originals == {'"r"', '"w"', '"cap"'}


def test_replacements_are_exact_text_edits_that_compile():
    for m in _mutants():
        assert SOURCE[m.start : m.end] == m.original
        mutated = apply(SOURCE, m)
        assert mutated != SOURCE
        ast.parse(mutated)


def test_functions_and_chains_name_the_enclosing_defs():
    by_original = {(m.operator, m.original): m for m in _mutants()}
    inner = by_original[("comparison_negation", "!=")]
    assert inner.function == "C.m.<locals>.inner"
    assert inner.chain == (("inner", 31), ("m", 29))  # a decorated def starts at its decorator
    assert by_original[("arithmetic", "%")].function == "<module>"  # module-level lambda
    assert by_original[("string", '""')].chain == ()  # class body runs at import


def test_columns_count_characters_not_bytes():
    text = 'def f():\n    return "é" + "ü"\n'
    plus = next(m for m in generate("m.py", text) if m.operator == "arithmetic")
    assert (plus.line, plus.col) == (2, 15)
    assert text[plus.start] == "+"


def test_display_lines_show_before_and_after():
    m = next(m for m in _mutants() if m.operator == "comparison_boundary" and m.original == ">")
    assert m.before == "if x > 0 and y is not None:"
    assert m.after == "if x >= 0 and y is not None:"


def test_unparsable_module_has_no_mutants():
    assert generate("bad.py", "def f(:\n") == []


GENERATORS = """def butlast(seq):
    it = iter(seq)
    prev = next(it)
    for item in it:
        yield prev
        prev = item


def chained(a, b):
    yield from a
    yield from ()
    yield
    yield None
    received = yield b
    return received
"""


def test_a_generator_yields_none_and_yields_from_nothing():
    """funcy's `butlast` (issue 25 finding): a generator had no mutant at all."""
    pairs = {(m.operator, m.original, m.replacement) for m in generate("g.py", GENERATORS)}
    yields = {p for p in pairs if p[0] == "yield_value"}
    assert yields == {("yield_value", "prev", "None"), ("yield_value", "a", "()")}
    assert ("return_value", "received", "None") in pairs


def test_the_docs_table_lists_every_operator():
    from pathlib import Path

    from assay.mutation.operators import OPERATORS

    docs = Path(__file__).parents[2] / "docs" / "mutation.md"
    table = docs.read_text().split("## Operators", 1)[1].split("\n\n", 1)[0]
    assert [name for name in OPERATORS if f"`{name}`" not in table] == []


def test_checks_of_the_running_interpreter_or_platform_are_not_mutated():
    """async_lru 2.4.0: `if sys.version_info >= (3, 14):` gave each test file ten survivors on
    3.11 (`> (3, 14)`, `>= (3, 15)`, `if True:`) that no test run on one interpreter tells apart."""
    text = (
        "import os, platform, sys\n"
        "PY314 = sys.version_info >= (3, 14)\n\n\n"
        "def f(x):\n"
        "    if sys.version_info[:2] < (3, 12) and os.name == 'nt':\n"
        "        x = x + 1\n"
        "    elif sys.platform.startswith('win') or platform.system() == 'Darwin':\n"
        "        x = x - 1\n"
        "    y = 2 if sys.version_info.major >= 3 else 3\n"
        "    if x > 0:\n"
        "        return x * y\n"
        "    return x\n"
    )
    found = {(m.operator, m.original) for m in generate("m.py", text)}
    assert {o for _, o in found} == {"+", "1", "-", "2", "3", "x > 0", ">", "0", "*", "x * y", "x"}
    assert ("condition", "x > 0") in found
