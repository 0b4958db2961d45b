"""An object a test builds only to hand it on to the project is the test's input, not something it
receives: structlog 26.1.0's `test_base.py` was rejected at gate 4 for `processors.py` at 0%, five
mutants of `KeyValueRenderer.__init__`, a renderer `test_binds_independently` builds as a processor
of the logger it binds and never renders with. Its state (after `__init__`, and inside every logger
holding it) now counts by its type alone; what the project computes with it still counts."""

from __future__ import annotations

import textwrap

import pytest

from assay._assay_sandbox.mutation.through import passed_through
from tests.conftest import verify_json


def spans_of(source: str) -> set[tuple[int, str]]:
    """The passed-through calls of `source`: (line, text)."""
    source = textwrap.dedent(source)
    lines = source.splitlines()
    out = set()
    for line, col, end_line, end_col in passed_through(source):
        assert line == end_line
        out.add((line, lines[line - 1][col:end_col]))
    return out


def test_a_call_only_handed_on_to_another_call_is_passed_through():
    assert spans_of(
        """
        def test_bind():
            b = build(processors=[Renderer(sort_keys=True)], ctx={"a": Ctx()})
            keep = Keeper(1)
            b.add(keep)
            run(*(Part(),))
        """
    ) == {(3, "Renderer(sort_keys=True)"), (3, "Ctx()"), (4, "Keeper(1)"), (6, "Part()")}


def test_a_call_whose_value_the_test_reads_is_not_passed_through():
    assert spans_of(
        """
        def test_reads(self):
            r = Renderer(sort_keys=True)
            assert r.sort_keys
            assert repr(Renderer()) == "Renderer()"
            self.assertEqual(make(Renderer()), 1)
            mock.assert_called_with(Renderer())
            two = Renderer()
            two = Renderer()
            use(two)
            Renderer()(event)
            assert Renderer() == Renderer()
        """
    ) == {(6, "Renderer()")}  # handed to `make`, whose value the test receives


FILES = {
    "logs/__init__.py": "",
    "logs/render.py": """
        class KeyValueRenderer:
            def __init__(self, sort_keys=False, drop_missing=False):
                self.sort_keys = sort_keys
                self.drop_missing = drop_missing
                self.separator = " "
                self.equals = "="
                self.width = 80
                self.prefix = ""
                self.indent = 2

            def __call__(self, event):
                keys = sorted(event) if self.sort_keys else list(event)
                return self.separator.join(k + self.equals + repr(event[k]) for k in keys)
        """,
    "logs/base.py": """
        class Bound:
            def __init__(self, processors, context):
                self.processors = processors
                self.context = context

            def bind(self, **values):
                if not values:
                    return self
                return Bound(self.processors, {**self.context, **values})

            def size(self):
                return len(self.context) + 0
        """,
    "tests/__init__.py": "",
    "tests/test_base.py": """
        from logs.base import Bound
        from logs.render import KeyValueRenderer


        def build(processors=None):
            return Bound(processors or [], {})


        def test_binds_independently():
            b = build(processors=[KeyValueRenderer(sort_keys=True)])
            b = b.bind(x=42)
            b1 = b.bind(foo="bar")
            b2 = b.bind(foo="qux")
            assert b.context != b1.context != b2.context
            assert b.bind() is b
            assert b1.size() == 2
        """,
}


@pytest.mark.slow  # gate 4 end to end
def test_a_renderer_built_only_to_hand_on_does_not_make_its_module_accountable(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "tests/test_base.py", tmp_path / "r.json")
    gate = next(g for g in f["gates"] if g["gate"] == "mutation")
    assert f["verdict"] == "accepted", (gate, shown)
    # the renderer's mutants changed nothing the test receives: listed apart, not counted
    unexercised = {m["line"] for m in gate["unexercised_mutants"]}
    assert {6, 7, 8, 9, 10} <= unexercised, gate  # separator, equals, width, prefix, indent
    assert gate["survived"] == 0, gate
