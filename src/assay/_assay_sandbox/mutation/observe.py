"""What a test receives from the project: a digest of every value, exception and argument state
that crosses from a target file's code back into the test's code (gate 4's accountability).

A call is an observation point when a frame of a target file is entered from a frame that is not
one (the test, its conftest and helpers, pytest), unless other code the project called makes it
(target code -> the standard library -> target code): its return value or each value it yields, the
exception it raises (type and text; its type alone where the test's code catches it by type and
reads nothing of it, its type and the attributes the test reads where it reads only those,
`taken`), and the state of its arguments (`self` included) after it.
When target code calls back into a test file (a callback the test passed), the arguments it passes
are observed too. pytest setting up the package a test sits in (`Package.setup` looks names up on
the project's `__init__.py`) is not the test receiving anything. What target code calls inside
target code is not seen: only what comes out of it can make a test pass or fail. What a call of the
test's code builds only to hand it on to another call (`through`: a renderer made as a logger's
processor) is the test's input: its state counts by its type alone, there and wherever it turns up
later. Each observation point hashes apart, and a test's points, in order, hash to one digest; a
mutant whose digests equal the original's for every test of the file changed nothing those tests
could see. The points' own hashes are kept too (up to `observations.MAX_POINTS`): a point whose
value differs between two runs of the original (`datetime.now()` in the input) is then left out, and
the test judged on the rest (`exercised.settle`).

`sys.settrace` carries it: its global function runs once per new frame and returns a local tracer
(for `return` and `exception`, lines off) only for observation points, so callees run untraced.
Fingerprints are bounded (depth, items, nodes) and never raise: an object is its type and its
attributes, a container its items, floats their repr, anything else its repr without addresses
(and a text without the addresses of default reprs it holds).
"""

from __future__ import annotations

import dis
import hashlib
import os
import sys
import threading
import types
from collections.abc import Callable, Generator
from typing import Any

import pytest

from .fingerprint import SCALARS, Walk, state_of
from .observations import json_line
from .taken import (
    Caught,
    arguments,
    attribute_after_call,
    caught_lines,
    read_by_attribute,
    taken_of,
)
from .through import Span, passed_through, through_offsets

RETURN_NODES = 2000  # values walked for what a call returns or raises
ARG_NODES = 300  # ... for the state of its arguments after it
# a frame left by one of these returned (or yielded); left elsewhere, an exception unwound it
LEAVING = frozenset(
    dis.opmap[name]
    for name in ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE", "RETURN_GENERATOR")
    if name in dis.opmap
)
OTHER, TARGET, TESTS = 0, 1, 2  # sides of a file: the targets, the test files, the rest
CALLERS = 8  # frames searched out from a call for the test's catcher of what it raises


class Observer:
    """Records one test's observations (set-up and call) into one digest."""

    def __init__(self, plugin: Observe) -> None:
        self.plugin = plugin
        self.points: list[str] = []  # each point's hash, in order
        # id -> an object the test built only to hand it on (kept alive: its id stays its own)
        self.through: dict[int, Any] = {}

    def side(self, code: types.CodeType) -> int:
        name = code.co_filename
        side = self.plugin.known.get(name)
        if side is None:
            side = self.plugin.known[name] = self.plugin.side_of(name)
        return side

    def trace(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        """Global tracer: a local one only for a target frame entered from outside the targets;
        a test's function that target code calls back receives its arguments."""
        if event != "call":
            return None
        side = self.side(frame.f_code)
        if side == OTHER:
            return None
        back = frame.f_back
        from_target = back is not None and self.side(back.f_code) == TARGET
        if side == TESTS:
            if from_target:
                self.called_back(frame)
            return None
        if from_target or self.inside_project(back) or _set_up_by_pytest(back, self.side):
            return None
        frame.f_trace_lines = False
        return Point(self, frame).trace

    def inside_project(self, back: types.FrameType | None) -> bool:
        """Whether other code that the project itself called (the standard library's
        `string.Formatter` calling a project's `convert_field`, `traceback` calling a project
        exception's `__str__`) makes this call: what it returns goes back into the project, not
        to the test, which receives only what the outermost call gives it."""
        while back is not None:
            side = self.side(back.f_code)
            if side != OTHER:
                return side == TARGET
            back = back.f_back
        return False

    def handed_on(self, back: types.FrameType | None) -> bool:
        """Whether the call made at `back` is one of the test's code whose value it only hands
        on to another call (`through`)."""
        if back is None or self.side(back.f_code) != TESTS:
            return False
        spans = self.plugin.passed(back.f_code.co_filename)
        return bool(spans) and back.f_lasti in through_offsets(back.f_code, spans)

    def called_back(self, frame: types.FrameType) -> None:
        code = frame.f_code
        walk = Walk(hashlib.blake2b(digest_size=8), ARG_NODES, self.through)
        walk.put(f"called back {getattr(code, 'co_qualname', code.co_name)}")
        for value in arguments(frame):
            walk.feed(value)
        self.points.append(walk.h.hexdigest())

    def caught_by_type(self, back: types.FrameType | None) -> Caught:
        """Whether an exception out of a call made at `back` lands in a catcher of the test's
        code that keeps only its type, or its type and some attributes (`taken`): the first
        line of a test-side frame, going out through other code (pytest's `raises(X, f)`),
        that a catcher is around decides."""
        for _ in range(CALLERS):
            if back is None:
                return False
            side = self.side(back.f_code)
            if side == TARGET:
                return False
            if side == TESTS:
                caught = self.plugin.caught(back.f_code.co_filename).get(back.f_lineno)
                if caught is not None:
                    return caught
            back = back.f_back
        return False

    def digest(self) -> str:
        whole = hashlib.blake2b("".join(self.points).encode(), digest_size=16)
        return f"{len(self.points)}:{whole.hexdigest()}"


def _pytest_set_up() -> frozenset[types.CodeType]:
    """The code of pytest's own set-up of a package node: `Package.setup` imports the package's
    `__init__.py` (`importtestmodule`) and looks up `pytest_plugins`, `setUpModule` ... on it."""
    from _pytest import python

    found = (
        getattr(getattr(python, "Package", None), "setup", None),
        getattr(python, "importtestmodule", None),  # pytest >= 8.1
        getattr(getattr(python, "Module", None), "_importtestmodule", None),
    )
    return frozenset(c for f in found if (c := getattr(f, "__code__", None)) is not None)


PYTEST_SET_UP = _pytest_set_up()


def _set_up_by_pytest(back: types.FrameType | None, side: Callable[[types.CodeType], int]) -> bool:
    """Whether pytest itself makes this call while it sets up a package (toolz's tests live in
    `toolz`, whose module `__getattr__` answers pytest's look-ups): the first test of a run in a
    fresh collection (a re-imported mutant's child) sets the package up again, the original runs
    did it once before another test. Not what the test receives."""
    while back is not None and side(back.f_code) == OTHER:
        if back.f_code in PYTEST_SET_UP:
            return True
        back = back.f_back
    return False


class Point:
    """One call from the test's side into a target's code, until it returns, yields or raises."""

    def __init__(self, observer: Observer, frame: types.FrameType) -> None:
        self.observer = observer
        # a property read (`caught.value.line`): what the test receives is what it returns; its
        # object's state is the test's own to read (tomlkit's exceptions hold their message)
        self.args = [] if read_by_attribute(frame.f_back) else arguments(frame)
        self.raised: BaseException | None = None
        self.handed = observer.handed_on(frame.f_back)

    def trace(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "exception":
            self.raised = arg[1]
        elif event == "return":
            self.leave(frame, arg)
        return self.trace

    def leave(self, frame: types.FrameType, value: Any) -> None:
        observer = self.observer
        code = frame.f_code
        try:
            unwound = self.raised is not None and code.co_code[frame.f_lasti] not in LEAVING
        except (IndexError, ValueError):
            unwound = self.raised is not None and value is None
        if self.handed and not unwound:
            # what it built is the test's own input from here on, not a value it receives
            made = [value, *(self.args[:1] if code.co_name == "__init__" else [])]
            for obj in made:
                if not isinstance(obj, SCALARS):
                    observer.through[id(obj)] = obj
        walk = Walk(hashlib.blake2b(digest_size=8), RETURN_NODES, observer.through)
        walk.put(f"{code.co_filename}:{getattr(code, 'co_qualname', code.co_name)}")
        caught = unwound and observer.caught_by_type(frame.f_back)
        if caught is True:
            kind = type(self.raised)
            walk.put(f"raise {kind.__module__}.{kind.__qualname__}, caught by type")
        elif caught and self.raised is not None:
            walk.feed(taken_of(self.raised, caught))
        elif unwound:
            walk.feed(self.raised)
        else:
            walk.feed(_taken(value, frame.f_back, observer))
        walk.budget = ARG_NODES
        for value in self.args:
            walk.feed(value)
        observer.points.append(walk.h.hexdigest())


def _taken(value: Any, back: types.FrameType | None, observer: Observer) -> Any:
    """What the test's code takes of a returned value: the one attribute it reads of it at once
    (`Lexer.get_default_instance()._SQL_REGEX`), else all of it. Only an attribute the object
    holds (`__dict__`, slots) is taken apart: a property would run the project's code here."""
    if back is None or observer.side(back.f_code) != TESTS:
        return value
    name = attribute_after_call(back.f_code, back.f_lasti)
    if name is None:
        return value
    try:
        state = state_of(value)
    except Exception:  # a hostile __dict__: all of it, as the walk reads it
        return value
    if state is None or name not in state:
        return value
    return (f"the attribute {name} of {type(value).__qualname__}", state[name])


class Observe:
    """pytest plugin, registered before the children fork: when `sink` is set, each test's digest
    (set-up and call phases) is appended to `<sink>/<current>.jsonl`, `current` naming the run
    (a mutant, or the original code) the child was forked for."""

    def __init__(self) -> None:
        self.sink: str | None = None
        self.current = ""
        # False: the child forked next runs only to prove tests (`Job.proof`): its mutant is
        # Ignored whatever its tests receive, so nothing is observed there
        self.watching = True
        self.targets: frozenset[str] = frozenset()
        self.tests: frozenset[str] = frozenset()  # the test files, real paths
        # node ids run without the observer: it slowed them too much (`exercised.observe_original`)
        self.unobserved: frozenset[str] = frozenset()
        # node id -> its digest in the first run of the original: a run that sees the same needs
        # no points written (`exercised.agrees` compares digests first)
        self.first: dict[str, str] = {}
        self.observer: Observer | None = None
        # file name -> its side (kept across tests: a real path costs system calls)
        self.known: dict[str, int] = {}
        # test-side file name -> its lines' catchers (`taken.caught_lines`)
        self.catchers: dict[str, dict[int, Caught]] = {}
        # test-side file name -> its calls whose value is only handed on (`through`)
        self.spans: dict[str, frozenset[Span]] = {}

    def side_of(self, filename: str) -> int:
        path = os.path.realpath(filename)
        if path in self.targets:
            return TARGET
        if path in self.tests or os.path.basename(path) == "conftest.py":
            return TESTS
        return OTHER

    def caught(self, filename: str) -> dict[int, Caught]:
        found = self.catchers.get(filename)
        if found is None:
            try:
                with open(filename, encoding="utf-8") as fh:
                    found = caught_lines(fh.read())
            except (OSError, UnicodeDecodeError):
                found = {}
            self.catchers[filename] = found
        return found

    def passed(self, filename: str) -> frozenset[Span]:
        found = self.spans.get(filename)
        if found is None:
            try:
                with open(filename, encoding="utf-8") as fh:
                    found = passed_through(fh.read())
            except (OSError, UnicodeDecodeError):
                found = frozenset()
            self.spans[filename] = found
        return found

    def path(self, run: str) -> str:
        assert self.sink is not None
        return os.path.join(self.sink, hashlib.sha1(run.encode()).hexdigest() + ".jsonl")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        if self.sink is not None and self.watching and item.nodeid not in self.unobserved:
            self.observer = Observer(self)
        yield from self._traced()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        yield from self._traced()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        observer, self.observer = self.observer, None
        if observer is not None:
            with open(self.path(self.current), "a", encoding="utf-8") as fh:
                digest = observer.digest()
                same = self.first.get(item.nodeid) == digest
                fh.write(json_line(item.nodeid, digest, None if same else observer.points))
        yield

    def _traced(self) -> Generator[None, None, None]:
        observer = self.observer
        # another tracer (a debugger, coverage) stays: no digest then, and the mutant counts
        if observer is None or sys.gettrace() is not None:
            self.observer = None
            yield
            return
        sys.settrace(observer.trace)
        threading.settrace(observer.trace)  # threads the test starts
        try:
            yield
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type,unused-ignore]


OBSERVE = Observe()
