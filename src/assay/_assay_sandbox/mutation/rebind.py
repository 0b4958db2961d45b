"""Mutants whose line runs at import time: re-run the mutated module body in the live module and
point other modules' globals at the new objects - no re-import, no re-collection - then run only the
tests that may observe what changed (every test, likely killers first, when that cannot be bounded).
"""

from __future__ import annotations

import dis
import os
import sys
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..fork import run_one
from ..protocol import MutantSpec, MutationJob
from .body_watch import watch_body
from .bytecode import import_error
from .flow import Body
from .patch import Hunt, run_items
from .rebuilt import Rebuilt, show_source
from .reimport import run_reimported
from .same import changed_names
from .shapes import ChildResult, Report

if TYPE_CHECKING:
    import pytest

    from .readers import Readers

_LOADS = {
    "LOAD_NAME",
    "LOAD_GLOBAL",
    "LOAD_ATTR",
    "LOAD_METHOD",
    "LOAD_FROM_DICT_OR_GLOBALS",
    "LOAD_DEREF",
}
_IMMUTABLE = (int, float, complex, str, bytes, bool, tuple, frozenset, type(None))


class ImportTime:
    """What import-time mutants need, built once in the worker before forking their children."""

    def __init__(
        self,
        cfg: MutationJob,
        original_code: dict[str, types.CodeType],
        readers: Readers,
        collected_codes: set[types.CodeType],
        all_ids: list[str],
        known: list[str],
    ) -> None:
        self.cfg = cfg
        self.readers = readers
        self.all_ids = list(all_ids)
        # every id collected (one a child finds anew is where a mutant shows)
        self.known = set(known)
        self.bodies = {}
        for rel, path in cfg.targets.items():
            with open(path, encoding="utf-8") as fh:
                self.bodies[rel] = Body(fh.read())
        # realpath -> names its code read while collecting
        self.collection_uses = _uses(collected_codes)
        scratch = os.path.realpath(cfg.scratch_root) + os.sep
        self.project_modules = [
            (mod, real)
            for mod in list(sys.modules.values())
            if (file := getattr(mod, "__file__", None))
            and (real := os.path.realpath(file)).startswith(scratch)
        ]
        self.original_unsafe = self._probe_originals(original_code)

    def _probe_originals(self, original_code: dict[str, types.CodeType]) -> dict[str, str | None]:
        """Re-run each original module body under the watch, in a throwaway child: when the original
        has effects outside its namespace (registers itself somewhere), a mutant that drops or
        changes them leaves the live state as the original made it, so no namespace diff can bound
        who observes it."""
        out: dict[str, str | None] = {}
        for rel, code in original_code.items():
            path = os.path.realpath(self.cfg.targets[rel])
            module = next((mod for mod, real in self.project_modules if real == path), None)
            if module is None:
                out[rel] = "not imported"
                continue
            state, result, _ = run_one(
                lambda c=code, p=path, mod=module, b=self.bodies[rel]: (
                    watch_body(c, p, mod, b)[0].unsafe
                ),
                self.cfg.baseline_timeout,
            )
            out[rel] = (
                "probe failed" if state == "timeout" or "crash" in result else result["result"]
            )
        return out

    def run(
        self,
        m: MutantSpec,
        code: types.CodeType,
        items: list[pytest.Item],
        report: Report,
        hunt: Hunt,
        in_order: bool = False,
    ) -> ChildResult:
        """In the child: re-run the mutated body, rebind the project's and tests' module globals
        that held the old objects, run the tests that may observe the change (`in_order`: in the
        order given)."""
        path = os.path.realpath(self.cfg.targets[m.file])
        module = next(mod for mod, real in self.project_modules if real == path)
        rebuilt = Rebuilt(m, path, code)
        show_source(path, m)
        try:
            watch, old = watch_body(code, path, module, self.bodies[m.file])
        # the mutant breaks the import: say so, with the exception
        except Exception as err:  # noqa: BLE001
            return {"import_error": import_error(err, path)}
        if (unapplied := rebuilt.after(module)) is not None:
            return {"unapplied": unapplied}
        unsafe = watch.unsafe or self.original_unsafe[m.file]
        # names whose statements cannot depend on the mutated one changed as any re-run changes them
        changed = self.bodies[m.file].mutant_changed(changed_names(old, module.__dict__), m.line)
        if not changed and unsafe is None:
            return {
                "equivalent": "equivalent: re-running the "
                "module body leaves its namespace unchanged"
            }
        swaps = {}
        for name, value in old.items():
            new = module.__dict__.get(name, value)
            if new is not value and not name.startswith("__"):
                swaps[id(value)] = (name, value, new)
        aliases: set[str] = set()
        for mod, _ in self.project_modules:
            if mod is module:
                continue
            space = mod.__dict__
            for key, value in list(space.items()):
                hit = swaps.get(id(value))
                # immutable values may be shared by accident (small ints, interned strings): same
                # name only
                if hit and hit[1] is value and (key == hit[0] or not isinstance(value, _IMMUTABLE)):
                    space[key] = hit[2]
                    if hit[0] in changed:
                        aliases.add(key)
        baked = {n for real, names in self.collection_uses.items() if real != path for n in names}
        # read while collecting (a parametrize table): only a re-collection sees it
        if baked & (changed | aliases):
            asked = [item.nodeid for item in items]  # likely killers first, then every other test
            seen = set(asked)
            return run_reimported(
                self.cfg,
                m,
                code,
                asked + [t for t in self.all_ids if t not in seen],
                report,
                self.known,
                hunt,
                watch=False,
            )
        selected, complete = self.readers.select(m, changed | aliases, old)
        if complete and unsafe is None:
            run = [item for item in items if item.nodeid in selected]
            return {
                **run_items(run, report, hunt),
                "selected": [item.nodeid for item in run],
            }
        # cannot bound who observes it: every test, the likely killers first
        return run_items(
            items if in_order else sorted(items, key=lambda item: item.nodeid not in selected),
            report,
            hunt,
        )


def _uses(codes: Iterable[types.CodeType]) -> dict[str, set[str]]:
    """Names each file's code loaded (globals, attributes) while pytest collected: values
    computed from them then (parametrize tables, module constants) were computed once, from the
    original module."""
    out: dict[str, set[str]] = {}
    for code in codes:
        names = out.setdefault(os.path.realpath(code.co_filename), set())
        for ins in dis.get_instructions(code):
            if ins.opname in _LOADS and isinstance(ins.argval, str):
                names.add(ins.argval)
    return out
