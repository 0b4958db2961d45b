"""One call of the function under test on one input, bounded, and what came of it (the
oracle's record).

Every call runs in a forked child (never in the worker itself) under a per-call timer and an
address-space limit. An outcome is what a test can assert: a return value written back as source
(`values.to_source`), the items of a returned iterator, the receiver's state after a method call, or
the exception's type and message. `differs` decides, the way the written assertion will, whether
another run (under a mutant) came out otherwise.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import itertools
import operator
import os
import random
import re
import resource
import signal
import sys
import time
import warnings
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from .argv import watched
from .values import Imports, Unwritable, importable, round_trips, to_source

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from types import FrameType, ModuleType
    from typing import Self

# a special method a test calls through its syntax: how the probe calls it (`render` writes it)
OPERATORS: dict[str, Callable[..., Any]] = {
    "__call__": lambda obj, *a, **k: obj(*a, **k),
    "__eq__": operator.eq,
    "__ne__": operator.ne,
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
    "__add__": operator.add,
    "__sub__": operator.sub,
    "__mul__": operator.mul,
    "__and__": operator.and_,
    "__or__": operator.or_,
    "__getitem__": operator.getitem,
    "__contains__": operator.contains,
    "__len__": len,
    "__str__": str,
    "__repr__": repr,
    "__iter__": iter,
}
MAX_ITEMS = 50  # a returned iterator is pinned by its items, when it has no more than this
MAX_MESSAGE = 80  # a raised exception is pinned by the start of its message
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


class CallTimeout(BaseException):
    """The call ran past its time (raised by the interval timer inside the call)."""


def _alarm(signum: int, frame: FrameType | None) -> NoReturn:
    raise CallTimeout()


@contextlib.contextmanager
def timer(seconds: float) -> Iterator[None]:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def limit_memory(extra_mb: int) -> None:
    """In a child: allow `extra_mb` of address space beyond what it already maps (never above the
    hard limit)."""
    try:
        with open("/proc/self/statm") as fh:
            mapped = int(fh.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped + extra_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def child_setup(extra_mb: int) -> None:
    """What every forked child does first: its own random state (a fork copies the parent's), a
    memory cap."""
    random.seed(os.urandom(16))
    limit_memory(extra_mb)


class Namespaces:
    """Namespaces for evaluating inputs and expected values: the job's import lines plus an
    input's own."""

    def __init__(self, base_lines: list[str]):
        self.base = Imports({f"\0{i}": line for i, line in enumerate(base_lines)})
        self._cache: dict[tuple, dict] = {}

    def get(self, extra: list[str] | tuple = ()) -> dict:
        key = tuple(extra)
        if key not in self._cache:
            ns = self.base.namespace()
            for line in key:
                exec(line, ns)  # noqa: S102 - import lines made by this package
            self._cache[key] = ns
        return self._cache[key]


def setup(inp: dict) -> tuple[str, ...]:
    """What must run before an input evaluates: its import lines, then the helper functions
    it uses."""
    return (*inp.get("imports", ()), *inp.get("helpers", ()))


def resolve(module: object, name: str) -> Any:
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


class Prepared(NamedTuple):
    receiver: Any  # None for a function
    call: Callable[[], Any]  # the call, with no argument
    args: list[Any]  # the positional arguments it passes (a list may change under the call)


def prepare(
    module: ModuleType, fn: dict, inp: dict, ns: dict, literal: dict | None = None
) -> Prepared:
    """The receiver, the call and its arguments; raises when the input does not evaluate.

    `literal`, when given, receives a plain literal source for each argument whose value has one
    (`args`, `kwargs`): a mined `'fix'.capitalize()` is written `'Fix'`."""
    # in the sandbox
    receiver = eval(inp["receiver"], ns) if inp.get("receiver") else None  # noqa: S307
    args = [eval(a, ns) for a in inp.get("args", [])]  # noqa: S307
    kwargs = {k: eval(v, ns) for k, v in inp.get("kwargs", {}).items()}  # noqa: S307
    if literal is not None:
        literal["args"] = [_literal(v, src) for v, src in zip(args, inp.get("args", []))]  # noqa: B905
        literal["kwargs"] = {k: _literal(v, inp["kwargs"][k]) for k, v in kwargs.items()}
    name = fn["name"].rsplit(".", 1)[-1]
    if fn["kind"] == "method" and name in OPERATORS:  # as `v < w` runs it, not `v.__lt__(w)`
        bound: Callable[..., Any] = functools.partial(OPERATORS[name], receiver)
    elif fn["kind"] == "method":
        bound = getattr(receiver, name)
    else:
        bound = resolve(module, fn["name"])
    return Prepared(receiver, lambda: bound(*args, **kwargs), args)


MUTABLE = (list, dict, set, bytearray)


def mutable_sources(args: list[Any]) -> dict[int, str]:
    """Source of each positional argument a call may change in place (a list, dict, set), before
    the call: the oracle pins its state after when it changed."""
    out = {}
    for i, value in enumerate(args):
        if isinstance(value, MUTABLE):
            with contextlib.suppress(Unwritable, Exception):
                out[i] = to_source(value, Imports())
    return out


def _literal(value: object, source: str) -> str:
    """`source`, or a plain literal for its value when it is not one already and one exists."""
    try:
        ast.literal_eval(source)
        return source
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    try:
        text = to_source(value, Imports())
        ast.literal_eval(text)
        return text if type(ast.literal_eval(text)) is type(value) else source
    except Exception:  # noqa: BLE001 - no literal form: keep what the test wrote
        return source


def _is_iterator(value: object) -> bool:
    return (
        hasattr(value, "__next__") and hasattr(value, "__iter__") and not hasattr(value, "__len__")
    )


def escape(text: str) -> str:
    """`re.escape` for the characters that need it only: the pattern stays readable in the test."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


def match_for(message: str) -> str:
    """The `match=` pattern a test uses for this message: the whole message anchored when it is one
    short line, else its stable start ('' = no match)."""
    cut = _ADDRESS.search(message)
    text = message[: cut.start()] if cut else message
    first = text.splitlines()[0] if text else ""
    if not first.strip():
        return ""
    whole = not cut and first == message and len(first) <= MAX_MESSAGE
    return "^" + escape(first[:MAX_MESSAGE]) + ("$" if whole else "")


class Ran(NamedTuple):
    value: Any
    exc: BaseException | None
    seconds: float
    # the exception came from iterating the returned iterator, not from the call
    iterating: bool = False
    warned: str = ""  # the first warning the call emitted (category: message)
    argv: bool = False  # it read the command line (`argv.watched`)


def run_call(call: Callable[[], Any], timeout: float) -> Ran:
    """The call, and a returned iterator's items (at most MAX_ITEMS + 1), with the warnings it
    emitted recorded (a project whose pytest turns warnings into errors fails such a test)."""
    start = time.perf_counter()
    iterating = False
    with warnings.catch_warnings(record=True) as seen, watched() as argv:
        warnings.simplefilter("always")
        try:
            with timer(timeout):
                value = call()
                if _is_iterator(value):
                    iterating = True
                    value = _Items(itertools.islice(value, MAX_ITEMS + 1))
            ran = Ran(value, None, time.perf_counter() - start)
        except BaseException as exc:  # noqa: BLE001 - what the call raised is its outcome
            ran = Ran(None, exc, time.perf_counter() - start, iterating)
    if seen:
        first = seen[0]
        ran = ran._replace(warned=f"{first.category.__name__}: {first.message}"[:160])
    return ran._replace(argv=argv[0])


class _Items(list):
    """The items of an iterator the function returned (asserted as `list(f(x)) == [...]`)."""


def record(
    ran: Ran,
    receiver: object,
    before: str | None,
    ns_lines: list[str],
    args: Sequence[Any] = (),
    args_before: dict[int, str] | None = None,
    warnings_fail: bool = False,
) -> dict:
    """The oracle's record of one outcome: what a test can assert about it, or why nothing
    can be. `args_before` (`mutable_sources`): an argument the call changed is pinned in its
    state after (`after`: position -> source). `warnings_fail`: the project's pytest turns warnings
    into errors, so a call that warns cannot be pinned."""
    value, exc = ran.value, ran.exc
    if warnings_fail and ran.warned and not isinstance(exc, CallTimeout):
        return {"k": "warning", "why": ran.warned}
    if ran.argv:  # what it does depends on how pytest was started
        return {"k": "argv"}
    if exc is not None:
        if isinstance(exc, CallTimeout):
            return {"k": "timeout"}
        if isinstance(exc, MemoryError):
            return {"k": "memory"}
        if isinstance(exc, RecursionError):
            return {"k": "recursion"}
        imports = Imports()
        try:
            name = importable(type(exc), imports)
        except Unwritable:
            return {
                "k": "unwritable",
                "why": f"raises {type(exc).__name__}, which a test cannot import",
            }
        try:
            message = str(exc)
        except Exception:  # noqa: BLE001 - a broken __str__: pin the type only
            message = ""
        out: dict[str, Any] = {
            "k": "raise",
            "type": name,
            "match": match_for(message),
            "imports": sorted(set(imports.lines.values())),
        }
        if ran.iterating:
            out["iterating"] = True  # the test must iterate: `list(f(x))` inside `pytest.raises`
        return out
    imports = Imports()
    kind = "iter" if isinstance(value, _Items) else "return"
    if kind == "iter" and len(value) > MAX_ITEMS:
        return {"k": "unwritable", "why": f"returns an iterator of more than {MAX_ITEMS} items"}
    plain = list(value) if kind == "iter" else value
    try:
        expr = to_source(plain, imports)
    except Unwritable as err:
        return {"k": "unwritable", "why": str(err)}
    state = None
    if receiver is not None:
        # a state that cannot be written is simply not asserted
        with contextlib.suppress(Unwritable):
            state = to_source(receiver, imports)
    changed: dict[str, str] = {}
    for i, src in (args_before or {}).items():
        with contextlib.suppress(Unwritable, Exception):
            if (now := to_source(args[i], imports)) != src:
                changed[str(i)] = now
    lines = sorted(set(imports.lines.values()))
    ns = Namespaces(ns_lines).get(tuple(lines))
    if not round_trips(expr, plain, ns):
        return {"k": "unwritable", "why": "its source does not rebuild an equal value"}
    out = {"k": kind, "expr": expr, "imports": lines}
    if state is not None and state != before and round_trips(state, receiver, ns):
        out["state"] = state
    after = {i: src for i, src in changed.items() if round_trips(src, args[int(i)], ns)}
    if after:
        out["after"] = after
    return out


def differs(
    expected: dict,
    ran: Ran,
    receiver: object,
    ns: dict,
    args: Sequence[Any] = (),
) -> bool:
    """Whether the test written from `expected` would fail on this outcome (`args`: the call's
    positional arguments, after it)."""
    value, exc = ran.value, ran.exc
    try:
        if expected["k"] == "raise":
            if (
                exc is None
                or isinstance(exc, CallTimeout)
                or (ran.iterating and not expected.get("iterating"))
            ):
                return True
            etype = eval(expected["type"], ns)  # noqa: S307 - a name recorded by `record`
            return not isinstance(exc, etype) or (
                bool(expected["match"]) and re.search(expected["match"], str(exc)) is None
            )
        if exc is not None:
            return True
        plain = list(value) if expected["k"] == "iter" else value
        if not bool(plain == eval(expected["expr"], ns)):  # noqa: S307
            return True
        if "state" in expected and not bool(receiver == eval(expected["state"], ns)):  # noqa: S307
            return True
        return any(
            not bool(args[int(i)] == eval(src, ns))  # noqa: S307
            for i, src in expected.get("after", {}).items()
        )
    except BaseException:  # noqa: BLE001 - comparing failed: the assertion would fail too
        return True


class LineTrace:
    """Lines of one file executed during a call (only frames of that file are traced)."""

    def __init__(self, path: str, on_call: Callable[[FrameType], None] | None = None):
        self.path = path
        self.lines: set[int] = set()
        self.on_call = on_call  # told of each call of a function of the file

    def _global(
        self, frame: FrameType, event: str, arg: object
    ) -> Callable[[FrameType, str, Any], Any] | None:
        if frame.f_code.co_filename != self.path:
            return None
        self.lines.add(frame.f_lineno)
        if self.on_call is not None:
            self.on_call(frame)
        return self._local

    def _local(
        self, frame: FrameType, event: str, arg: object
    ) -> Callable[[FrameType, str, Any], Any]:
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self._local

    def __enter__(self) -> Self:
        self.lines = set()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)
