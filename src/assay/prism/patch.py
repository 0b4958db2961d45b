"""Unified diffs, applied by a small strict applier of our own, and the line-level differences of
two trees.

Strict on purpose: a hunk applies only where its context and removed lines match the file exactly
(an offset from the stated line is searched, fuzz never is), so a panel member is exactly what its
author wrote, and a patch that does not apply fails with one line naming the file and the hunk. `a/`
and `b/` prefixes (git, `diff -u a b`) are stripped; `/dev/null` creates or deletes a file; git's
extended header lines are skipped.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


class PatchError(Exception):
    """A patch that cannot be read or does not apply; the message is one line."""


@dataclass
class Hunk:
    old_start: int
    new_start: int
    header: str
    old: list[str] = field(default_factory=list)  # lines with their newline, as in the file
    new: list[str] = field(default_factory=list)


@dataclass
class FilePatch:
    old_path: str | None  # None: the file is created
    new_path: str | None  # None: the file is deleted
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def _strip(raw: str) -> str | None:
    name = raw.split("\t")[0].strip()
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        name = name[2:]
    return name


def parse(text: str) -> list[FilePatch]:
    """The file patches of a unified diff, in order."""
    lines = text.splitlines(keepends=True)
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("GIT binary patch") or line.startswith("Binary files "):
            raise PatchError("binary patches are not supported")
        if not (line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        fp = FilePatch(_strip(line[4:]), _strip(lines[i + 1][4:]))
        if fp.old_path is None and fp.new_path is None:
            raise PatchError("a file patch from /dev/null to /dev/null")
        patches.append(fp)
        i += 2
        while i < len(lines) and (m := HUNK.match(lines[i])):
            hunk = Hunk(int(m.group(1)), int(m.group(3)), lines[i].strip())
            old_left = int(m.group(2) or 1)
            new_left = int(m.group(4) or 1)
            i += 1
            while old_left > 0 or new_left > 0:
                if i >= len(lines):
                    raise PatchError(f"{fp.path}: hunk {hunk.header} ends early")
                body = lines[i]
                tag, content = body[:1], body[1:]
                # an empty context line some editors strip
                if body.rstrip("\r\n") == "" and tag != " ":
                    tag, content = " ", body
                if tag == " ":
                    hunk.old.append(content)
                    hunk.new.append(content)
                    old_left -= 1
                    new_left -= 1
                elif tag == "-":
                    hunk.old.append(content)
                    old_left -= 1
                elif tag == "+":
                    hunk.new.append(content)
                    new_left -= 1
                elif body.startswith("\\"):
                    pass
                else:
                    raise PatchError(
                        f"{fp.path}: hunk {hunk.header}: unexpected line {body.rstrip()[:60]!r}"
                    )
                if old_left < 0 or new_left < 0:
                    raise PatchError(
                        f"{fp.path}: hunk {hunk.header} has more lines than its header says"
                    )
                i += 1
                if i < len(lines) and lines[i].startswith("\\"):  # "\ No newline at end of file"
                    _drop_newline(hunk, tag)
                    i += 1
            fp.hunks.append(hunk)
        if not fp.hunks and fp.old_path is not None and fp.new_path is not None:
            raise PatchError(f"{fp.path}: a file patch without hunks")
    if not patches:
        raise PatchError("not a unified diff (no '--- ' / '+++ ' file headers)")
    return patches


def _drop_newline(hunk: Hunk, tag: str) -> None:
    sides = {" ": (hunk.old, hunk.new), "-": (hunk.old,), "+": (hunk.new,)}.get(tag, ())
    for side in sides:
        if side:
            side[-1] = side[-1].rstrip("\r\n")


def _find(lines: list[str], block: list[str], at: int) -> int | None:
    """Where `block` occurs in `lines`, nearest to `at` (0-based)."""
    if not block:
        return min(max(at, 0), len(lines))
    for delta in range(len(lines) + 1):
        for pos in {at - delta, at + delta}:
            if 0 <= pos <= len(lines) - len(block) and lines[pos : pos + len(block)] == block:
                return pos
    return None


def apply_file(text: str | None, fp: FilePatch) -> str | None:
    """The file's new text (None: deleted), or PatchError."""
    if fp.old_path is None:
        if text is not None:
            raise PatchError(f"{fp.path}: the patch creates it, but it already exists")
        return "".join(line for h in fp.hunks for line in h.new)
    if text is None:
        raise PatchError(f"{fp.old_path}: no such file in the tree the patch applies to")
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    cursor = 0
    for n, hunk in enumerate(fp.hunks, 1):
        at = _find(
            lines[cursor:],
            hunk.old,
            hunk.old_start - 1 - cursor if hunk.old else hunk.old_start - cursor,
        )
        if at is None:
            raise PatchError(f"{fp.path}: hunk {n} ({hunk.header}) does not match the file")
        at += cursor
        out += lines[cursor:at] + hunk.new
        cursor = at + len(hunk.old)
    out += lines[cursor:]
    if fp.new_path is None:
        if out:
            raise PatchError(f"{fp.path}: the patch deletes it but leaves lines behind")
        return None
    return "".join(out)


def apply(
    text: str,
    read: Mapping[str, str | None] | None = None,
    reader: Callable[[str], str | None] | None = None,
) -> dict[str, str | None]:
    """Apply a unified diff; `reader(rel)` gives a file's current text or None. Returns
    `{rel: new text or None}`."""
    get = reader or (lambda rel: (read or {}).get(rel))
    result: dict[str, str | None] = {}
    for fp in parse(text):
        old_rel = fp.old_path or fp.new_path or ""
        current = result[old_rel] if old_rel in result else get(old_rel)
        new = apply_file(current, fp)
        if fp.old_path and fp.new_path and fp.old_path != fp.new_path:  # a rename
            result[fp.old_path] = None
        result[fp.path] = new
    return result


def unified(rel: str, old: str | None, new: str | None) -> str:
    """A unified diff of one file (a/ b/ prefixes), which `apply` reads back exactly."""
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = (new or "").splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(
        old_lines,
        new_lines,
        "/dev/null" if old is None else f"a/{rel}",
        "/dev/null" if new is None else f"b/{rel}",
        n=3,
    ):
        out.append(line if line.endswith("\n") else line + "\n" + NO_NEWLINE + "\n")
    return "".join(out)


def changed_lines(old: str, new: str) -> tuple[set[int], set[int]]:
    """1-based lines added in `new` and lines removed from `old` (a changed line is both)."""
    a, b = old.splitlines(), new.splitlines()
    added: set[int] = set()
    removed: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed.update(range(i1 + 1, i2 + 1))
        if tag in ("replace", "insert"):
            added.update(range(j1 + 1, j2 + 1))
    return added, removed
