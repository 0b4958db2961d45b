"""The offline writer's verification: gates 1-5 on the rendered file, in rounds that drop the
tests a gate rejects and put in other inputs that kill the same mutants, within the budget."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from assay.config import Settings
from assay.model import FileReport, Verdict
from assay.mutation.model import Mutant, MutationResult
from assay.pipeline import Verifier
from assay.project import Project, candidate
from assay.writers.offline.combined import case_at
from assay.writers.offline.cover import cover, fit_threshold, foresee, prune, slot
from assay.writers.offline.functions import FunctionInfo
from assay.writers.offline.gates import BoundedMutation, gate4_out_of_time, scope, writer_gates
from assay.writers.offline.model import ModuleResult
from assay.writers.offline.probe import Kept, ProbeResult
from assay.writers.offline.render import Rendered, formatted, render
from assay.writers.offline.subsume import subsumed, test_kills

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


class Verification:
    """The verifying steps of `writer.OfflineWriter`, which sets these attributes."""

    project: Project
    settings: Settings
    budget_s: float
    max_tests: int
    use_cache: bool
    say: Callable[[str], None]
    # mutant id -> the line it changes: the messages of a test holding several cases
    guarded: dict[str, str] = {}  # noqa: RUF012 - set per module by the writer
    # function -> the functions of the module it may share a test with (`blend.relations`)
    related: dict[str, set[str]] = {}  # noqa: RUF012 - set per module by the writer
    # the mutants of default values: a call that kills one keeps leaving its argument out
    defaulted: set[str] = set()  # noqa: RUF012 - set per module by the writer
    slowdown: float = 1.0  # the machine's, as the writer measured it (`pace`)
    gate4_run: MutationResult | None = None  # gate 4's last run: each test's kills (`subsume`)

    def _render(
        self, dotted: str, todo: list[FunctionInfo], probe: ProbeResult, chosen: list[Kept]
    ) -> Rendered:
        kinds = {i.name: i.kind for i in todo}
        params = {name: f.get("params", []) for name, f in probe.functions.items()}
        defaults = {name: f.get("defaults", {}) for name, f in probe.functions.items()}
        order = [i.name for i in todo]
        out = render(
            dotted,
            chosen,
            kinds,
            params,
            self.project.packages,
            order,
            defaults,
            self.guarded,
            self.related,
            self.defaulted,
        )
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
        rows: set[str],
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
            cases = len(rendered.tests)
            self.say(
                f"{result.module}: verifying {cases} case{'s' if cases != 1 else ''} (gates 1-5)"
            )
            began = time.monotonic()
            # the gates still running then are cancelled
            stop = deadline + max(0.0, self.budget_s * 0.1 * self.slowdown - MARGIN_S)
            report = self._verify(
                result.test_path or "",
                rendered.text,
                stop,
                deadline,
                scope(result.module, chosen, spans),
            )
            last = time.monotonic() - began
            if report is None:
                result.notes.append(
                    "the budget ran out while the gates ran: nothing written (raise --budget)"
                )
                return rendered, None
            if report.verdict is Verdict.ACCEPTED:
                return self._subsume(result, dotted, todo, probe, chosen, rendered), report
            if gate4_out_of_time(report):
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
                    taken = Counter(slot(k, k.kills, rows) for k in chosen)
                    chosen += cover(spare, self.max_tests, covered, taken, rows)
                    chosen = prune(chosen)
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

    def _verify(
        self, rel: str, text: str, deadline: float, until: float, lines: dict[str, list[int]]
    ) -> FileReport | None:
        """Gates 1-5 on the text (in a scratch copy, like any in-memory candidate), gate 4 last,
        on `lines` (the tested functions'), stopped at `until` (`gates.BoundedMutation`); None when
        the budget ran out first (the run is then cancelled at `deadline`: its processes killed,
        its workspace removed)."""
        settings = verify_settings(self.settings)
        # each test's whole kill set: the tests others subsume are left out (`subsume`)
        settings.mutation.attribution = "exact"
        gates = writer_gates(settings, until)
        self.gate4_run = None
        verifier = Verifier(self.project, settings, self.use_cache, gates=gates)
        stop = threading.Timer(max(0.0, deadline - time.monotonic()), verifier.cancel)
        stop.start()
        file = candidate(self.project, rel, text)
        file.targets = list(dict.fromkeys([*file.targets, *lines]))
        file.changed = lines
        try:
            return verifier.verify_file(file)
        finally:
            stop.cancel()
            verifier.close()
            self.gate4_run = next(
                (g.last_run for g in gates if isinstance(g, BoundedMutation)), None
            )

    def _subsume(
        self,
        result: ModuleResult,
        dotted: str,
        todo: list[FunctionInfo],
        probe: ProbeResult,
        chosen: list[Kept],
        rendered: Rendered,
    ) -> Rendered:
        """The accepted file without the tests whose every kill (gate 4's exact kill sets in its
        scope, the probe's beyond it) other kept tests make (`subsume`): its score is unchanged,
        and each test it loses is a whole test function the gates passed, so the file is not
        verified again. The report says which tests went and which tests subsume each."""
        kills = test_kills(self.gate4_run, rendered.rows) if self.gate4_run else None
        if not kills:
            return rendered
        sizes = {name: len(cases) for name, cases in rendered.rows.items()}
        gone = subsumed(kills, sizes)
        if not gone.by:
            return rendered
        out = {k.id for name in gone.by for k in rendered.rows[name]}
        smaller = self._render(dotted, todo, probe, [k for k in chosen if k.id not in out])
        if smaller.dropped or len(smaller.rows) != len(rendered.rows) - len(gone.by):
            return rendered  # not the same tests less those: keep the file the gates passed
        result.notes.append(gone.note())
        self.say(f"{result.module}: {gone.note()}")
        return smaller

    @staticmethod
    def _rejected(rel: str, report: FileReport, rendered: Rendered) -> list[Kept]:
        """The cases behind the tests a gate rejected (a parametrized case by its row; in a test
        holding several cases as statements, the case whose statement failed at gate 2: the
        others stay, as the salvage of a written answer keeps them, `writers.salvage`)."""
        ids = [t.id for t in report.tests]
        green = next((g for g in report.gates if g.gate == "green"), None)
        failed_at = green.details.get("failed_at", {}) if green else {}
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
            elif (at := case_at(rendered, base, failed_at.get(t.id))) is not None:
                bad.append(rows[at])
            else:
                bad += rows
        return list({k.id: k for k in bad}.values())


def _first_line(report: FileReport) -> str:
    gate = next((g for g in report.gates if g.gate == report.rejected_at), None)
    lines = [line for line in (gate.feedback if gate else "").splitlines() if line.strip()]
    return lines[1][:200] if len(lines) > 1 else (lines[0][:200] if lines else "")
