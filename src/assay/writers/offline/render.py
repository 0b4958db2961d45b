"""The chosen inputs as a readable pytest file: grouped by function, parametrized where the
shape repeats, exact assertions, names that say what they pin, formatted by ruff or black when
one is installed. One test function's text: `function_text`."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from assay.writers.offline.blend import blend, is_family
from assay.writers.offline.combined import combined, split
from assay.writers.offline.function_text import MARKS, Writer, snake
from assay.writers.offline.gather import gather
from assay.writers.offline.groups import merged, shape
from assay.writers.offline.model import PinnedTest
from assay.writers.offline.probe import Kept


@dataclass
class Rendered:
    text: str
    tests: list[PinnedTest]
    # test function -> its cases, in row order
    rows: dict[str, list[Kept]] = field(default_factory=dict)
    dropped: list[tuple[Kept, str]] = field(default_factory=list)  # cases left out, and why
    # a test holding several cases as statements (`combined`) -> each case's statement count
    statements: dict[str, list[int]] = field(default_factory=dict)
    # a test shared by related functions (`blend`) -> those functions
    shared: dict[str, list[str]] = field(default_factory=dict)


def render(
    dotted: str,
    chosen: list[Kept],
    kinds: dict[str, str],
    params: dict[str, list[str]],
    first_party: set[str],
    order: list[str],
    defaults: dict[str, dict[str, str]] | None = None,
    guards: dict[str, str] | None = None,
    related: dict[str, set[str]] | None = None,
    defaulted: set[str] | None = None,
) -> Rendered:
    """The test file for `chosen` inputs of module `dotted`; `order`: the functions in
    source order; `defaults`: function -> parameter -> its default's source (calls that leave
    out different arguments then share a test); `guards`: mutant id -> the line it changes, for
    the messages of a test holding several cases (`combined`); `related`: function -> the
    functions it may share a test with (`blend.relations`); `defaulted`: the mutants of default
    values (a call that kills one keeps leaving its argument out, `groups.merged`)."""
    w = Writer(dotted, kinds, params)
    out = Rendered("", [])
    usable = []
    for k in chosen:
        own = [f"from {dotted} import {k.function.split('.')[0]}"]
        lines = own + [
            *k.input.get("imports", []),
            *k.outcome.get("imports", []),
            *k.input.get("helpers", []),
        ]
        if not w.imports.fits(lines):
            out.dropped.append((k, "its names clash with another test's imports"))
            continue
        w.imports.add(lines)
        usable.append(k)
    groups: dict[tuple, list[Kept]] = {}
    rank = {name: n for n, name in enumerate(order)}
    outcomes = ("return", "iter", "raise")
    for k in sorted(
        usable,
        key=lambda k: (
            rank.get(k.function, len(rank)),
            outcomes.index(k.outcome["k"]),
            shape(k)[1],
            -len(k.kills),
            k.size,
        ),
    ):
        groups.setdefault(shape(k), []).append(k)
    blocks = []
    tests = split(merged(list(groups.values()), params, defaults or {}, defaulted or set()))
    for group, statements in gather(blend(tests, kinds, params, related or {}), related or {}):
        if not statements:
            name, text, pinned = w.test(group)
        else:
            fns = [snake(f) for f in dict.fromkeys(k.function for k in group)]
            fn = "_and_".join(fns) if len(fns) <= 3 else f"{fns[0]}_and_{len(fns) - 1}_related"
            name, body, pinned, counts = combined(w, group, fn, guards or {})
            out.statements[name] = counts
            text = "\n".join([*MARKS, f"def {name}():", *(f"    {line}" for line in body)])
        blocks.append(text)
        out.tests += pinned
        out.rows[name] = group
        if is_family(group):
            out.shared[name] = list(dict.fromkeys(k.function for k in group))
    doc = (
        f'"""Characterization tests of {dotted}, written by assay\'s offline writer.\n\n'
        "They pin what the code does today, not what it should "
        "do: review them before relying on them as a\n"
        "specification. Each case kills mutants of the code that the other cases here do not"
        + _guesses(sum(not k.kills for k in usable))
        + '."""'
    )
    used = {n.id for n in ast.walk(ast.parse("\n\n".join(blocks))) if isinstance(n, ast.Name)}
    helpers = w.imports.helpers(used)
    used |= {n.id for h in helpers for n in ast.walk(ast.parse(h)) if isinstance(n, ast.Name)}
    out.text = (
        "\n\n\n".join([doc + "\n\n" + w.imports.header(first_party, used), *helpers, *blocks])
        + "\n"
    )
    return out


def formatted(text: str, root: Path) -> str:
    """The text through `ruff format` or `black` (the project's settings apply), else as it is."""
    here = Path(sys.executable).parent
    for tool, args in (
        ("ruff", ["format", "--stdin-filename", "test_generated.py", "-"]),
        ("black", ["-q", "-"]),
    ):
        exe = shutil.which(tool) or (str(here / tool) if (here / tool).exists() else None)
        if exe is None:
            continue
        try:
            proc = subprocess.run(
                [exe, *args], input=text, capture_output=True, text=True, cwd=root, timeout=30
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout
    return text


def _guesses(n: int) -> str:
    """Cases kept for mutants the probe never ran (`cover.reach`) kill nothing it saw: the file's
    docstring does not claim they do."""
    if not n:
        return ""
    return f",\nor ({n} case{'s' * (n != 1)}) runs code whose mutants the writer had no time to try"
