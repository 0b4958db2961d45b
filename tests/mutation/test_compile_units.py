"""A mutant inside a method compiles with that method alone, under its classes' headers, not with
the whole class: the code it gets is the code the method has in the whole module (private names
mangled, `super()`, qualified names, closures, comprehensions)."""

from __future__ import annotations

import textwrap

from assay._assay_sandbox.mutation.bytecode import (
    code_tree,
    compile_units,
    find_code,
    fingerprint,
    is_function_code,
)

SOURCE = textwrap.dedent(
    """
    import functools


    class Parser:
        def __init__(self, text):
            self.__text = text

        @property
        def text(self):
            return self.__text

        class _Inner:
            def __call__(self):
                return super().__call__

            def deep(self):
                def inner(y):
                    return y + __name__

                return inner

        @functools.lru_cache
        def cached(self, x=1):
            return [i for i in range(x)] + [lambda: self.__text]


    def top(a):
        return a
    """
)


def _unit_code(start: int, end: int, first: int, header: str):
    pad = "\n" * (first - 1 - header.count("\n")) + header
    return compile(pad + SOURCE[start:end], "m.py", "exec", dont_inherit=True)


def test_each_method_compiles_alone_to_the_code_it_has_in_its_class():
    whole = compile(SOURCE, "m.py", "exec", dont_inherit=True)
    units = compile_units(SOURCE)
    lines = SOURCE.splitlines()
    # innermost first: the line `return self.__text` is served by `text` alone, decorator included
    line = lines.index("        return self.__text") + 1
    offset = sum(len(x) + 1 for x in lines[: line - 1])
    start, end, first, header = next(u for u in units if u[0] <= offset < u[1])
    assert (first, header) == (lines.index("    @property") + 1, "class Parser:\n")
    assert SOURCE[start:end].count("def ") == 1
    checked = 0
    for unit in units:
        for code in code_tree(_unit_code(*unit)):
            if not is_function_code(code):
                continue
            original = find_code(whole, code.co_name, code.co_firstlineno)
            assert original is not None, code
            assert fingerprint(code) == fingerprint(original)
            assert code.co_qualname == original.co_qualname
            checked += 1
    assert checked > 9
    mangled = find_code(_unit_code(*next(u for u in units if u[2] == first)), "text", first)
    assert "_Parser__text" in mangled.co_names
