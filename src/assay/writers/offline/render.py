"""The chosen inputs as a readable pytest file: grouped by function, parametrized where the
shape repeats, exact assertions, names that say what they pin, formatted by ruff or black when
one is installed."""

from __future__ import annotations

import ast
import keyword
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from assay.writers.offline.blend import blend, family_name, is_family
from assay.writers.offline.combined import combined, split
from assay.writers.offline.gather import gather
from assay.writers.offline.groups import merged, shape
from assay.writers.offline.imports import FileImports
from assay.writers.offline.model import PinnedTest
from assay.writers.offline.probe import Kept

MARKS = ("@pytest.mark.assay_generated", "@pytest.mark.characterization")
# special methods written with their syntax (the probe runs them so: `calls.OPERATORS`)
BINARY = {
    "__eq__": "==",
    "__ne__": "!=",
    "__lt__": "<",
    "__le__": "<=",
    "__gt__": ">",
    "__ge__": ">=",
    "__add__": "+",
    "__sub__": "-",
    "__mul__": "*",
    "__and__": "&",
    "__or__": "|",
}
UNARY = {"__len__": "len", "__str__": "str", "__repr__": "repr", "__iter__": "iter"}
MAX_ARG_SLUG = 12  # an argument shows in a test's name only when this short
MAX_VALUE_SLUG = 16


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


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace(".", "_").lower()


def slug(source: str) -> str:
    text = re.sub(r"-(?=\d)", "minus ", source)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def value_slug(expr: str) -> str:
    """A returned value in a test's name: its slug, and the words for an empty one (`''` gave
    a name ending in a bare `_returns`, `b''` one ending in `_returns_b`)."""
    try:
        value = ast.literal_eval(expr) if len(expr) <= 12 else None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = None
    if isinstance(value, str | bytes | tuple | list | dict | set | frozenset) and not value:
        kind = {"str": "string", "frozenset": "set"}.get(type(value).__name__, type(value).__name__)
        return f"empty_{kind}"
    return slug(expr)


def _pattern(p: str) -> str:
    """A `match=` pattern as a string literal: raw when it holds backslashes, double-quoted where it
    can be."""
    if '"' in p or "\n" in p or not p.isprintable():
        return repr(p)
    if "\\" in p:
        return f'r"{p}"' if not p.endswith("\\") else repr(p)
    return f'"{p}"'


class _Writer:
    def __init__(self, dotted: str, kinds: dict[str, str], params: dict[str, list[str]]):
        self.dotted, self.kinds, self.params = dotted, kinds, params
        self.names: set[str] = set()
        self.imports = FileImports()
        self.imports.add(["import pytest"])

    def unique(self, name: str) -> str:
        name = re.sub(r"_+", "_", name).strip("_")
        base, n = name, 2
        while name in self.names or keyword.iskeyword(name):
            name, n = f"{base}_{n}", n + 1
        self.names.add(name)
        return name

    def callee(self, fn: str, receiver: str) -> str:
        kind = self.kinds[fn]
        if kind == "method":
            method = fn.rsplit(".", 1)[1]
            return receiver if method == "__call__" else f"{receiver}.{method}"
        return fn

    def columns(self, k: Kept) -> list[str]:
        params = self.params.get(k.function, [])
        i = k.input
        cols = [snake(k.function.split(".")[0])] if i.get("receiver") is not None else []
        cols += [params[n] if n < len(params) else f"arg{n}" for n in range(len(i.get("args", [])))]
        cols += list(sorted(i.get("kwargs", {})))
        o = k.outcome
        cols += (
            ["message"]
            if o["k"] == "raise"
            else ([] if o.get("expr") == "None" and "state" in o else ["expected"])
        )
        cols += ["expected_state"] if "state" in o else []
        taken = set(self.imports.names)
        return [c + "_" if c in taken or keyword.iskeyword(c) else c for c in cols]

    def call(self, k: Kept, recv: str, args: list[str], kwargs: dict[str, str]) -> str:
        parts = [*args, *(f"{n}={v}" for n, v in kwargs.items())]
        method = k.function.rsplit(".", 1)[-1]
        if self.kinds.get(k.function) == "method" and not kwargs:
            if method in BINARY and len(args) == 1:
                return f"({recv} {BINARY[method]} {args[0]})"
            if method == "__getitem__" and len(args) == 1:
                return f"{recv}[{args[0]}]"
            if method == "__contains__" and len(args) == 1:
                return f"({args[0]} in {recv})"
            if method in UNARY and not args:
                return f"{UNARY[method]}({recv})"
        return f"{self.callee(k.function, recv)}({', '.join(parts)})"

    def bound_args(self, k: Kept) -> tuple[list[str], list[str]]:
        """(the call's arguments, the lines binding those the call changes to a name of their
        own: the test asserts their state after)."""
        args = list(k.input.get("args", []))
        params = self.params.get(k.function, [])
        lines = []
        for n in k.outcome.get("after", {}):
            at = int(n)
            name = params[at] if at < len(params) else f"arg{at}"
            if name in self.imports.names or keyword.iskeyword(name) or name == "pytest":
                name += "_"
            lines.append(f"{name} = {args[at]}")
            args[at] = name
        return args, lines

    def body(
        self, k: Kept, recv: str, call: str, expected: str, state: str, message: str
    ) -> list[str]:
        o = k.outcome
        if o["k"] == "raise":
            match = f", match={message}" if o["match"] else ""
            inside = f"list({call})" if o.get("iterating") else call
            return [f"with pytest.raises({o['type']}{match}):", f"    {inside}"]
        lines = []
        if o["k"] == "iter":
            lines.append(f"assert list({call}) == {expected}")
        elif o.get("expr") == "None" and ("state" in o or "after" in o):
            lines.append(call)
        elif expected in ("None", "True", "False"):
            lines.append(f"assert {call} is {expected}")
        else:
            lines.append(f"assert {call} == {expected}")
        if "state" in o:
            lines.append(f"assert {recv} == {state}")
        return lines

    def pinned(self, k: Kept) -> str:
        o = k.outcome
        if o["k"] == "raise":
            return f"raises {o['type']}" + (f" matching {o['match']}" if o["match"] else "")
        what = f"list(...) == {o['expr']}" if o["k"] == "iter" else f"== {o['expr']}"
        what += "".join(
            f"; then argument {int(i) + 1} == {v}" for i, v in o.get("after", {}).items()
        )
        return what + (f"; then {o['state']}" if "state" in o else "")

    def name(self, k: Kept, single: bool) -> str:
        fs, o = snake(k.function), k.outcome
        parts = [slug(a) for a in [*k.input.get("args", []), *k.input.get("kwargs", {}).values()]]
        short = single and 0 < len(parts) <= 3 and all(0 < len(p) <= MAX_ARG_SLUG for p in parts)
        args = "of_" + "_and_".join(parts) if short else ""
        if o["k"] == "raise":
            what = f"raises_{snake(o['type'].split('.')[-1])}"
        elif "state" in o and o.get("expr") == "None":
            what = f"updates_{snake(k.function.split('.')[0])}"
        elif "after" in o and o.get("expr") == "None":
            what = "updates_its_argument"
        else:
            value = value_slug(o["expr"])
            what = (
                ("returns_" + value)
                if single and 0 < len(value) <= MAX_VALUE_SLUG
                else ("yields" if o["k"] == "iter" else "returns" if single else "return_values")
            )
        return self.unique(f"test_{fs}_{args}_{what}" if args else f"test_{fs}_{what}")

    def statements(self, k: Kept, messages: list[str] | None = None) -> tuple[str, list[str]]:
        """(the call as written, the statements of a test of case `k` alone: its receiver and
        changed arguments bound, the call, its checks - the `assert`s with `messages`, in order,
        when given: `combined.messages`)."""
        i, o = k.input, k.outcome
        recv = ""
        if i.get("receiver") is not None:
            recv = snake(k.function.split(".")[0])
            if recv == k.function.split(".")[0]:  # a lowercase class: not its own name
                recv += "_obj"
        args, bound = self.bound_args(k)
        call = self.call(k, recv, args, i.get("kwargs", {}))
        lines = [f"{recv} = {i['receiver']}"] if recv else []
        lines += bound
        lines += self.body(
            k, recv, call, o.get("expr", ""), o.get("state", ""), _pattern(o.get("match", ""))
        )
        lines += [f"assert {args[int(n)]} == {v}" for n, v in o.get("after", {}).items()]
        if messages:
            said = iter(messages)
            lines = [
                f"{line}, {next(said, messages[-1])}" if line.startswith("assert ") else line
                for line in lines
            ]
        return call, lines

    def pin(self, name: str, k: Kept, call: str) -> PinnedTest:
        return PinnedTest(
            name,
            k.function,
            call,
            self.pinned(k),
            sorted(k.kills),
            k.input.get("origin", ""),
            sorted(k.reaches),
        )

    def test(self, group: list[Kept]) -> tuple[str, str, list[PinnedTest]]:
        first = group[0]
        i = first.input
        if len(group) == 1:
            name = self.name(first, single=True)
            call, lines = self.statements(first)
            text = "\n".join([*MARKS, f"def {name}():", *(f"    {line}" for line in lines)])
            return name, text, [self.pin(name, first, call)]
        family = is_family(group)  # rows of several functions: the function is a column
        name = self.unique(family_name(group)) if family else self.name(first, single=False)
        cols = self.columns(first)
        if family:
            taken = set(self.imports.names) | set(cols)
            cols = ["function_" if "function" in taken else "function", *cols]
        n_args = len(i.get("args", []))
        has_recv = i.get("receiver") is not None
        skip = int(has_recv) + int(family)
        arg_cols = cols[skip : skip + n_args]
        kw_names = list(sorted(i.get("kwargs", {})))
        kw_cols = cols[skip + n_args : skip + n_args + len(kw_names)]
        result_cols = cols[skip + n_args + len(kw_names) :]
        recv = cols[0] if has_recv else ""
        call = self.call(first, recv, arg_cols, dict(zip(kw_names, kw_cols, strict=True)))
        if family:
            parts = [*arg_cols, *(f"{n}={c}" for n, c in zip(kw_names, kw_cols, strict=True))]
            call = f"{cols[0]}({', '.join(parts)})"
        col = dict(zip(["expected", "expected_state", "message"], ["", "", ""], strict=True))
        for c in result_cols:
            col[c.rstrip("_")] = c
        lines = self.body(first, recv, call, col["expected"], col["expected_state"], col["message"])
        rows, pinned = [], []
        for n, k in enumerate(group):
            o = k.outcome
            cells = [k.function] if family else []
            cells += ([k.input["receiver"]] if has_recv else []) + list(k.input.get("args", []))
            cells += [k.input["kwargs"][kw] for kw in kw_names]
            if o["k"] == "raise":
                cells.append(_pattern(o["match"]))
            elif not (o.get("expr") == "None" and "state" in o):
                cells.append(o["expr"])
            if "state" in o:
                cells.append(o["state"])
            rows.append(f"        ({', '.join(cells)}),")
            shown = self.call(
                k, k.input.get("receiver") or "", k.input.get("args", []), k.input.get("kwargs", {})
            )
            pinned.append(
                PinnedTest(
                    f"{name}[{n}]",
                    k.function,
                    shown,
                    self.pinned(k),
                    sorted(k.kills),
                    k.input.get("origin", ""),
                    sorted(k.reaches),
                )
            )
        names = ", ".join(f'"{c}"' for c in cols)
        text = "\n".join(
            [
                *MARKS,
                "@pytest.mark.parametrize(",
                f"    ({names}),",
                "    [",
                *rows,
                "    ],",
                ")",
                f"def {name}({', '.join(cols)}):",
                *(f"    {line}" for line in lines),
            ]
        )
        return name, text, pinned


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
    w = _Writer(dotted, kinds, params)
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
