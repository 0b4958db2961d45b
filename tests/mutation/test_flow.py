"""The static reading of a module body that bounds what an import-time mutant changes
(`flow.Body`)."""

from __future__ import annotations

import textwrap

from assay._assay_sandbox.mutation.flow import Body

SOURCE = textwrap.dedent("""\
    import random
    TABLE = [1, 2, 3]
    SENTINEL = object()
    rng = random.Random().random
    def total():
        return sum(TABLE)
    TOTAL = total()
    COPY = list(TABLE)
    OTHER = len("abc")
    def fill(target, n):
        data = bytearray(n)
        data[0] = 1
        target[0] = data
        global SHARED
        SHARED = data
        SHARED[1] = 2
        return data
    fill.__doc__ = "fills"
    random.seed.__doc__ = "no"
    """)


def test_names_depending_on_the_mutated_statement_directly_or_through_a_call():
    body = Body(SOURCE)
    hot = body.influenced(2)
    assert {"TABLE", "TOTAL", "COPY", "total"} <= hot and not {"SENTINEL", "rng", "OTHER"} & hot
    everything = {"TABLE", "SENTINEL", "rng", "TOTAL", "COPY", "OTHER", "SHARED"}
    # SHARED is bound by no top-level statement (a `global` in a function): kept whatever it
    # depends on
    assert body.mutant_changed(everything, 2) == {"TABLE", "TOTAL", "COPY", "SHARED"}
    assert body.mutant_changed(everything, 9) == {"OTHER", "SHARED"}


def test_only_writes_into_objects_the_run_built_are_safe():
    body = Body(SOURCE)
    fill = next(first for first, node in body.functions.items() if node.name == "fill")
    assert body.safe_store(True, fill, 12)  # data[0] = 1: a local bytearray
    assert not body.safe_store(True, fill, 13)  # target[0] = ...: a parameter's object
    assert not body.safe_store(True, fill, 16)  # SHARED[1] = ...: a global
    assert body.safe_store(False, 1, 18)  # fill.__doc__ = ...: a function this body defined
    assert not body.safe_store(False, 1, 19)  # random.seed.__doc__ = ...: another module's object


def test_a_function_called_at_import_may_change_in_place_what_it_reads():
    # inflection: `_irregular("person", "people")` at import inserts into PLURALS, bound by
    # another statement
    body = Body(
        textwrap.dedent("""\
        PLURALS = []
        MARK = object()
        def _helper(rule):
            PLURALS.insert(0, rule)
        def _irregular(word):
            _helper(word + "s")
        _irregular("person")
        """)
    )
    assert body.mutant_changed({"PLURALS", "MARK"}, 6) == {"PLURALS"}  # in the function
    assert body.mutant_changed({"PLURALS", "MARK"}, 7) == {"PLURALS"}  # in the call's argument
