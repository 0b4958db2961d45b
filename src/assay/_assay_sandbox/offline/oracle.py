"""The oracle's runs of one function's inputs: each in a forked child, under a line tracer and a
per-call timer. The child reports each outcome as it has it: a child that dies or overruns keeps
what it ran, the input it was running is blamed (a hang when it ran past the call timeout), and the
rest run in another child - the outcome of a hanging function does not depend on the machine's
load."""

from __future__ import annotations

import contextlib
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from ..fork import fork, run_one, watch
from .calls import (
    CallTimeout,
    LineTrace,
    Namespaces,
    child_setup,
    mutable_sources,
    prepare,
    record,
    run_call,
    setup,
    timer,
)
from .values import Imports, Unwritable, to_source

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    from ..fork import Task
    from .callgraph import Watched

    Report = Callable[[dict], None]

# inputs of one function that hang or exhaust memory before its other inputs are not run
GIVE_UP = 2


def observe(
    module: ModuleType,
    fn: dict,
    inputs: list[dict],
    lines: list[str],
    timeout: float,
    path: str,
    trace: bool,
    memory_mb: int,
    stop: float = float("inf"),
    watched: Watched | None = None,
    warnings_fail: bool = False,
    report: Report | None = None,
) -> list[dict]:
    """In a child: each input's outcome (with the lines it ran, its time and - `watched` - the
    calls of other targets it made, when tracing); from `stop` on, the rest are not run and the
    child returns what it has before it is killed. `report` gets `{"i": n, "start": True}` before
    input n runs and `{"i": n, "out": outcome}` after (`bisected` reads them)."""
    report = report or (lambda msg: None)
    child_setup(memory_mb)
    spaces = Namespaces(lines)
    out: list[dict] = []
    for n, inp in enumerate(inputs):
        if out:
            report({"i": n - 1, "out": out[-1]})
        if time.monotonic() >= stop:
            out.append({"k": "not_run"})
            continue
        bounded = [r["k"] for r in out if r["k"] in ("timeout", "memory")]
        # it hangs or eats memory: the other inputs would only cost time
        if len(bounded) >= GIVE_UP:
            out.append({"k": bounded[-1], "why": "not run: earlier inputs hit the same limit"})
            continue
        extra = setup(inp)
        ns = spaces.get(extra)
        literal: dict = {}
        try:
            receiver, call, args = prepare(module, fn, inp, ns, literal if trace else None)
        except BaseException as err:  # noqa: BLE001 - an input that does not evaluate is dropped
            out.append({"k": "bad_input", "why": f"{type(err).__name__}: {err}"[:200]})
            continue
        before = None
        if receiver is not None:
            with contextlib.suppress(Unwritable, Exception):
                before = to_source(receiver, Imports())
        args_before = mutable_sources(args)
        report({"i": n, "start": True})
        calls: dict[str, list[dict]] = {}
        tracer = LineTrace(
            path, partial(watched.capture, caller=fn["name"], into=calls) if watched else None
        )
        with tracer if trace else contextlib.nullcontext():
            ran = run_call(call, timeout)
        try:
            with timer(timeout):
                rec = record(
                    ran, receiver, before, [*lines, *extra], args, args_before, warnings_fail
                )
        except CallTimeout:
            rec = {"k": "unwritable", "why": "writing the value back took too long"}
        except Exception as err:  # noqa: BLE001 - a repr or __eq__ that raises
            rec = {"k": "unwritable", "why": f"{type(err).__name__} while writing the value back"}
        rec["s"] = ran.seconds
        if trace:
            rec["lines"] = sorted(tracer.lines)
            if calls:
                rec["calls"] = calls
            if literal and (
                literal["args"] != inp.get("args", []) or literal["kwargs"] != inp.get("kwargs", {})
            ):
                rec["literal"] = literal
        out.append(rec)
    if out:
        report({"i": len(out) - 1, "out": out[-1]})
    return out


def bisected(
    run_child: Callable[[list[dict], float, Report], list[dict]],
    inputs: list[dict],
    timeout: float,
    deadline: float,
) -> list[dict]:
    """Outcomes of `inputs` in as few children as possible. A child that dies or overruns keeps
    the outcomes it reported; the input it was running is blamed - a crash, or a hang once it ran
    for the call timeout - and the others run in a new child. A child that reported nothing is
    split in halves."""
    if not inputs:
        return []
    left = deadline - time.monotonic()
    if left <= 0:
        return [{"k": "not_run"} for _ in inputs]
    limit = min(len(inputs) * timeout * 2 + 2.0, left)
    # the child stops taking inputs before it is killed: a busy machine keeps what it ran
    stop = time.monotonic() + limit - min(1.0, limit * 0.2)
    done: dict[int, dict] = {}
    running: list[tuple[int, float]] = []  # (input, when the parent heard it started)

    def heard(_child: object, msg: dict) -> None:
        if "out" in msg:
            done[msg["i"]] = msg["out"]
        else:
            running.append((msg["i"], time.monotonic()))

    child = fork(lambda report: run_child(inputs, stop, report))
    state, result = watch([child], lambda c: c.started + limit, heard)[child.pid]
    if state == "exited" and isinstance(result, list):
        return result
    blamed = running[-1][0] if running and running[-1][0] not in done else None
    if blamed is not None:
        if state == "timeout":
            ran = time.monotonic() - running[-1][1]
            if ran >= timeout:
                done[blamed] = {"k": "timeout"}
            elif len(done) == 0:  # no progress: not run again
                done[blamed] = {"k": "not_run"}
        else:
            done[blamed] = _crash(result)
    elif not done:  # it died before its first input: no one to blame
        if len(inputs) == 1:
            return [{"k": "timeout"} if state == "timeout" else _crash(result)]
        half = len(inputs) // 2
        return bisected(run_child, inputs[:half], timeout, deadline) + bisected(
            run_child, inputs[half:], timeout, deadline
        )
    rest = [n for n in range(len(inputs)) if n not in done]
    for n, outcome in zip(  # noqa: B905 - one outcome per input
        rest, bisected(run_child, [inputs[n] for n in rest], timeout, deadline)
    ):
        done[n] = outcome
    return [done[n] for n in range(len(inputs))]


def _crash(result: Any) -> dict:
    crash = str(result.get("crash", ""))[-300:] if isinstance(result, dict) else ""
    return {"k": "memory" if "MemoryError" in crash else "crash", "why": crash}


def in_child(body: Task, timeout: float) -> tuple[str, Any, float]:
    """`body()` in a forked child: ("exited", its value or {"crash": ...}) or ("timeout", {}),
    and seconds."""
    state, out, took = run_one(body, timeout)
    return state, out.get("result", out) if state == "exited" else out, took
