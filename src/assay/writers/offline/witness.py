"""Survivor witnesses (survivor briefs, issue 29 point 6): for each surviving mutant, a call on
which the original code and the mutant come out differently, and the assertion that pins the
original's outcome there: what a test that kills the mutant must assert.

The calls are the offline writer's: inputs mined from the project's own tests and doctests first
(`mine`), then inputs it explores from their literals; each runs on the original and on every
survivor in the sandbox (`run_probe`). A survivor no input separates gets no witness (its brief
keeps the operator's hint)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from assay._assay_sandbox.protocol import OfflineFunction
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages.python import PYTHON
from assay.mutation.model import Mutant
from assay.project import Project
from assay.sandbox import Sandbox
from assay.writers.offline.functions import functions_of
from assay.writers.offline.mine import mine
from assay.writers.offline.probe import Kept, default_workers, run_probe
from assay.writers.offline.targets import dotted_of


@dataclass(frozen=True)
class Witness:
    mutant: str
    call: str  # the call, as a test writes it
    assertion: str  # what the original gives there, as an assertion the mutant fails
    origin: str  # where the input came from: "tests", "doctest", or explored

    def to_json(self) -> dict[str, str]:
        return {"call": self.call, "assert": self.assertion, "input_from": self.origin}


def _call(k: Kept) -> str:
    i = k.input
    parts = [*i.get("args", []), *(f"{n}={v}" for n, v in i.get("kwargs", {}).items())]
    name = (
        k.function if i.get("receiver") is None else f"{i['receiver']}.{k.function.split('.')[-1]}"
    )
    return f"{name}({', '.join(parts)})"


def _assertion(k: Kept, call: str) -> str | None:
    o = k.outcome
    if o["k"] == "raise":
        match = f", match={o['match']}" if o.get("match") else ""
        return f"with pytest.raises({o['type']}{match}): {call}"
    if o["k"] == "iter":
        return f"assert list({call}) == {o['expr']}"
    if o["k"] == "return":
        op = "is" if o["expr"] in ("None", "True", "False") else "=="
        return f"assert {call} {op} {o['expr']}"
    return None


def witnesses(
    project: Project, settings: Settings, survivors: list[Mutant], budget_s: float = 20.0
) -> dict[str, Witness]:
    """Mutant id -> witness, for the survivors some input separates from the original."""
    by_file: dict[str, list[Mutant]] = defaultdict(list)
    for m in survivors:
        by_file[m.file].append(m)
    out: dict[str, Witness] = {}
    for rel, mutants in by_file.items():
        text = (project.root / rel).read_text(encoding="utf-8")
        wanted = {m.function.split(".<locals>.")[0] for m in mutants}
        infos = [i for i in functions_of(text) if i.name in wanted and not i.skip]
        if not infos:
            continue
        dotted = dotted_of(project, rel)
        mined = mine(project.root, dotted, text, {i.name: i.kind for i in infos})
        functions = [
            OfflineFunction(
                i.name,
                i.kind,
                mined.inputs.get(i.name, []),
                mined.receivers.get(i.name.split(".")[0], []) if i.kind == "method" else [],
            )
            for i in infos
        ]
        with Workspace(project.root) as ws:
            probe = run_probe(
                ws,
                Sandbox(settings.sandbox, protect=project.root),
                PYTHON.python(settings),
                project.source_roots,
                rel=rel,
                dotted=dotted,
                imports=sorted({f"from {dotted} import {i.name.split('.')[0]}" for i in infos}),
                functions=functions,
                mutants=mutants,
                literals=mined.literals,
                budget_s=budget_s,
                call_timeout=1.0,
                workers=settings.mutation.workers or default_workers(),
                hypothesis_examples=0,
            )
        for m in mutants:
            # the shortest call that separates it, the tests' own inputs first
            killers = sorted(
                (k for k in probe.kept if m.id in k.kills),
                key=lambda k: (k.input.get("origin") != "tests", k.size),
            )
            for k in killers:
                call = _call(k)
                if assertion := _assertion(k, call):
                    origin = str(k.input.get("origin") or "explored")
                    out[m.id] = Witness(m.id, call, assertion, origin)
                    break
    return out
