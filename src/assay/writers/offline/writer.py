"""The offline writer: mutant-killing characterization tests of one module, with no LLM.

inputs (mined + typed + hypothesis) -> oracle in the sandbox -> outcomes under every mutant ->
greedy set cover -> pytest file -> gates 1-5 (`api.verify` on the text, in memory). A test a gate
rejects is dropped, not repaired; another input takes its place only when one kills the same
mutants. Everything happens within the module's time budget: the probe gets a share of it,
verification the rest.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay._assay_sandbox.protocol import OfflineFunction
from assay.config import Settings
from assay.errors import InputError
from assay.execution.workspace import Workspace
from assay.languages.python import PYTHON
from assay.model import FileReport, Verdict
from assay.mutation.codeclass import threshold_for
from assay.mutation.model import Mutant
from assay.mutation.mutants import function_spans, generate
from assay.pipeline import Verifier
from assay.project import Project, candidate, python_sources
from assay.sandbox import Sandbox
from assay.writers.offline import crosshair
from assay.writers.offline.cover import UNCOUNTED, cover, fit_threshold, foresee
from assay.writers.offline.functions import FunctionInfo, functions_of
from assay.writers.offline.mine import mine
from assay.writers.offline.model import FunctionReport, ModuleResult, OfflineTarget
from assay.writers.offline.place import path_for
from assay.writers.offline.probe import Kept, ProbeResult, default_workers, run_probe
from assay.writers.offline.render import Rendered, formatted, render

PROBE_SHARE = 0.5  # of the module's budget; verification takes the rest
CROSSHAIR_SHARE = 0.2  # of the probe's time, for `crosshair cover` when it is installed
# of the 10% the budget may run over, what is kept for stopping the gates and cleaning up
MARGIN_S = 1.0
MARKERS_PLUGIN = "_assay_sandbox.offline.markers"
BAD = {Verdict.REJECTED, Verdict.FLAKY, Verdict.LOW_VALUE}
MAX_ROUNDS = 3


def verify_settings(settings: Settings) -> Settings:
    """The user's settings, judged as generated tests, with the writer's markers registered in
    the sandbox."""
    out = settings.model_copy(deep=True)
    out.smells.profile = "generated"
    if MARKERS_PLUGIN not in out.python.pytest_args:
        out.python.pytest_args = [*out.python.pytest_args, "-p", MARKERS_PLUGIN]
    return out


def dotted_of(project: Project, rel: str) -> str:
    for name, path in project.modules.items():
        if path == rel:
            return name
    raise InputError(f"{rel} is not an importable module of the project")


class OfflineWriter:
    """Writes characterization tests for a target (`OfflineTarget`, or anything with `.module` and
    `.functions`, whose items are names or objects with `.name`). Never writes a file itself:
    `write` returns the text."""

    name = "offline"

    def __init__(
        self,
        project: Project,
        settings: Settings,
        *,
        budget_s: float = 60.0,
        max_tests_per_function: int = 20,
        call_timeout: float = 1.0,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        hypothesis_examples: int = 40,
        crosshair: bool | None = None,
    ):
        self.project = project
        self.settings = settings
        self.budget_s = budget_s
        self.max_tests = max_tests_per_function
        self.call_timeout = call_timeout
        self.use_cache = use_cache
        self.say = progress or (lambda _: None)
        self.hypothesis_examples = hypothesis_examples
        self.crosshair = crosshair  # None: use it when the project's interpreter has it

    # --- the steps --------------------------------------------------------------------------------
    def write(self, target: Any, test_path: str | None = None) -> ModuleResult:
        """Tests for one module within the budget; `test_path` (project-relative) is where the file
        will live."""
        start = time.monotonic()
        deadline = start + self.budget_s
        rel = target.module
        try:
            text = (self.project.root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(f"cannot read {rel}: {err}") from None
        dotted = getattr(target, "dotted", "") or dotted_of(self.project, rel)
        result = ModuleResult(rel, test_path or path_for(self.project, rel, dotted))
        infos = self._functions(target, text)
        result.functions = [FunctionReport(i.name, "skipped", i.skip) for i in infos if i.skip]
        todo = [i for i in infos if not i.skip]
        if not todo:
            result.verdict = "nothing to test"
            result.notes.append(
                "no function to characterize: "
                + ("every one was skipped" if infos else "the module defines no public function")
            )
            result.timings["total"] = time.monotonic() - start
            return result
        mutants = [
            m
            for m in generate(rel, text)
            if m.operator not in self.settings.mutation.skip_operators
        ]
        probe = self._probe(rel, dotted, text, todo, mutants, start + self.budget_s * PROBE_SHARE)
        result.timings["probe"] = time.monotonic() - start
        if probe.error:
            result.notes.append(f"probe: {probe.error.strip().splitlines()[-1][:300]}")
        spans = function_spans(text)
        threshold = threshold_for({rel: text}, self.settings.mutation, self.project.packages)[1]
        chosen = cover(probe.kept, self.max_tests)
        chosen, left_out = fit_threshold(chosen, mutants, probe.status, spans, threshold)
        dropped: dict[str, str] = {
            fn: f"its tests would pull gate 4's score under {threshold:g}%" for fn in left_out
        }
        rendered, report = self._verify_loop(
            result, dotted, todo, probe, chosen, mutants, spans, threshold, dropped, deadline
        )
        if getattr(target, "functions", None):  # asked for some functions: count their mutants only
            names = {i.name for i in infos}
            mutants = [m for m in mutants if m.function.split(".<locals>.")[0] in names]
        self._finish(result, todo, probe, mutants, rendered, report, dropped)
        result.timings["verify"] = time.monotonic() - start - result.timings["probe"]
        result.timings["total"] = time.monotonic() - start
        return result

    def _functions(self, target: Any, text: str) -> list[FunctionInfo]:
        infos = functions_of(text)
        wanted = [
            f if isinstance(f, str) else f.name for f in getattr(target, "functions", []) or []
        ]
        if not wanted:
            return infos
        known = {i.name for i in infos}
        missing = [w for w in wanted if w not in known]
        if missing:
            raise InputError(f"{target.module}: no public function or method {missing[0]!r}")
        return [i for i in infos if i.name in wanted]

    def _probe(
        self,
        rel: str,
        dotted: str,
        text: str,
        todo: list[FunctionInfo],
        mutants: list[Mutant],
        until: float,
    ) -> ProbeResult:
        mined = mine(self.project.root, dotted, text, {i.name: i.kind for i in todo})
        functions = [
            OfflineFunction(
                i.name,
                i.kind,
                mined.inputs.get(i.name, []),
                mined.receivers.get(i.name.split(".")[0], []) if i.kind == "method" else [],
            )
            for i in todo
        ]
        imports = sorted({f"from {dotted} import {i.name.split('.')[0]}" for i in todo})
        mined_n = sum(len(f.inputs) for f in functions)
        sandbox = Sandbox(self.settings.sandbox, protect=self.project.root)
        python = PYTHON.python(self.settings)
        with Workspace(self.project.root) as ws:
            if self.crosshair is not False and crosshair.available(python):
                share = (until - time.monotonic()) * CROSSHAIR_SHARE
                self.say(f"{rel}: crosshair cover on {len(todo)} functions ({share:.0f} s)")
                found = crosshair.cover(
                    ws, sandbox, python, self.project.source_roots, dotted, text, todo, share
                )
                for f in functions:
                    f.inputs += found.get(f.name, [])
            budget = max(2.0, until - time.monotonic())
            self.say(
                f"{rel}: probing {len(todo)} functions against {len(mutants)} mutants "
                f"({mined_n} inputs mined from {mined.files} test files; {budget:.0f} s)"
            )
            return run_probe(
                ws,
                sandbox,
                python,
                self.project.source_roots,
                rel=rel,
                dotted=dotted,
                imports=imports,
                functions=functions,
                mutants=mutants,
                literals=mined.literals,
                budget_s=budget,
                call_timeout=self.call_timeout,
                workers=self.settings.mutation.workers or default_workers(),
                hypothesis_examples=self.hypothesis_examples,
            )

    def _render(
        self, dotted: str, todo: list[FunctionInfo], probe: ProbeResult, chosen: list[Kept]
    ) -> Rendered:
        kinds = {i.name: i.kind for i in todo}
        params = {name: f.get("params", []) for name, f in probe.functions.items()}
        out = render(dotted, chosen, kinds, params, self.project.packages, [i.name for i in todo])
        out.text = formatted(out.text, self.project.root)
        return out

    def _verify_loop(
        self,
        result: ModuleResult,
        dotted: str,
        todo: list[FunctionInfo],
        probe: ProbeResult,
        chosen: list[Kept],
        mutants: list[Mutant],
        spans: dict[str, tuple[int, int]],
        threshold: float,
        dropped: dict[str, str],
        deadline: float,
    ) -> tuple[Rendered | None, FileReport | None]:
        """Verify, drop what a gate rejects, put in other inputs that kill the same mutants,
        verify again."""
        banned: set[str] = set()
        rendered: Rendered | None = None
        report: FileReport | None = None
        last = 0.0
        for round_ in range(1, MAX_ROUNDS + 1):
            if not chosen:
                return None, None
            rendered = self._render(dotted, todo, probe, chosen)
            for k, _ in rendered.dropped:
                banned.add(k.id)
                chosen.remove(k)
            if time.monotonic() + last * 1.1 > deadline:
                result.notes.append(
                    "the budget ran out before the file passed the gates: nothing written "
                    "(raise --budget)"
                )
                return rendered, None
            self.say(f"{result.module}: verifying {len(rendered.tests)} tests (gates 1-5)")
            began = time.monotonic()
            # the gates still running then are cancelled
            stop = deadline + max(0.0, self.budget_s * 0.1 - MARGIN_S)
            report = self._verify(result.test_path or "", rendered.text, stop)
            last = time.monotonic() - began
            if report is None:
                result.notes.append(
                    "the budget ran out while the gates ran: nothing written (raise --budget)"
                )
                return rendered, None
            if report.verdict is Verdict.ACCEPTED:
                return rendered, report
            bad = self._rejected(result.test_path or "", report, rendered)
            if bad:
                lost = set().union(*(k.kills for k in bad))
                banned |= {k.id for k in bad}
                for k in bad:
                    dropped.setdefault(k.function, f"a test was rejected at {report.rejected_at}")
                chosen = [k for k in chosen if k.id not in banned]
                # the last verification only takes tests out: it converges
                if round_ < MAX_ROUNDS - 1:
                    covered = set().union(*(k.kills for k in chosen)) if chosen else set()
                    spare = [
                        k
                        for k in probe.kept
                        if k.id not in banned and k not in chosen and k.kills & lost
                    ]
                    chosen += cover(
                        spare, self.max_tests, covered, Counter(k.function for k in chosen)
                    )
                chosen, out = fit_threshold(chosen, mutants, probe.status, spans, threshold)
                dropped.update(
                    {fn: f"its tests would pull gate 4's score under {threshold:g}%" for fn in out}
                )
            elif report.rejected_at == "mutation" and len({k.function for k in chosen}) > 1:
                fn = self._weakest(chosen, mutants, probe, spans)
                dropped[fn] = "gate 4 rejected the file; its tests were the weakest"
                chosen = [k for k in chosen if k.function != fn]
            else:
                result.notes.append(
                    f"the gates rejected the file at {report.rejected_at}: "
                    + _first_line(report)
                    + " (nothing written)"
                )
                return rendered, report
        return rendered, report

    def _weakest(
        self,
        chosen: list[Kept],
        mutants: list[Mutant],
        probe: ProbeResult,
        spans: dict[str, tuple[int, int]],
    ) -> str:
        options = []
        for fn in dict.fromkeys(k.function for k in chosen):
            rest = [k for k in chosen if k.function != fn]
            options.append((foresee(rest, mutants, probe.status, spans)[0] or 0.0, fn))
        return max(options)[1]

    def _verify(self, rel: str, text: str, deadline: float) -> FileReport | None:
        """Gates 1-5 on the text (in a scratch copy, like any in-memory candidate); None when
        the budget ran out first (the run is then cancelled: its processes killed, its
        workspace removed)."""
        verifier = Verifier(self.project, verify_settings(self.settings), self.use_cache)
        stop = threading.Timer(max(0.0, deadline - time.monotonic()), verifier.cancel)
        stop.start()
        try:
            return verifier.verify_file(candidate(self.project, rel, text))
        finally:
            stop.cancel()
            verifier.close()

    @staticmethod
    def _rejected(rel: str, report: FileReport, rendered: Rendered) -> list[Kept]:
        """The cases behind the tests a gate rejected (a parametrized case by its row)."""
        ids = [t.id for t in report.tests]
        bad: list[Kept] = []
        for t in report.tests:
            if t.verdict not in BAD:
                continue
            name = t.id.split("::")[-1]
            base = name.split("[")[0]
            rows = rendered.rows.get(base, [])
            if "[" in name:
                siblings = [i for i in ids if i.split("::")[-1].split("[")[0] == base]
                index = siblings.index(t.id) if t.id in siblings else -1
                if 0 <= index < len(rows):
                    bad.append(rows[index])
            else:
                bad += rows
        return list({k.id: k for k in bad}.values())

    def _finish(
        self,
        result: ModuleResult,
        todo: list[FunctionInfo],
        probe: ProbeResult,
        mutants: list[Mutant],
        rendered: Rendered | None,
        report: FileReport | None,
        dropped: dict[str, str],
    ) -> None:
        accepted = (
            report is not None and report.verdict is Verdict.ACCEPTED and rendered is not None
        )
        final = (
            [k for group in rendered.rows.values() for k in group] if accepted and rendered else []
        )
        killed = set().union(*(k.kills for k in final)) if final else set()
        counted = [m for m in mutants if probe.status.get(m.id) not in UNCOUNTED]
        result.mutants, result.killed = len(counted), sum(m.id in killed for m in counted)
        result.survivors = [
            f"{m.line}: {m.before} -> {m.after}" for m in counted if m.id not in killed
        ][:10]
        unjudged = Counter(s for m in counted if (s := probe.status.get(m.id, "")) in UNJUDGED)
        # counted as survivors: say why, so that a user knows a larger budget may change them
        if unjudged:
            result.notes.append(
                "probe: "
                + ", ".join(
                    f"{n} mutant{'s' * (n != 1)} {UNJUDGED[k]}" for k, n in sorted(unjudged.items())
                )
            )
        if accepted and rendered is not None and report is not None:
            result.text, result.tests, result.verdict = rendered.text, rendered.tests, "accepted"
            gate = next((g for g in report.gates if g.gate == "mutation"), None)
            result.gate_score = gate.details.get("score") if gate else None
        elif report is not None:
            result.verdict = (
                f"{report.verdict.value} at {report.rejected_at}"
                if report.rejected_at
                else report.verdict.value
            )
        else:
            result.verdict = result.verdict or "no test"
        for info in todo:
            result.functions.append(_function_report(info, probe, counted, final, killed, dropped))


UNJUDGED = {
    "not_run": "not run (the probe's share of the budget ran out)",
    "timeout": "timed out",
    "crash": "crashed",
}


def _first_line(report: FileReport) -> str:
    gate = next((g for g in report.gates if g.gate == report.rejected_at), None)
    lines = [line for line in (gate.feedback if gate else "").splitlines() if line.strip()]
    return lines[1][:200] if len(lines) > 1 else (lines[0][:200] if lines else "")


def _function_report(
    info: FunctionInfo,
    probe: ProbeResult,
    counted: list[Mutant],
    final: list[Kept],
    killed: set[str],
    dropped: dict[str, str],
) -> FunctionReport:
    found = probe.functions.get(info.name, {})
    own = [m for m in counted if m.function == info.name]
    kept = [k for k in probe.kept if k.function == info.name]
    rep = FunctionReport(
        info.name,
        "tested",
        inputs_tried=found.get("tried", {}),
        inputs_kept=len(kept),
        mutants=len(own),
        killed=sum(m.id in killed for m in own),
        tests=sum(k.function == info.name for k in final),
    )
    if rep.tests:
        return rep
    if "error" in found:
        rep.status, rep.reason = "error", found["error"]
    elif not found:
        rep.status, rep.reason = "skipped", "not probed: the probe ran out of time or failed"
    elif not kept:
        rep.status, rep.reason = "skipped", _no_input(found)
    elif info.name in dropped:
        rep.status, rep.reason = "dropped", dropped[info.name]
    elif not any(k.kills for k in kept):
        rep.status = "no-kill"
        rep.reason = f"no input kills any of its {len(own)} mutants" if own else "it has no mutants"
    else:
        rep.status, rep.reason = "no-kill", "other tests already kill every mutant its inputs kill"
    return rep


def _no_input(found: dict[str, Any]) -> str:
    n = found.get("inputs", 0)
    if not n:
        return "no input could be built for it (no mined call, no type hints)"
    if found.get("hung") == n:
        return "hangs on every input it was given"
    if found.get("memory") == n:
        return "runs out of memory on every input it was given"
    why = ", ".join(
        f"{v} {k}" for k, v in sorted(found.get("dropped", {}).items(), key=lambda kv: -kv[1])
    )
    return f"none of its {n} inputs gave an outcome a test can pin ({why})"


def targets_from(project: Project, items: list[str | Path | OfflineTarget]) -> list[OfflineTarget]:
    """Files, directories and `file.py::name` specs (or targets) -> one target per module,
    in order."""
    out: dict[str, OfflineTarget] = {}
    for item in items:
        if not isinstance(item, (str, Path)):
            out.setdefault(item.module, OfflineTarget(item.module, [], getattr(item, "dotted", "")))
            out[item.module].functions += [
                f if isinstance(f, str) else f.name for f in item.functions
            ]
            continue
        path_s, _, name = str(item).partition("::")
        rels = python_sources(project, [Path(path_s)])
        for rel in rels:
            target = out.setdefault(rel, OfflineTarget(rel))
            if name:
                target.functions.append(name)
    return list(out.values())
