"""Which collected tests a job means, by identities that hold across processes.

Test files are collected whole and tests picked here, never by handing node ids to pytest: an id
made in another process may not exist in this one (parameters from a `set` get their ids and order
from the hash seed), and pytest would then say "no tests collected" or "not found" instead of why.
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest


def _matches(nodeid: str, want: str) -> bool:
    """`want` is a node id, a prefix of ids (`file::Class`, `file::func` for all its parameters) or
    a glob."""
    if any(c in want for c in "*?"):
        return fnmatch.fnmatchcase(nodeid, want)
    return nodeid == want or nodeid.startswith(want + "::") or nodeid.startswith(want + "[")


def pick(
    items: list[pytest.Item], tests: list[str], deselect: list[str]
) -> tuple[list[pytest.Item], str | None, int]:
    """(the items asked for minus the deselected, a one-paragraph error or None, how many
    were deselected).

    A file passed whole keeps all its tests. An id that is not there again is an error naming the
    cause, except when every parameter of one function was asked for: the same tests, whatever their
    ids now.
    """
    whole = {t for t in tests if "::" not in t}
    wanted = [t for t in tests if "::" in t]
    by_file = {t.split("::")[0] for t in wanted} - whole
    keep, found = [], set()
    for item in items:
        file = item.nodeid.split("::")[0]
        if file not in by_file:
            keep.append(item)
            continue
        hits = [w for w in wanted if _matches(item.nodeid, w)]
        if hits:
            found.update(hits)
            keep.append(item)
    missing = [w for w in wanted if w not in found and w.split("::")[0] in by_file]
    problems = []
    for function in sorted({w.split("[")[0] for w in missing}):
        asked = [w for w in wanted if w.split("[")[0] == function]
        present = [i for i in items if i.nodeid.split("[")[0] == function]
        if present and len(asked) == len(present):
            keep += [i for i in present if i not in keep]
            continue
        gone = [w for w in missing if w.split("[")[0] == function]
        if present:
            problems.append(
                f"{gone[0]}"
                + (f" (and {len(gone) - 1} more)" if len(gone) > 1 else "")
                + f" not found when the tests were collected again: {function} now has "
                f"{', '.join(i.nodeid.split('[', 1)[1].rstrip(']') for i in present[:3])}"
                f"{', ...' if len(present) > 3 else ''} - "
                f"its parameter ids differ between processes "
                "(parametrized over a set or other unordered "
                "values, whose order follows PYTHONHASHSEED); "
                "pass the file or the function instead of the ids"
            )
        else:
            problems.append(
                f"{gone[0]}"
                + (f" (and {len(gone) - 1} more)" if len(gone) > 1 else "")
                + " not found when the tests were collected "
                "again: no such test (renamed or removed?)"
            )
    order = {id(i): n for n, i in enumerate(items)}
    keep.sort(key=lambda i: order[id(i)])
    left = [i for i in keep if not any(_matches(i.nodeid, d) for d in deselect)]
    return left, "; ".join(problems) or None, len(keep) - len(left)
