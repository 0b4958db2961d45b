"""Project modules that assay's own Python cannot parse, while the test interpreter runs them.

pyee 16.1 writes `def on[Handler: Callable](...)` (Python 3.12's type parameters). Run by assay on
3.11 with the project's 3.12 venv, its tests pass, but gate 4 could make no mutant of `base.py`
and said "measured nothing: no mutant in scope (the tests run no function of the project ...)",
`accepted`: the tests were not what fell short. Such a module is named: a note where other modules
were judged, `unvalidated` where nothing else was.
"""

from __future__ import annotations

import ast
import sys

from assay.model import GateResult, GateStatus, Verdict

HEADER = "UNVALIDATED: Gate 4 — MUTATION NOT MEASURED"


def unparsed(sources: dict[str, str]) -> dict[str, str]:
    """Per module that assay's Python cannot parse, where and why (`65: expected '('`)."""
    out = {}
    for rel, text in sources.items():
        try:
            ast.parse(text, rel)
        except SyntaxError as err:
            out[rel] = f"{err.lineno}: {err.msg}"
        except ValueError as err:  # null bytes
            out[rel] = str(err)
    return out


def reason(modules: dict[str, str]) -> str:
    """One line: the modules, where assay's parser stopped, and what to do."""
    where = ", ".join(f"{rel}:{at}" for rel, at in sorted(modules.items())[:3])
    more = f" and {len(modules) - 3} more" if len(modules) > 3 else ""
    python = ".".join(map(str, sys.version_info[:2]))
    return (
        f"gate 4 could not mutate {where}{more}: assay's own Python {python} cannot parse "
        f"{'them' if len(modules) > 1 else 'it'} (the "
        "project's code uses syntax of a newer Python, which the test interpreter runs); run "
        "assay on a Python as new as the project's (install it into the project's environment)"
    )


def unmeasured(gate: str, modules: dict[str, str], elapsed: float) -> GateResult:
    """Gate 4 where every module in the file's scope is one assay cannot parse: `unvalidated`."""
    said = reason(modules)
    return GateResult(
        gate,
        GateStatus.SKIP,
        elapsed,
        f"{HEADER}\n{said}",
        verdict=Verdict.UNVALIDATED,
        details={"reason": said, "unparsed": sorted(modules)},
    )
