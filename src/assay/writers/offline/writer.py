"""The offline writer: mutant-killing characterization tests of one module, with no LLM.

inputs (mined + typed + hypothesis) -> oracle in the sandbox -> outcomes under every mutant ->
greedy set cover -> the chosen cases' whole kill sets and a minimal cover of them (`minimise`) ->
pytest file -> gates 1-5 (`api.verify` on the text, in memory). A test a gate rejects is dropped,
not repaired; another input takes its place only when one kills the same mutants. Everything
happens within the module's time budget: the probe gets a share of it, the confirming run a
smaller one, verification the rest.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from assay._assay_sandbox.offline.pace import Pace
from assay._assay_sandbox.protocol import OfflineFunction
from assay.config import Settings
from assay.errors import InputError
from assay.execution.workspace import Workspace
from assay.languages.python import PYTHON
from assay.model import FileReport, Verdict
from assay.mutation.codeclass import threshold_for
from assay.mutation.model import Mutant
from assay.mutation.mutants import function_spans, generate
from assay.project import Project
from assay.sandbox import Sandbox
from assay.writers.offline import crosshair
from assay.writers.offline.blend import relations
from assay.writers.offline.combined import guards
from assay.writers.offline.cover import (
    UNCOUNTED,
    cover,
    fit_threshold,
    foresee,
    reach,
    table_rows,
)
from assay.writers.offline.functions import FunctionInfo, functions_of
from assay.writers.offline.gates import gate4_out_of_time
from assay.writers.offline.inverse import inverses, joined
from assay.writers.offline.markers import warnings_fail
from assay.writers.offline.mine import mine
from assay.writers.offline.minimise import MIN_CONFIRM_S, confirm, minimal, to_confirm
from assay.writers.offline.model import FunctionReport, ModuleResult
from assay.writers.offline.outcomes import UNJUDGED, _function_report
from assay.writers.offline.place import path_for
from assay.writers.offline.probe import Kept, ProbeResult, default_workers, run_probe
from assay.writers.offline.render import Rendered
from assay.writers.offline.targets import dotted_of
from assay.writers.offline.verification import Verification

# a file kept on gates 1-3 and 5, gate 4 having run out of the budget (the probe checked it)
LATE_VERDICT = "kept: gates 1-3, 5 passed; gate 4 by the probe (out of time)"
PROBE_SHARE = 0.5  # of the module's budget; verification takes the rest
# of the module's budget, at most, for confirming the chosen cases' kills (`minimise`)
CONFIRM_SHARE = 0.1
CROSSHAIR_SHARE = 0.2  # of the probe's time, for `crosshair cover` when it is installed
MINING_SHARE = 0.15  # of the probe's time, for reading the project's tests
MISSING_MODULE = (
    "the module was imported by assay's own interpreter, which lacks the project's dependencies: "
    'name the project\'s, `[tool.assay.python] interpreter = ".venv/bin/python"` in '
    "pyproject.toml (or `[python]` in assay.toml)"
)


class OfflineWriter(Verification):
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
        pace = Pace()  # the budget is in idle seconds: each step stretches by the slowdown
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
        sandbox = Sandbox(self.settings.sandbox, protect=self.project.root)
        rows = table_rows(mutants, text)
        self.guarded = guards(mutants, text)
        self.related = relations(text)
        self.defaulted = {m.id for m in mutants if m.operator == "default_argument"}
        with Workspace(self.project.root) as ws:
            probe = self._probe(
                ws, sandbox, rel, dotted, text, todo, mutants, pace, self.budget_s * PROBE_SHARE
            )
            result.timings["probe"] = time.monotonic() - start
            # functions seen undoing each other (format and parse) may share a test (`gather`)
            self.related = joined(
                self.related, inverses(probe.kept, {i.name: i.kind for i in todo})
            )
            if probe.error:
                result.notes.append(f"probe: {probe.error.strip().splitlines()[-1][:300]}")
                if "ModuleNotFoundError" in probe.error and not self.settings.python.interpreter:
                    result.notes.append(MISSING_MODULE)
            chosen = cover(probe.kept, self.max_tests, rows=rows)
            # the mutants the probe had no time for: inputs that run their code
            chosen += reach(chosen, probe.kept, mutants, probe.status, text, self.max_tests)
            chosen = self._minimise(
                ws,
                sandbox,
                rel,
                dotted,
                todo,
                chosen,
                probe,
                mutants,
                rows,
                pace.until(self.budget_s * (PROBE_SHARE + CONFIRM_SHARE)),
            )
        result.timings["confirm"] = time.monotonic() - start - result.timings["probe"]
        pace.measure(self.settings.mutation.workers or default_workers())  # confirming's lanes
        deadline = pace.until(self.budget_s)
        self.slowdown = pace.slowdown
        spans = function_spans(text)
        threshold = threshold_for({rel: text}, self.settings.mutation, self.project.packages)[1]
        chosen, left_out = fit_threshold(chosen, mutants, probe.status, spans, threshold)
        dropped: dict[str, str] = {
            fn: f"its tests would pull gate 4's score under {threshold:g}%" for fn in left_out
        }
        rendered, report = self._verify_loop(
            result, dotted, todo, probe, chosen, mutants, spans, threshold, dropped, deadline, rows
        )
        if getattr(target, "functions", None):  # asked for some functions: count their mutants only
            names = {i.name for i in infos}
            mutants = [m for m in mutants if m.function.split(".<locals>.")[0] in names]
        self._finish(result, todo, probe, mutants, rendered, report, dropped, spans)
        result.timings["verify"] = (
            time.monotonic() - start - result.timings["probe"] - result.timings["confirm"]
        )
        result.timings["total"] = time.monotonic() - start
        result.timings.update(idle=pace.elapsed(), slowdown=pace.slowdown)
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

    def _minimise(
        self,
        ws: Workspace,
        sandbox: Sandbox,
        rel: str,
        dotted: str,
        todo: list[FunctionInfo],
        chosen: list[Kept],
        probe: ProbeResult,
        mutants: list[Mutant],
        rows: set[str],
        until: float,
    ) -> list[Kept]:
        """The chosen cases' whole kill sets (`minimise.confirm`, within `until`), then the fewest
        of them that kill and reach what they all do (`minimise.minimal`)."""
        pending = to_confirm(chosen, probe.kept, mutants, probe.status)
        if pending and until - time.monotonic() >= MIN_CONFIRM_S:
            self.say(f"{rel}: confirming {len(chosen)} cases' kills on {len(pending)} mutants")
            judged = confirm(
                ws,
                sandbox,
                PYTHON.python(self.settings),
                self.project.source_roots,
                dotted=dotted,
                path=str(ws.path(rel)),
                imports=sorted({f"from {dotted} import {i.name.split('.')[0]}" for i in todo}),
                kinds={i.name: i.kind for i in todo},
                chosen=chosen,
                mutants=pending,
                until=until,
                call_timeout=self.call_timeout,
                workers=self.settings.mutation.workers or default_workers(),
                warnings_fail=warnings_fail(self.project.root),
            )
            probe.confirmed |= judged
            self.say(f"{rel}: {len(judged)} of {len(pending)} mutants judged")
        kept = minimal(chosen, self.max_tests, rows)
        if len(kept) < len(chosen):
            self.say(f"{rel}: {len(chosen) - len(kept)} redundant cases left out")
        return kept

    def _probe(
        self,
        ws: Workspace,
        sandbox: Sandbox,
        rel: str,
        dotted: str,
        text: str,
        todo: list[FunctionInfo],
        mutants: list[Mutant],
        pace: Pace,
        share: float,
    ) -> ProbeResult:
        """Mining, CrossHair and the probe within `share` idle seconds (`pace`) from the start."""
        mined = mine(
            self.project.root,
            dotted,
            text,
            {i.name: i.kind for i in todo},
            self.project.modules,
            pace.until(pace.elapsed() + (share - pace.elapsed()) * MINING_SHARE),
        )
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
        python = PYTHON.python(self.settings)
        if self.crosshair is not False and crosshair.available(python):
            pace.measure()
            took = pace.wall((share - pace.elapsed()) * CROSSHAIR_SHARE)
            self.say(f"{rel}: crosshair cover on {len(todo)} functions ({took:.0f} s)")
            found = crosshair.cover(
                ws, sandbox, python, self.project.source_roots, dotted, text, todo, took
            )
            for f in functions:
                f.inputs += found.get(f.name, [])
        pace.measure()
        budget = max(2.0, share - pace.elapsed())  # idle seconds: the probe measures its own pace
        self.say(
            f"{rel}: probing {len(todo)} functions against {len(mutants)} mutants "
            f"({mined_n} inputs mined from {mined.files} test files; {budget:.0f} s)"
        )
        before = pace.elapsed()
        probe = run_probe(
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
            warnings_fail=warnings_fail(self.project.root),
        )
        if probe.idle_s:  # the probe's own account of its time, measured all along
            pace.count(before + probe.idle_s, probe.slowdown)
        pace.measure()
        return probe

    def _finish(
        self,
        result: ModuleResult,
        todo: list[FunctionInfo],
        probe: ProbeResult,
        mutants: list[Mutant],
        rendered: Rendered | None,
        report: FileReport | None,
        dropped: dict[str, str],
        spans: dict[str, tuple[int, int]],
    ) -> None:
        late = report is not None and gate4_out_of_time(report)
        accepted = (
            report is not None
            and (report.verdict is Verdict.ACCEPTED or late)
            and rendered is not None
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
        unjudged = Counter(
            s
            for m in counted
            if (s := probe.status.get(m.id, "")) in UNJUDGED and m.id not in probe.confirmed
        )
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
            if rendered.shared:
                n = sum(len(fns) for fns in rendered.shared.values())
                result.notes.append(
                    f"{n} related functions share {len(rendered.shared)} "
                    f"test{'s' * (len(rendered.shared) != 1)}: "
                    + "; ".join(" + ".join(fns) for fns in rendered.shared.values())
                )
            gate = next((g for g in report.gates if g.gate == "mutation"), None)
            result.gate_score = gate.details.get("score") if gate else None
            if late:
                result.verdict = LATE_VERDICT
                score = foresee(final, mutants, probe.status, spans)[0]
                result.notes.append(
                    "gate 4 did not finish within the budget: the file passed gates 1-3 and 5, "
                    "and gate 4 is the probe's check"
                    + (f" ({score:.0f}% of the tested functions' mutants it ran)" if score else "")
                    + " - run `assay verify` on it, or raise --budget"
                )
        elif report is not None:
            result.verdict = (
                f"{report.verdict.value} at {report.rejected_at}"
                if report.rejected_at
                else report.verdict.value
            )
        else:
            result.verdict = result.verdict or "no test"
        unverified = {}
        if not accepted and rendered is not None:
            gates = [n for n in result.notes if not n.startswith("probe:")]
            why = gates[-1] if gates else f"the file was {result.verdict}"
            why = f"its tests were in a file the gates did not accept: {why}"
            unverified = {k.function: why for group in rendered.rows.values() for k in group}
        for info in todo:
            result.functions.append(
                _function_report(info, probe, counted, final, killed, dropped, unverified)
            )
