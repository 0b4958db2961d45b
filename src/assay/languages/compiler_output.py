"""Compiler output cut to what a writer acts on: errors only (no download progress, INFO or
warnings), each at its file and line, the first lines of each, deduplicated, at most 50 in all.

One parser per compiler's own error format (javac and Maven, `go vet`/`go build`, tsc, the C#
compiler); rustc's errors come as JSON from cargo and are read in `rust.py`. Paths are made relative
to the project.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from assay.execution.runner import Problem

MAX_PROBLEMS = 50
DETAIL_LINES = 2  # lines kept after an error's first line (javac's "symbol:" and "location:")

# javac: `File.java:12: error: msg`; Maven: `[ERROR] /abs/File.java:[12,8] msg`
_JAVAC = re.compile(r"^(?P<file>\S.*?\.java):(?P<line>\d+): error: (?P<msg>.*)$")
_MAVEN = re.compile(r"^\[ERROR\] (?P<file>\S.*?\.java):\[(?P<line>\d+),\d+\] (?P<msg>.*)$")
_MAVEN_DETAIL = re.compile(r"^\[ERROR\]\s+(symbol|location|required|found|reason):\s*(?P<rest>.*)$")
# go: `price/x_test.go:6:2: msg`, vet may prefix `vet: `
_GO = re.compile(r"^(?:vet: )?(?P<file>[^\s:][^:]*\.go):(?P<line>\d+)(?::\d+)?: (?P<msg>.*)$")
# tsc --pretty false: `test/a.test.ts(2,21): error TS2307: msg`
_TSC = re.compile(r"^(?P<file>\S.*?\.[cm]?[jt]sx?)\((?P<line>\d+),\d+\): error (?P<msg>TS\d+: .*)$")
# csc / dotnet build: `path/File.cs(12,8): error CS0246: msg [proj.csproj]`
_CSC = re.compile(
    r"^(?P<file>\S.*?\.cs)\((?P<line>\d+),\d+\): error (?P<msg>CS\d+: .*?)(?: \[[^\]]*\])?$"
)


def rel_path(path: str, roots: Iterable[str], base: str = "") -> str:
    """A compiler's path (absolute, or relative to the directory it ran in, `base`)
    made project-relative."""
    path = path.strip()
    for root in sorted((r.rstrip("/") for r in roots if r), key=len, reverse=True):
        if path.startswith(root + "/"):
            return path[len(root) + 1 :]
    if os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(base or ".", path))


def cap(problems: Iterable[Problem]) -> list[Problem]:
    """Deduplicated (same file, line and message), in order, at most MAX_PROBLEMS."""
    seen: dict[tuple, Problem] = {}
    for p in problems:
        seen.setdefault((p.where, p.line, p.message), p)
    return list(seen.values())[:MAX_PROBLEMS]


def _by_pattern(
    text: str,
    pattern: re.Pattern,
    roots: Iterable[str],
    base: str,
    detail: re.Pattern | None = None,
) -> list[Problem]:
    roots = list(roots)
    out: list[Problem] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = pattern.match(line.rstrip())
        if not m:
            continue
        msg = m["msg"].strip()
        extra = []
        for follow in lines[i + 1 : i + 1 + 4]:
            if pattern.match(follow.rstrip()):
                break  # the next error: its details are its own
            d = detail.match(follow) if detail else None
            if d:
                extra.append(f"{d.group(1)}: {d['rest'].strip()}")
            if len(extra) >= DETAIL_LINES:
                break
        if extra:
            msg += " (" + "; ".join(extra) + ")"
        out.append(Problem(rel_path(m["file"], roots, base), msg, int(m["line"]), "compile"))
    return cap(out)


_JAVAC_DETAIL = re.compile(r"^\s+(symbol|location|required|found|reason):\s*(?P<rest>.*)$")


def javac_errors(text: str, roots: Iterable[str], base: str = "") -> list[Problem]:
    """Errors of javac or of Maven's compiler plugin (with javac's
    `symbol:`/`location:` details)."""
    found = _by_pattern(text, _MAVEN, roots, base, _MAVEN_DETAIL)
    return found or _by_pattern(text, _JAVAC, roots, base, _JAVAC_DETAIL)


def go_errors(text: str, roots: Iterable[str], base: str = "") -> list[Problem]:
    return _by_pattern(text, _GO, roots, base)


def tsc_errors(text: str, roots: Iterable[str], base: str = "") -> list[Problem]:
    return _by_pattern(text, _TSC, roots, base)


def csc_errors(text: str, roots: Iterable[str], base: str = "") -> list[Problem]:
    return _by_pattern(text, _CSC, roots, base)


_NOISE = re.compile(
    r"^\s*$|^\[(INFO|WARNING|DEBUG)\]|^(Download(ing|ed)?|Progress|Resolving|Compiling|Finished|Running|"
    r"Blocking|Updating|Locking|Adding|Checking|Fresh|Packaging)\b|^\s*\|\s*$|^npm (warn|notice)"
    # Maven's closing advice after any failure: it pushed the failure itself out of the tail
    r"|^\[ERROR\]\s*$|^\[ERROR\] (To see the full stack trace|Re-run Maven using|For more "
    r"information about the errors|\[Help \d+\] http|-> \[Help \d+\]$)"
)

# colour codes (Maven starts its failure line with "\x1b[0m\x1b[0m" even in batch mode)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def error_tail(text: str, max_lines: int = 8) -> str:
    """The last lines of a tool's output that are not progress, INFO or warnings (for a
    crash message)."""
    lines = (_ANSI.sub("", ln).rstrip() for ln in text.splitlines())
    kept = [ln for ln in lines if not _NOISE.match(ln) and "warning" not in ln.lower()[:20]]
    return "\n".join(kept[-max_lines:])


def count_lines(*texts: str) -> int:
    return sum(len(t.splitlines()) for t in texts if t)


# a Node.js crash's scaffolding around its message: stack frames, the source line and caret of an
# uncaught rejection, an error object's braces and fields, node's version banner
_NODE_NOISE = re.compile(
    r"^\s*at |^node:internal/|^\s*triggerUncaughtException|^\s*\^+\s*$|^\s*[{}]\s*$"
    r"|^\s*innerError:|^Node\.js v\d"
)


def node_error_tail(text: str, max_lines: int = 6) -> str:
    """A Node.js tool's failure in its own words (each message once), without the stack frames
    that filled `error_tail`'s last lines and cut the cause: StrykerJS on vitest 1 printed
    `TypeError: this.ctx.provide is not a function` above fourteen frames."""
    lines = (_ANSI.sub("", ln).rstrip() for ln in text.splitlines())
    kept = [ln for ln in lines if not _NOISE.match(ln) and not _NODE_NOISE.match(ln)]
    return "\n".join(list(dict.fromkeys(kept))[-max_lines:])
