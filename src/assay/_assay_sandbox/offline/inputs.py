"""Candidate inputs of one function, as Python source: mined calls first, then variants of them.

Each parameter gets a list of candidate sources: what the project's tests and doctests passed there,
values built from its type hint (boundary values, the literals mined from the tests and the code and
their neighbours) or, untyped, from how the function uses it (`shapes`), its default. Inputs vary
one parameter at a time around each mined call (or around the first choices), then random
combinations, then - when hypothesis is importable - `st.from_type` draws. Runs in a forked child:
building a receiver or a hypothesis strategy may run the user's code.
"""

from __future__ import annotations

import ast
import inspect
import random
import time
import typing
import warnings
from typing import TYPE_CHECKING, Any

from .calls import resolve
from .shapes import shaped
from .values import UNTYPED, Imports, Unwritable, importable, to_source, values_for

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import ModuleType

MAX_CHOICES = 12


class Signature:
    """A function's parameters as the writer uses them: positional names, keyword-only
    names, defaults."""

    def __init__(self, obj: Callable[..., Any], drop_first: bool) -> None:
        sig = inspect.signature(obj)
        params = list(sig.parameters.values())[1 if drop_first else 0 :]
        self.sig = sig.replace(parameters=params)
        self.params = params
        self.positional = [
            p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        self.keyword = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        try:
            self.hints = typing.get_type_hints(obj)
        except Exception:  # noqa: BLE001 - unresolvable annotations: no hints
            self.hints = {}

    def named(self, inp: dict) -> dict[str, str] | None:
        """{param: source} of an input, or None when it does not bind (or uses *args/**kwargs)."""
        try:
            bound = self.sig.bind(*inp.get("args", []), **inp.get("kwargs", {}))
        except TypeError:
            return None
        if any(
            p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name in bound.arguments
            for p in self.params
        ):
            return None
        return dict(bound.arguments)

    def build(
        self, named: dict[str, str], defaults: dict[str, str]
    ) -> tuple[list[str], dict[str, str]]:
        """(args, kwargs) sources; trailing positional arguments equal to their default are
        left out."""
        args = [named.get(n, defaults.get(n, "")) for n in self.positional]
        while args and args[-1] == defaults.get(self.positional[len(args) - 1]):
            args.pop()
        if "" in args:
            raise Unwritable("a positional parameter has no value")
        kwargs = {n: named[n] for n in self.keyword if n in named and named[n] != defaults.get(n)}
        return args, kwargs


def _sources(values: Iterable[object], imports: Imports, limit: int = MAX_CHOICES) -> list[str]:
    out = []
    for v in values:
        try:
            src = to_source(v, imports)
        except Unwritable:
            continue
        if src not in out:
            out.append(src)
        if len(out) >= limit:
            break
    return out


def _target(module: ModuleType, fn: dict) -> tuple[type | None, Any, Signature]:
    """(class or None, function object, Signature) of a function spec."""
    if fn["kind"] == "method":
        cls_name, meth = fn["name"].rsplit(".", 1)
        cls = resolve(module, cls_name)
        obj = inspect.getattr_static(cls, meth)
        return cls, obj, Signature(obj, drop_first=True)
    obj = resolve(module, fn["name"])
    return None, obj, Signature(obj, drop_first=False)


def own_literals(
    module: ModuleType, obj: Callable[..., Any], pool: dict[str, list]
) -> dict[str, list]:
    """The pool with the function's own numbers and strings first: its literals and the module
    constants it reads (`amount >= LIMIT`). Its boundaries are where its mutants are; the
    module-wide pool, cut to a few values per parameter, may not reach them."""
    try:
        tree = ast.parse(inspect.getsource(getattr(obj, "__func__", obj)).strip())
    except (OSError, TypeError, SyntaxError, IndentationError):
        return pool
    own: dict[str, list] = {"int": [], "float": [], "str": []}
    for node in ast.walk(tree):
        value = (
            node.value
            if isinstance(node, ast.Constant)
            else getattr(module, node.id, None)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            else None
        )
        if isinstance(value, bool) or value is None:
            continue
        kind = {int: "int", float: "float", str: "str"}.get(type(value))
        if kind is not None and (not isinstance(value, str) or 0 < len(value) <= 40):
            own[kind].append(value)
    return {k: list(dict.fromkeys([*own.get(k, []), *pool.get(k, [])])) for k in {*pool, *own}}


def drawn(
    module: ModuleType, fn: dict, pool: dict[str, list], examples: int, until: float
) -> list[dict]:
    """Inputs drawn by hypothesis (`st.from_type`, `st.builds` for a receiver) until `until`; none
    without it."""
    cls, obj, sig = _target(module, fn)
    out = []
    for named, receiver, extra in _hypothesis(obj, cls, sig, pool, examples, until):
        try:
            args, kwargs = sig.build(named, {})
        except Unwritable:
            continue
        out.append(
            {
                "args": args,
                "kwargs": kwargs,
                "receiver": receiver,
                "origin": "hypothesis",
                "imports": sorted(extra),
                "helpers": [],
            }
        )
    return out


def candidates(
    module: ModuleType, fn: dict, pool: dict[str, list], max_inputs: int, seed: int
) -> dict:
    """{"params": [...], "defaults": {param: source}, "inputs": [...]}: the function's candidate
    inputs, mined ones first."""
    cls, obj, sig = _target(module, fn)
    pool = own_literals(module, obj, pool)
    imports = Imports()
    mined = [dict(i, origin=i.get("origin", "tests")) for i in fn["inputs"]]
    # what a person wrote (tests, doctests) seeds the variants; what callers passed (`callgraph`)
    # is tried as it came, and leaves the parameters' boundary values their place
    written = [i for i in mined if i["origin"] != "callgraph"]
    # a variant may reuse any mined argument: it carries what every mined input needs
    mined_imports = sorted({line for i in mined for line in i.get("imports", [])})
    mined_helpers = sorted({h for i in mined for h in i.get("helpers", [])})
    defaults: dict[str, str] = {}
    choices: dict[str, list[str]] = {}
    for p in sig.params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        from_mined = [named[p.name] for i in written if (named := sig.named(i)) and p.name in named]
        values: list = []
        if p.default is not p.empty:
            values.append(p.default)
            for src in _sources([p.default], imports, 1):
                defaults[p.name] = src
        hint = sig.hints.get(p.name)
        typed = values_for(hint, pool) if hint is not None else []
        if not typed and hint is None:  # untyped: what its uses say it is
            typed = shaped(obj, p.name, pool)
        if not typed and p.default is not p.empty and p.default is not None:
            typed = values_for(type(p.default), pool)
        if not typed and hint is None and not from_mined and p.default is p.empty:
            typed = UNTYPED
        choices[p.name] = list(
            dict.fromkeys([*from_mined[:6], *_sources(values + typed, imports)])
        )[:MAX_CHOICES]
    receivers = list(fn.get("receivers", []))
    if cls is not None:
        receivers += [r for i in mined if (r := i.get("receiver"))]
        receivers += _sources(values_for(cls, pool), imports, 6)
        if not receivers:  # built from its constructor's hints and uses (`Lexer()`, `Wait(1)`)
            receivers += _built(cls, pool, imports)
        receivers = list(dict.fromkeys(receivers))[:MAX_CHOICES]
    lines = sorted(set(imports.lines.values()))
    out: list[dict] = []
    seen: set[str] = set()

    def add(named: dict[str, str], receiver: str | None, origin: str) -> None:
        if len(out) >= max_inputs or (cls is not None and receiver is None):
            return
        try:
            args, kwargs = sig.build(named, defaults)
        except Unwritable:
            return
        key = repr((receiver, args, sorted(kwargs.items())))
        if key not in seen:
            seen.add(key)
            out.append(
                {
                    "args": args,
                    "kwargs": kwargs,
                    "receiver": receiver,
                    "origin": origin,
                    "imports": sorted(set(lines) | set(mined_imports)),
                    "helpers": mined_helpers,
                }
            )

    for inp in mined:  # as mined, even when it does not bind (the call itself is then the outcome)
        key = repr(
            (inp.get("receiver"), inp.get("args", []), sorted(inp.get("kwargs", {}).items()))
        )
        if key not in seen and len(out) < max_inputs:
            seen.add(key)
            out.append({**inp, "imports": sorted(set(inp.get("imports", [])))})
    names = list(choices)
    bases = [(n, i.get("receiver")) for i in written if (n := sig.named(i)) is not None][:3]
    if not bases:
        bases = [({n: c[0] for n, c in choices.items() if c}, receivers[0] if receivers else None)]
    regex = pool.get("regex", [])
    for named, receiver in bases[:1]:  # strings that reach the module's data, where a string goes
        for name in names:
            if regex and _stringy(choices[name]):
                for text in regex:
                    add({**named, name: repr(text)}, receiver, "regex")
    for named, receiver in bases:  # one factor at a time around each base
        for name in names:
            for src in choices[name]:
                add({**named, name: src}, receiver, "variant")
        for r in receivers:
            add(named, r, "variant")
    rng = random.Random(seed)
    for _ in range(max(0, (max_inputs - len(out)) // 3)):
        named = {n: rng.choice(c) for n, c in choices.items() if c}
        add(named, rng.choice(receivers) if receivers else None, "combination")
    return {"params": [*sig.positional, *sig.keyword], "defaults": defaults, "inputs": out}


def _built(cls: type, pool: dict[str, list], imports: Imports) -> list[str]:
    """`Cls(...)` with each required constructor argument from its type hint or, untyped, from
    how `__init__` uses it (`shapes`): the first values, then the next ones; `Cls()` when it
    needs none."""
    try:
        init = Signature(cls.__init__, drop_first=True)  # type: ignore[misc]
        name = importable(cls, imports)
    except (TypeError, ValueError, Unwritable):
        return []
    needed = [
        p
        for p in init.params
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    choices = []
    for p in needed:
        hint = init.hints.get(p.name)
        values = values_for(hint, pool) if hint is not None else []
        values = values or shaped(cls.__init__, p.name, pool)  # type: ignore[misc]
        sources = _sources(values, imports, 3)
        if not sources:
            return []
        choices.append((p, sources))
    out = []
    for n in range(3):
        args = [
            (f"{p.name}=" if p.kind is p.KEYWORD_ONLY else "") + c[min(n, len(c) - 1)]
            for p, c in choices
        ]
        out.append(f"{name}({', '.join(args)})")
    return list(dict.fromkeys(out))


def _stringy(sources: list[str]) -> bool:
    """Whether a parameter takes strings: one of its candidate sources is a string literal."""
    for src in sources:
        try:
            if isinstance(ast.literal_eval(src), str):
                return True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False


class _Enough(Exception):
    """Time is up for drawing examples."""


def _hypothesis(
    obj: object,
    cls: type | None,
    sig: Signature,
    pool: dict[str, list],
    examples: int,
    until: float,
) -> list[tuple[dict[str, str], str | None, list[str]]]:
    """(named sources, receiver source, imports) drawn by hypothesis from the type hints; none
    without it."""
    if examples <= 0 or time.monotonic() >= until:
        return []
    try:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import strategies as st
    except ImportError:
        return []
    strategies = {}
    for p in sig.params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        hint = sig.hints.get(p.name)
        if hint is None:
            if p.default is p.empty:
                return []
            continue
        strategy = st.from_type(hint)
        mined = pool.get(getattr(hint, "__name__", ""), [])
        strategies[p.name] = st.one_of(st.sampled_from(mined), strategy) if mined else strategy
    if cls is not None:
        strategies["\0self"] = st.from_type(cls)
    drawn: list[dict] = []

    @settings(
        max_examples=examples,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.fixed_dictionaries(strategies))
    def collect(kw: dict[str, Any]) -> None:
        drawn.append(kw)
        if time.monotonic() >= until:
            raise _Enough()

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collect()
    # time is up, or a type hypothesis cannot build: what was drawn so far
    except Exception:  # noqa: BLE001
        pass
    out = []
    for kw in drawn:
        imports = Imports()
        try:
            named = {k: to_source(v, imports) for k, v in kw.items() if k != "\0self"}
            receiver = to_source(kw["\0self"], imports) if "\0self" in kw else None
        except Unwritable:
            continue
        out.append((named, receiver, sorted(set(imports.lines.values()))))
    return out
