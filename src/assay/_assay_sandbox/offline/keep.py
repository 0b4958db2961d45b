"""Which of the probe's outcomes can be kept as a test, and why the others cannot (the reasons
a function's report gives)."""

from __future__ import annotations

ASSERTABLE = {"return", "iter", "raise"}


def _same(a: dict, b: dict) -> bool:
    keys = ("k", "expr", "type", "match", "state", "iterating", "after")
    return all(a.get(k) == b.get(k) for k in keys)


def _unique(inputs: list[dict]) -> list[dict]:
    """The inputs without repeats (the same receiver, arguments and keywords), in order."""
    seen: set[str] = set()
    out = []
    for i in inputs:
        key = repr((i.get("receiver"), i.get("args", []), sorted(i.get("kwargs", {}).items())))
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def _why_dropped(inp: dict, a: dict, b: dict) -> str | None:
    if a["k"] not in ASSERTABLE:
        return {
            "bad_input": "does not evaluate",
            "timeout": "hangs",
            "memory": "eats memory",
            "recursion": "recursion limit",
            "crash": "crashes the process",
            "not_run": "out of time",
            "unwritable": "outcome cannot be written back",
            "warning": "emits a warning",
            "argv": "read the command line (sys.argv: pytest's own in a test)",
        }.get(a["k"], a["k"])
    if b["k"] == "not_run":  # the second run, which checks that the outcome repeats, did not come
        return "out of time"
    if not _same(a, b):
        return "not deterministic"
    if (
        inp.get("origin") not in ("tests", "doctest")
        and a["k"] == "raise"
        and a["type"] in ("TypeError", "AttributeError", "NotImplementedError")
    ):
        return f"raise {a['type']}"
    return None
