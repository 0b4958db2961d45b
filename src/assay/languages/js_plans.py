"""Gates 1-3 of a vitest, jest, mocha or `node --test` file in one node process: a plan script
(`vitest_plan.mjs` on vitest's Node API, `createVitest` and `runTestSpecifications`;
`jest_plan.mjs` on jest's `runCLI`; `mocha_plan.mjs` on mocha's `Mocha`, a fresh instance and
`require.cache` per run (`mocha`); `node_plan.mjs` on node:test's own `run()`, and worker threads
for a file without node:test tests) makes gate 1's run, which gate 2 takes, then gate 3's
plan ahead when gate 3 will run and every test passed: one start of node (and of vitest) and one
sandbox entry per file, where gate 1's run and gate 3's plan were two (for `node --test`, a start
and a sandbox entry per run of gate 3; vitest 7+ starts before its plan).

Each run is what the runner's own command gives: a fresh vitest worker and module graph
(`isolate: true`, as a new `vitest run`), a fresh jest environment and module registry (in band, as
`jest FILE`; a run that leaves a handle open or a node module changed hands the file back to the
`jest` command: `DECLINED`), or the file in a fresh child process (`node --test`; a file without
node:test tests, judged by its exit status, in a fresh worker thread per run); the
runs share the runner's start-up. Random order is vitest's `sequence.shuffle` with the step's seed
(`node --test` has none before Node 22); a test alone is selected by its name pattern (`js_regex`:
vitest's `-t` full name, node's `--test-name-pattern` last title). Each run keeps its deadline:
past it the script exits 124, that run counts as timed out, and gate 3 redoes its step and the
steps after it a process each (`plans.redo_crashed`).

The script finds the tests alone itself (the first run's passing tests) and says which it ran, with
a snapshot of the project between the first run and the plan: gate 3 takes the plan run ahead only
when it asks for exactly those steps and tests of an unchanged file, and gate 2 blames its own run
only for what that run wrote (`TestRun.writes`), not for what gate 3's runs wrote after it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay._assay_sandbox.stability_plan import risk_of
from assay.execution.runner import Order, Outcome, PlanAhead, RunStep, TestResult, TestRun
from assay.languages import node_results
from assay.languages.mocha import mocha_package
from assay.languages.node_results import TITLE_SEP
from assay.languages.plans import PlannedRun, layout
from assay.languages.tooling import TEST_ID_SEP

if TYPE_CHECKING:
    from assay.config import Settings

HERE = Path(__file__).parent
TIMED_OUT = 124  # a plan script's exit status when a run passed its deadline
# jest_plan.mjs's exit status when a run left what a process per run would not share with the
# next (a handle open, a node module changed): the jest command judges the file instead
DECLINED = 3
DECLINING = ("jest", "mocha")  # the plan scripts that may decline (mocha_plan.mjs too)
_JS_SPECIAL = re.compile(r"[.*+?^${}()|[\]\\/]")
Tree = dict[str, tuple[int, int]]


def js_regex(text: str) -> str:
    return "^" + _JS_SPECIAL.sub(lambda m: "\\" + m.group(0), text) + "$"


def full_name_pattern(name: str) -> str:
    """A test id's name (titles joined by " > ") as the `-t` pattern vitest and jest match
    against a test's full name: its titles joined by spaces, after a space on vitest 1 (its
    file's own suite is named "", and assay's ids leave that title out)."""
    return "^ ?" + js_regex(name.replace(TITLE_SEP, " "))[1:]


def vitest_package(vitest_bin: str) -> Path | None:
    """The vitest package behind `node_modules/.bin/vitest`, when it has the Node API
    vitest_plan.mjs drives (`dist/node.js` with `getRelevantTestSpecifications`: vitest 3 on;
    vitest 1 has `dist/node.js` without it, and scule's file was a "COMPILE ERROR")."""
    found = Path(vitest_bin).resolve().parent
    try:
        meta = json.loads((found / "package.json").read_text(encoding="utf-8"))
        major = int(str(meta.get("version", "0")).split(".")[0])
    except (OSError, ValueError):
        return None
    return found if major >= 3 and (found / "dist" / "node.js").is_file() else None


def jest_package(jest_bin: str) -> Path | None:
    """The jest package behind `node_modules/.bin/jest` (`jest/bin/jest.js`), when its `runCLI` is
    the one jest_plan.mjs drives (jest 29.2 to 30: `--randomize` came in 29.2)."""
    found = Path(jest_bin).resolve().parent.parent
    try:
        meta = json.loads((found / "package.json").read_text(encoding="utf-8"))
        version = tuple(int(n) for n in str(meta.get("version", "0")).split(".")[:2])
    except (OSError, ValueError):
        return None
    return found if meta.get("name") == "jest" and (29, 2) <= version < (31,) else None


def jest_randomizes(jest_bin: str) -> bool:
    """Whether the jest behind `node_modules/.bin/jest` has `--randomize` (29.2 and later):
    radash's jest 28 exited "Unrecognized option \"randomize\"", and gate 3 left the file
    `unvalidated` on every run. An older jest reruns in file order, as `node --test` before Node
    22 does."""
    found = Path(jest_bin).resolve().parent.parent
    try:
        meta = json.loads((found / "package.json").read_text(encoding="utf-8"))
        version = tuple(int(n) for n in str(meta.get("version", "0")).split(".")[:2])
    except (OSError, ValueError):
        return True  # not known: asked, and a refusal is told as before
    return version >= (29, 2)


def script_for(runner: str, exe: str | None) -> Script | None:
    """The plan script of a package's runner ("vitest", "jest", "mocha", "node"), None when it has
    none: a vitest without the Node API, a jest outside 29.2-30, a mocha before 8. `exe`: its
    `node_modules/.bin` entry."""
    if runner == "node":
        return Script.node_test()
    if exe is None:
        return None
    if runner == "mocha":
        found = mocha_package(exe)
        return None if found is None else Script.mocha(found)
    package = vitest_package(exe) if runner == "vitest" else jest_package(exe)
    if package is None:
        return None
    return Script.vitest(package) if runner == "vitest" else Script.jest(package)


def stability_steps(settings: Settings, source: str) -> list[RunStep] | None:
    """The steps gate 3 asks of a runner whose reruns are processes (`plan_forks = False`), when
    gates 2 and 3 both run; None: no plan to run ahead."""
    if settings.gates is not None and not {"green", "stability"} <= set(settings.gates):
        return None
    cfg = settings.stability
    steps = [RunStep(last_if_failed=True)] * (cfg.reruns_risky if risk_of(source) else cfg.reruns)
    if cfg.random_order:
        steps.append(RunStep(Order.RANDOM, cfg.seed, last_if_failed=True))
    if cfg.isolation:
        steps.append(RunStep(isolate=True, last_if_failed=True))
    return steps


def script_steps(steps: list[RunStep]) -> list[RunStep]:
    """Gate 3's steps as a plan script runs them: `lean` and `together` are pytest's screens
    (`RunStep`), which a node runner has none of. Gate 3 marks its steps `lean`, and the plan run
    ahead, compared field by field, was never taken: every file started a second plan process."""
    return [replace(s, lean=False, together=False) for s in steps]


@dataclass(frozen=True)
class Script:
    """One runner's plan script; `runner` names its results' format (`node_results`)."""

    runner: str  # "vitest", "jest" or "node"
    what: str  # how messages name the runner
    script: Path
    suffix: str  # of each run's results file
    header: dict[str, str]  # what the script needs beside the runs (vitest's package directory)

    @classmethod
    def vitest(cls, package: Path) -> Script:
        return cls("vitest", "vitest", HERE / "vitest_plan.mjs", ".json", {"vitest": str(package)})

    @classmethod
    def jest(cls, package: Path) -> Script:
        return cls("jest", "jest", HERE / "jest_plan.mjs", ".json", {"jest": str(package)})

    @classmethod
    def mocha(cls, package: Path) -> Script:
        return cls("mocha", "mocha", HERE / "mocha_plan.mjs", ".json", {"mocha": str(package)})

    @classmethod
    def node_test(cls) -> Script:
        return cls("node", "node --test", HERE / "node_plan.mjs", ".xml", {})

    def pattern(self, test_id: str) -> str | None:
        rel, name = test_id.split(TEST_ID_SEP, 1)
        if name == rel:  # a tape file's one test (`node_results`): the file's run selects it
            return None
        last = name.split(TITLE_SEP)[-1]
        return full_name_pattern(name) if self.runner != "node" else js_regex(last)

    def spec(self, run: PlannedRun, steps: list[RunStep]) -> dict[str, object]:
        s = steps[run.step]
        return {
            "out": str(run.out),
            "seed": s.seed if s.order is Order.RANDOM else None,
            "pattern": self.pattern(run.ids[0]) if run.ids else None,
            "name": _name(run.ids[0]) if run.ids else None,
            "step": run.step,
            "last": s.last_if_failed,
        }

    def argv(
        self,
        out_dir: Path,
        target: str,
        planned: list[PlannedRun],
        steps: list[RunStep],
        ids: list[str] | None,
        deadline_s: float,
        rel: str,
    ) -> list[str]:
        """Gate 3's plan: `planned` (`plans.layout`) of `steps`, watching `ids`; `rel`: the
        file, project-relative."""
        runs = [self.spec(r, steps) for r in planned]
        watch = [_name(i) for i in ids or []]
        body = {"file": target, "deadline_s": deadline_s, "runs": runs, "watch": watch}
        body["self"] = rel  # the name of a tape file's one test (`node_plan.mjs`)
        return self._write(out_dir, body)

    def ahead_argv(
        self,
        out_dir: Path,
        target: str,
        steps: list[RunStep] | None,
        deadline_s: float,
        tree: Path,
        rel: str,
    ) -> list[str]:
        """Gate 1's run, then, when its tests all passed, gate 3's `steps` (None: the run alone);
        the runs alone are the script's to find. `tree`: the project to snapshot between."""
        fixed = [s for s in steps or [] if not s.isolate]
        first = {"out": str(self.first_out(out_dir)), "step": -1, "last": True}
        first |= {"seed": None, "pattern": None, "name": None}
        runs = [first, *(self.spec(r, fixed) for r in layout(out_dir, self.suffix, fixed, None, 1))]
        body = {"file": target, "deadline_s": deadline_s, "runs": runs, "project": str(tree)}
        body["self"] = rel  # the name of a tape file's one test (`node_plan.mjs`)
        if steps is not None:
            alone = any(s.isolate for s in steps)
            body |= {"ahead": True, "alone": alone, "alone_step": len(fixed)}
        return self._write(out_dir, body)

    def _write(self, out_dir: Path, body: dict[str, object]) -> list[str]:
        plan = out_dir / "plan.json"
        plan.write_text(json.dumps({**self.header, **body}), encoding="utf-8")
        return ["node", str(self.script), str(plan)]

    def first_out(self, out_dir: Path) -> Path:
        return out_dir / f"run-0{self.suffix}"

    def read(
        self, out: Path, rel: str, roots: tuple[str, ...], ids: list[str] | None = None
    ) -> dict[str, TestResult] | None:
        """A run's results (only `ids`' when given), None when it left none: the process ended
        first, or the run found no test (`_run_once`'s crash)."""
        if not out.is_file():
            return None
        tests = node_results.results(out, rel, self.runner, roots)
        return {k: v for k, v in tests.items() if ids is None or k in ids} or None

    def gathered(
        self,
        planned: list[PlannedRun],
        steps: list[RunStep],
        ids: list[str] | None,
        rel: str,
        roots: tuple[str, ...],
        crash: str,
        timed_out: bool,
    ) -> list[TestRun]:
        """Each step's TestRun, as `each_step` makes them: a step's runs merged; after a step
        `last_if_failed` in which one of `ids` did not pass, no more; a run without results is a
        crash of its step, the last (`plans.redo_crashed` does it again a process per run)."""
        runs: list[TestRun] = []
        for n, step in enumerate(steps):
            total = TestRun()
            runs.append(total)
            for p in (p for p in planned if p.step == n):
                results = self.read(p.out, rel, roots, p.ids)
                if results is None:
                    total.crash, total.timed_out = crash, timed_out
                    total.running = p.ids[0] if p.ids and len(p.ids) == 1 else None
                    return runs
                total.tests.update(results)
            done = total.tests
            if step.last_if_failed and any(
                done[t].outcome is not Outcome.PASSED for t in ids or [] if t in done
            ):
                break
        return runs


def ahead_of(
    script: Script,
    out_dir: Path,
    rel: str,
    roots: tuple[str, ...],
    steps: list[RunStep],
    first: TestRun,
    ended: tuple[str, bool],
    tree_after: Tree,
) -> tuple[PlanAhead | None, frozenset[str] | None]:
    """Gate 3's plan as the script ran it after `first` (None when it did not: a test did not
    pass, or the tests it ran alone are not `first`'s passing ones), and the project files `first`
    wrote (None: unknown). `ended`: why the script ended early, and whether that was a deadline."""
    try:
        told = json.loads((out_dir / "ahead.json").read_text(encoding="utf-8"))
        mid: Tree = {k: (int(v[0]), int(v[1])) for k, v in told["tree"].items()}
        alone = [f"{rel}{TEST_ID_SEP}{name}" for name in told["alone"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None, None
    writes = None if first.tree_before is None else frozenset(_changed(first.tree_before, mid))
    passing = list(first.passed())
    if any(s.isolate for s in steps) and alone != passing:
        return None, writes
    planned = layout(out_dir, script.suffix, steps, passing, 1)
    runs = script.gathered(planned, steps, passing, rel, roots, *ended)
    return PlanAhead([], passing, runs, frozenset(_changed(mid, tree_after))), writes


def _name(test_id: str) -> str:
    return test_id.split(TEST_ID_SEP, 1)[1]


def _changed(before: Tree, after: Tree) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
