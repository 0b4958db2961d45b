"""Feedback text for writers, in the shapes of DESIGN.md: a REJECT header, the errors only,
one hint.

Compact by construction: at most 50 lines, scratch paths rewritten to project-relative ones.
"""

from __future__ import annotations

import re

MAX_LINES = 50
_TRACEBACK_NOISE = re.compile(r"^\s*(_{5,}|={5,}|-{5,}|\.\.\.)")


def relativize(text: str, *roots: str) -> str:
    """Rewrite absolute paths under any of `roots` (scratch copy, user's root) to
    project-relative ones."""
    for root in sorted({r.rstrip("/") for r in roots if r}, key=len, reverse=True):
        text = text.replace(root + "/", "")
    return text


def trim(text: str, max_lines: int = 12) -> str:
    """The tail of a message without pytest's separator lines: where the error is, not how we
    got there."""
    lines = [
        ln.rstrip()
        for ln in text.strip().splitlines()
        if ln.strip() and not _TRACEBACK_NOISE.match(ln)
    ]
    if len(lines) > max_lines:
        lines = ["..."] + lines[-max_lines:]
    return "\n".join(lines)


LOCATION = re.compile(r"^\S+\.py:\d+:")


def failure_summary(message: str, max_lines: int = 8) -> str:
    """A pytest failure cut to what a writer acts on: the exception, the failing line, the `E`
    lines, where."""
    lines = [ln.rstrip() for ln in message.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    head = lines[0]
    picked = list(
        dict.fromkeys(
            "> " + ln.strip().lstrip("> ").strip() if ln.lstrip().startswith(">") else ln.strip()
            for ln in lines[1:]
            if ln.lstrip().startswith((">", "E ")) and ln.strip("E >") not in head
        )
    )
    where = next((ln for ln in reversed(lines) if LOCATION.match(ln)), None)
    body = picked[: max_lines - 2] + ([where.rsplit(":", 1)[0]] if where else [])
    return "\n".join([head, *("  " + ln for ln in body)])


def collection_summary(message: str, max_lines: int = 6) -> str:
    """A collection error cut to pytest's `E` lines (the exception), else the tail of
    the message."""
    errors = [ln.strip()[1:].strip() for ln in message.splitlines() if ln.startswith("E ")]
    return "\n".join(errors[-max_lines:]) if errors else trim(message, max_lines)


def compose(header: str, body: list[str], hint: str) -> str:
    """Header, body lines, hint; the body is cut so that the whole stays within MAX_LINES."""
    lines = [ln for chunk in body for ln in chunk.splitlines()]
    room = MAX_LINES - 2
    if len(lines) > room:
        lines = lines[: room - 1] + [f"... ({len(lines) - room + 1} more lines)"]
    return "\n".join([header, *lines, hint])


CAUSES_HEADER = "REJECT: Gate 5 — TEST SMELLS (static check, reported first)"
CAUSES_HINT = "Fix these first: they are the likely cause of the reject below."


AFTER_HEADER = "ALSO: Gate 5 — TEST SMELLS (static check; not the cause of the failure above)"
AFTER_HINT = "Fix these too, once the project's error above is fixed."
# a flaky verdict: only a smell of nondeterminism (AS024) can make an outcome change between runs
FLAKY_CAUSES = ("AS024",)
FLAKY_AFTER_HEADER = (
    "ALSO: Gate 5 — TEST SMELLS (static check; not what makes the outcome above change)"
)
FLAKY_AFTER_HINT = "Fix these too: none of them makes a test pass in one run and fail in another."
# a failed test (gate 2): these say a test checks too little or repeats another, which never makes
# one fail (aiofiles' AS008 duplicate test was put first as "the likely cause" of a test that
# deleted a project file); the others (mocking, swallowed or nondeterministic assertions) may
NEVER_FAIL = ("AS001", "AS002", "AS003", "AS006", "AS008", "AS009", "AS020", "AS021")
FAILED_AFTER_HEADER = "ALSO: Gate 5 — TEST SMELLS (static check; not what makes a test fail)"
FAILED_AFTER_HINT = "Fix these too: none of them makes a test fail."
# a low score (gate 4): a smell of a test that runs none of the surviving mutants did not let them
# survive (platformdirs' test_api.py: AS009 on `isinstance` tests put first, every survivor in
# android.py, run by another test alone)
ELSEWHERE_HEADER = (
    "ALSO: Gate 5 — TEST SMELLS (static check; in tests that run none of the mutants that survived)"
)
ELSEWHERE_HINT = "Fix these too: they are not why the mutants above survived."


def with_causes(
    causes: list[str],
    feedback: str,
    max_causes: int = 10,
    *,
    after: bool = False,
    flaky: bool = False,
    timed_out: bool = False,
    failed: bool = False,
    running: set[str] | None = None,
) -> str:
    """A gate's feedback with cheap static causes (reject-level smells) first; `after`: the
    feedback already names the cause (the project's own code raised), the smells follow it;
    `flaky`: the verdict is an outcome that changed between runs, which only a smell of
    nondeterminism can cause: those go first, the others follow; `timed_out`: every failure ran
    past the time limit, which no smell causes: they follow; `failed`: tests failed, which a smell
    of checking too little (NEVER_FAIL) never causes: those follow; `running`: the tests (function
    names) that run the surviving mutants of a low score, the others' smells follow. Within
    MAX_LINES."""
    if running is not None and not (after or timed_out or flaky):
        rest = [c for c in causes if _test_of(c) not in running]
        feedback = with_causes([c for c in causes if c not in rest], feedback, max_causes)
        if not rest:
            return feedback
        return _after(rest, feedback, ELSEWHERE_HEADER, ELSEWHERE_HINT, max_causes)
    if failed and not (after or timed_out or flaky):
        rest = [c for c in causes if any(f" {rule} " in c for rule in NEVER_FAIL)]
        first = [c for c in causes if c not in rest]
        feedback = with_causes(first, feedback, max_causes)
        if not rest:
            return feedback
        return _after(rest, feedback, FAILED_AFTER_HEADER, FAILED_AFTER_HINT, max_causes)
    if flaky:
        first = [c for c in causes if any(f" {rule} " in c for rule in FLAKY_CAUSES)]
        rest = [c for c in causes if c not in first]
        feedback = with_causes(first, feedback, max_causes)
        causes = rest
    if not causes:
        return feedback
    shown = causes[:max_causes] + (
        [f"... ({len(causes) - max_causes} more)"] if len(causes) > max_causes else []
    )
    if flaky:
        added = [FLAKY_AFTER_HEADER, *shown, FLAKY_AFTER_HINT]
        after = True
    elif timed_out:
        added = [AFTER_HEADER.replace("failure", "timeout"), *shown, "Fix these too."]
        after = True
    elif after:
        added = [AFTER_HEADER, *shown, AFTER_HINT]
    else:
        added = [CAUSES_HEADER, *shown, CAUSES_HINT]
    lines = feedback.splitlines()
    room = MAX_LINES - len(added)
    if len(lines) > room:  # keep the gate's header and hint, cut its body
        lines = [
            lines[0],
            *lines[1 : room - 2],
            f"... ({len(lines) - room + 1} more lines)",
            lines[-1],
        ]
    return "\n".join([*lines, *added] if after else [*added, *lines])


def _after(causes: list[str], feedback: str, header: str, hint: str, max_causes: int) -> str:
    """`causes` after `feedback`, under `header`, within MAX_LINES."""
    shown = causes[:max_causes] + (
        [f"... ({len(causes) - max_causes} more)"] if len(causes) > max_causes else []
    )
    added = [header, *shown, hint]
    lines = feedback.splitlines()
    room = MAX_LINES - len(added)
    if len(lines) > room:
        lines = [lines[0], *lines[1 : room - 2], f"... ({len(lines) - room + 1} more lines)"]
        lines.append(feedback.splitlines()[-1])
    return "\n".join([*lines, *added])


def _test_of(cause: str) -> str:
    """The test function a smell line names (`path:12 AS009 Class::test_x: ...` -> `test_x`)."""
    parts = cause.split(" ", 2)
    name = parts[2].split(":", 1)[0] if len(parts) == 3 else ""
    return name.rsplit("::", 1)[-1]


def survivors_run_by(details: dict) -> set[str] | None:
    """Test functions that run a surviving mutant, by gate 4's briefs; None when a survivor's
    tests are not known (none runs its line, or the tool cannot tell)."""
    briefs = details.get("briefs") or []
    if not briefs or any(not b.get("tests") for b in briefs):
        return None
    return {t.split("[", 1)[0].rsplit("::", 1)[-1] for b in briefs for t in b["tests"]}
