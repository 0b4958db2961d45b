"""`Rebuilt` tells a mutant whose function's live code is what it was before the mutated body ran
(a decorator rebuilt it from the file on disk) from one that runs; a wrapper (`functools.wraps`)
is looked through, or every mutant of a wrapped function would read as never run."""

from __future__ import annotations

import importlib.util
import os
import sys
import textwrap

from assay._assay_sandbox.mutation.rebuilt import Rebuilt
from assay._assay_sandbox.protocol import MutantSpec

SOURCE = textwrap.dedent(
    """
    import functools


    def wrapping(f):
        @functools.wraps(f)
        def wrapper(*args):
            return f(*args)

        return wrapper


    @wrapping
    def double(x):
        return x * 2


    def triple(x, k=3):
        return x * k
    """
)


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, os.path.realpath(path)


def _spec(text, function, original, replacement):
    start = text.index(original)
    first = text.count("\n", 0, text.index(f"def {function}")) + 1
    if text[: text.index(f"def {function}")].endswith("@wrapping\n"):
        first -= 1  # the decorator's line
    return MutantSpec(
        id="m#1", file="m.py", start=start, end=start + len(original), replacement=replacement,
        line=0, end_line=0, stmt_line=0, function=function, chain=[[function, first]],
    )  # fmt: skip


def _compiled(text, path):
    return compile(text, path, "exec", dont_inherit=True)


def test_a_wrapped_function_whose_code_changed_ran_the_mutant(tmp_path):
    module, path = _load(tmp_path, "wrapped_mod", SOURCE)
    try:
        m = _spec(SOURCE, "double", "x * 2", "x / 2")
        mutated = _compiled(SOURCE.replace("x * 2", "x / 2"), path)
        watch = Rebuilt(m, path, mutated)
        assert watch.before is not None
        exec(mutated, module.__dict__)
        assert watch.after(module) is None
        # the same body again: the function's code is what it was, the mutant never ran
        exec(_compiled(SOURCE, path), module.__dict__)
        assert "m.py::double is rebuilt from the file on disk" in (watch.after(module) or "")
    finally:
        sys.modules.pop("wrapped_mod", None)


def test_a_mutant_outside_its_functions_code_is_not_watched(tmp_path):
    # a default value is the module's code: the function's code stays as it was, and that says
    # nothing about whether the mutant ran
    module, path = _load(tmp_path, "default_mod", SOURCE)
    try:
        m = _spec(SOURCE, "triple", "k=3", "k=4")
        mutated = _compiled(SOURCE.replace("k=3", "k=4"), path)
        watch = Rebuilt(m, path, mutated)
        exec(mutated, module.__dict__)
        assert watch.after(module) is None
    finally:
        sys.modules.pop("default_mod", None)
