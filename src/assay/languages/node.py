"""TypeScript and JavaScript: one runner for both, with the project's own test runner (vitest, jest,
mocha through its API (`mocha`), or `node --test`) and its structured reporter (JSON, or JUnit XML
for `node --test`).

Gate 1: TypeScript is type-checked with the project's `tsc` on a generated tsconfig that extends the
project's and holds only the candidate (so a broken sibling cannot fail it); JavaScript is checked
with `node --check` (under `node --test`, only when the first run failed: a run of the file that
passed proves its syntax). Both fail closed: a file is never accepted unless its syntax and its
execution were both proven, so a missing `tsc` or test runner makes it `unvalidated`, never
`accepted`. The project's `node_modules` are linked read-only into the scratch copy, never copied,
never written. Gates 1-3 of a vitest, jest, mocha or `node --test` file run in one node process
(`js_plans`).
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import (
    CompileResult,
    Order,
    Outcome,
    PlanAhead,
    RunStep,
    TestRun,
    each_step,
)
from assay.execution.workspace import SKIP_DIRS, Workspace
from assay.languages import js_plans, mocha, node_checks, node_results, plans, tsc_cache
from assay.languages.js_plans import (
    DECLINED,
    DECLINING,
    TIMED_OUT,
    Script,
    full_name_pattern,
    jest_randomizes,
    js_regex,
    script_steps,
    stability_steps,
)
from assay.languages.node_checks import package_json, script_runner
from assay.languages.node_results import TITLE_SEP
from assay.languages.plans import layout
from assay.languages.tooling import TEST_ID_SEP, Ran, ToolRunner, nearest, under
from assay.sandbox.view import hand_over

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project
    from assay.sandbox import Profile, Sandbox

# test runners a project may use that assay does not drive: their files are not judged
UNDRIVEN = ("jasmine", "ava", "tap", "uvu")
# the runners found in a package's dependencies (or its node_modules/.bin), in this order
DRIVEN = ("vitest", "jest", "mocha")
# assay's runs collect no coverage: a config's `collectCoverage` wrote coverage/ into the tree,
# which gate 2 blamed on the test (vercel/ms), and its thresholds fail a run of one file
NO_COVERAGE = {"vitest": "--coverage.enabled=false", "jest": "--coverage=false"}
TEST_MARK = re.compile(r"\b(it|test)\s*\(")  # a test in a vitest, jest or node:test file


def node_module_dirs(root: Path, limit: int = 200) -> tuple[str, ...]:
    """Project-relative `node_modules` directories of every package of the project (a monorepo
    has several)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        if "package.json" in filenames and os.path.isdir(os.path.join(dirpath, "node_modules")):
            out.append(Path(dirpath, "node_modules").relative_to(root).as_posix())
            if len(out) >= limit:
                break
    return tuple(out)


def _bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


class NodeRunner(ToolRunner):
    """`language` is "typescript" or "javascript"; the two differ only in gate 1's check."""

    plan_forks = False  # gate 3's runs are isolated vitest runs, not forks: no extra reruns

    def __init__(
        self,
        language: str,
        sandbox: Sandbox,
        project: Project,
        settings: Settings,
        profile: Profile,
    ) -> None:
        super().__init__(sandbox, project, settings, profile)
        self.language = language
        self.conf = self.settings.tool(language)
        # (scratch root, file) -> (its bytes, the run `compile` made of it), for `run`
        self._ran: dict[tuple[str, str], tuple[bytes | None, TestRun]] = {}
        # the same key -> (its bytes, gate 3's steps and plan as that run's process ran them ahead)
        self._ahead: dict[tuple[str, str], tuple[bytes | None, list[RunStep], PlanAhead]] = {}
        # the files a jest plan declined (`js_plans.DECLINED`): a process per run for them
        self._declined: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def exec(
        self,
        ws: Workspace,
        argv: list[str],
        cwd: str = ".",
        timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> Ran:
        if argv[:2] != ["node", str(tsc_cache.LOADER)]:
            tsc_cache.ran_code(ws)  # a test, a plan, a user's command: no tsc cache kept after it
        return super().exec(ws, argv, cwd, timeout, env)

    def _module(self, ws: Workspace, rel: str) -> str:
        return nearest(ws.project, rel, ("package.json",)) or "."

    def _bin(self, ws: Workspace, module: str, name: str) -> str | None:
        """`node_modules/.bin/<name>` of the package or of a package above it (a
        hoisting monorepo)."""
        here = PurePosixPath(module)
        for d in (here, *here.parents):
            path = ws.path(f"{d.as_posix()}/node_modules/.bin/{name}")
            if path.exists():
                return str(path)
        return None

    def test_runner(self, ws: Workspace, module: str) -> str:
        if self.conf.runner:
            return self.conf.runner
        pkg = package_json(ws.project, module)
        if found := script_runner(pkg):  # what its `npm test` runs
            return found
        deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
        return next((r for r in DRIVEN if r in deps or self._bin(ws, module, r)), "node")

    # --- gate 1 -----------------------------------------------------------------------------------
    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        rel = files[0]
        module = self._module(ws, rel)
        runner = self.test_runner(ws, module)
        pkg = package_json(ws.project, module)
        deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
        other = next((r for r in UNDRIVEN if r in deps), None)
        if runner == "node" and other and not self.conf.runner:
            # its tests need the runner's globals (mocha's describe/it): under `node --test` they
            # would fail for the environment, not for what they check
            return self.environment(
                f"{module}/package.json tests with {other}, which assay does not run yet (it runs "
                'vitest, jest, mocha and node --test); runner = "node" in its [tool.assay] '
                "language table if the file runs under node --test"
            )
        if runner == "node" and self.language == "typescript":
            return self.environment(
                f"no TypeScript test runner in {module}/package.json: add vitest "
                "(npm install --save-dev vitest) or jest with ts-jest"
            )
        # `node --test` runs the file as `node --check` parses it: its run proves the syntax, and
        # the check runs only to explain a run that failed (one node start less per good file)
        lazy = self.language == "javascript" and runner == "node" and not self.conf.compile_command
        checked = CompileResult()
        if not lazy:
            checked = (
                node_checks.tsc(self, ws, rel, module)
                if self.language == "typescript"
                else node_checks.node_check(self, ws, rel)
            )
            if not checked.ok:
                return checked
        if runner in ("vitest", "jest") and self._bin(ws, module, runner) is None:
            return self.environment(
                f"{runner} is not installed in {module}: run `npm ci` (or npm install) there"
            )
        if runner == "mocha" and (cause := mocha.unsupported(self, ws, module)):
            return self.environment(cause)
        # collection is a first run (jest and node --test cannot list without running; `vitest
        # list` costs a start as long as a run), kept for gate 2's `run`
        key = (str(ws.project), rel)
        with self._lock:
            self._ran.pop(key, None)
            self._ahead.pop(key, None)
            self._declined.discard(key)
        tree_before = ws.snapshot()
        script = self._script(ws, module)
        first = None if script is None else self._first_run(ws, rel, module, script, tree_before)
        if first is None:  # no plan script, or the jest plan declined the first run
            run = self.run(ws, files)
            run.tree_before = tree_before
        else:
            run = first
        failing = any(t.outcome in (Outcome.FAILED, Outcome.ERROR) for t in run.tests.values())
        if lazy and (run.crash or failing):
            checked = node_checks.node_check(self, ws, rel)
            if not checked.ok:
                with self._lock:
                    self._ahead.pop(key, None)
                return checked
        crash = None if run.tests and not run.timed_out else run.crash
        load = run.tests.get(f"{rel}{TEST_ID_SEP}<file>")
        if runner in ("vitest", "mocha") and load is not None:  # the file did not load
            crash = f"{runner} could not load {rel}:\n{load.message}"
        if node_checks.holds_no_test(run, load):  # collected nothing: gate 1 says so
            crash, run.tests = None, {}
        if gap := node_checks.load_gap(self, ws, runner, module, rel, pkg, load, crash, checked.ok):
            return gap
        listed = CompileResult(
            collected=list(run.tests),
            crash=crash,
            timed_out=run.timed_out,
            duration_s=run.duration_s,
        )
        if listed.ok:
            with self._lock:
                self._ran[key] = (_bytes(ws.path(rel)), run)
        elif run.ahead is not None:
            run.ahead = None
            with self._lock:
                self._ahead.pop(key, None)
        listed.raw_lines += checked.raw_lines
        listed.duration_s += checked.duration_s
        return listed

    # --- gates 2 and 3 ----------------------------------------------------------------------------
    def run(
        self,
        ws: Workspace,
        files: list[str],
        ids: list[str] | None = None,
        order: Order = Order.FILE,
        seed: int = 0,
        isolate: bool = False,
    ) -> TestRun:
        rel = files[0]
        with self._lock:
            kept = self._ran.pop((str(ws.project), rel), None)
        # the run `compile` made, if the file is still what it ran (or gone, as that run left it)
        if kept and not ids and order is Order.FILE and kept[0] == _bytes(ws.path(rel)):
            return kept[1]
        with self._lock:  # the plan run ahead followed a run the caller did not take
            self._ahead.pop((str(ws.project), rel), None)
        module = self._module(ws, rel)
        runner = self.test_runner(ws, module)
        names = [i.split(TEST_ID_SEP, 1)[1] for i in ids] if ids else []
        groups: list[list[str]] = [[n] for n in names] if isolate else [[]]
        total = TestRun()
        for group in groups:
            one = self._run_once(ws, rel, module, runner, group, order, seed)
            total.tests.update(one.tests)
            total.duration_s += one.duration_s
            total.exit_status = one.exit_status
            if one.crash and (not one.tests or one.timed_out):
                total.crash, total.timed_out = one.crash, one.timed_out
                total.running = f"{rel}{TEST_ID_SEP}{group[0]}" if group else None
            if one.timed_out:  # the next group would wait as long again
                break
        return total

    def run_plan(
        self, ws: Workspace, files: list[str], steps: list[RunStep], ids: list[str] | None = None
    ) -> list[TestRun]:
        """Every run of gate 3 in one node process (`js_plans`): taken from gate 1's process when it
        ran this plan ahead; a process per run for a vitest without the Node API, a jest plan
        declined, or when `test_args` are configured."""
        rel = files[0]
        module = self._module(ws, rel)
        key = (str(ws.project), rel)
        with self._lock:
            ahead = self._ahead.pop(key, None)
            declined = key in self._declined
        if ahead is not None and (script_steps(ahead[1]), ahead[2].ids, ahead[0]) == (
            script_steps(steps),
            list(ids or []),
            _bytes(ws.path(rel)),
        ):
            found = ahead[2].runs
        else:
            script = self._script(ws, module)
            if script is None or declined:
                return each_step(self, ws, files, steps, ids)
            out_dir = self._out_dir(ws, script)
            planned = layout(out_dir, script.suffix, steps, ids)
            argv = script.argv(
                out_dir, under(module, rel), planned, steps, ids, self.timeout_s, rel
            )
            ran = self.exec(ws, argv, cwd=module, timeout=self.timeout_s * len(planned) + 30)
            if script.runner in DECLINING and ran.result.returncode == DECLINED:
                with self._lock:
                    self._declined.add(key)
                return each_step(self, ws, files, steps, ids)
            found = script.gathered(planned, steps, ids, rel, ran.roots, *self._ended(ran, script))
        return plans.redo_crashed(found, steps, lambda rest: each_step(self, ws, files, rest, ids))

    def _script(self, ws: Workspace, module: str) -> Script | None:
        """The plan script for this package's runner, None: a process per run (a vitest without
        the Node API, a jest outside 29.2-30, configured `test_args`)."""
        runner = self.test_runner(ws, module)
        if self.conf.test_args:
            return None
        script = js_plans.script_for(runner, self._bin(ws, module, runner))
        if script is not None and script.runner == "jest" and self.language == "typescript":
            given = tsc_cache.plan_cache(ws, tsc_cache.typescript_module(ws, module))
            script = replace(script, header={**script.header, **given})  # ts-jest's TypeScript
        return script

    def _out_dir(self, ws: Workspace, script: Script) -> Path:
        out_dir = ws.run_dir / f"plan-{len(list(ws.run_dir.glob('plan-*')))}"
        out_dir.mkdir(parents=True)
        hand_over(out_dir)  # the tests' uid writes the results
        return out_dir

    def _ended(self, ran: Ran, script: Script) -> tuple[str, bool]:
        """Why a plan script ended before its last run, and whether it was a deadline."""
        if ran.result.returncode == TIMED_OUT:
            return f"{script.runner} timed out after {self.timeout_s:g} s", True
        return ran.why(script.what), ran.result.timed_out

    def _first_run(
        self,
        ws: Workspace,
        rel: str,
        module: str,
        script: Script,
        tree_before: dict[str, tuple[int, int]],
    ) -> TestRun | None:
        """Gate 1's run through the plan script, with gate 3's plan run ahead in the same process
        when gate 3 will ask for one (`js_plans`); None when the jest plan declined that run."""
        path = ws.path(rel)
        source = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        steps = stability_steps(self.settings, source)
        out_dir = self._out_dir(ws, script)
        argv = script.ahead_argv(
            out_dir, under(module, rel), steps, self.timeout_s, ws.project, rel
        )
        # a deadline per run in the script; this one only stops a script that hangs itself (a run
        # per step, and one per test alone: the tests counted as the smells rules mark them)
        tests = len(re.findall(TEST_MARK, source)) if steps else 0
        budget = self.timeout_s * (2 + len(steps or []) + tests) + 30
        ran = self.exec(ws, argv, cwd=module, timeout=budget)
        crash, timed_out = self._ended(ran, script)
        found = script.read(script.first_out(out_dir), rel, ran.roots)
        declined = script.runner in DECLINING and ran.result.returncode == DECLINED
        if declined:  # at the first run (it left no results) or at one of gate 3's
            with self._lock:
                self._declined.add((str(ws.project), rel))
            if found is None:
                return None
        run = TestRun(duration_s=ran.result.duration_s, tree_before=tree_before)
        run.tests = found or {}
        failed = any(t.outcome in (Outcome.FAILED, Outcome.ERROR) for t in run.tests.values())
        run.exit_status = ran.result.returncode if found is None else int(failed)
        if found is None and (timed_out or ran.result.returncode != 0):
            run.crash, run.timed_out = crash, timed_out
        elif not run.tests:
            run.crash = ran.why(script.what)
        if steps is not None and run.tests and not run.crash and not declined:
            ahead, run.writes = js_plans.ahead_of(
                script, out_dir, rel, ran.roots, steps, run, (crash, timed_out), ws.snapshot()
            )
            if ahead is not None:
                run.ahead = ahead
                with self._lock:
                    self._ahead[(str(ws.project), rel)] = (_bytes(ws.path(rel)), steps, ahead)
        return run

    def _run_once(
        self,
        ws: Workspace,
        rel: str,
        module: str,
        runner: str,
        only: list[str],
        order: Order,
        seed: int,
    ) -> TestRun:
        if runner == "mocha":  # a plan of one run (`mocha`)
            script = self._script(ws, module)
            return mocha.run_once(self, ws, script, rel, module, only, order, seed)
        out = ws.run_dir / f"{runner}-{len(list(ws.run_dir.glob(f'{runner}-*')))}.out"
        target = under(module, rel)
        pattern = None
        # vitest and jest match the full name (titles joined by spaces), node --test each title;
        # a tape file's one test, named by the file (`node_results`), is the file's run
        if only and not (runner == "node" and only[0] == rel):
            pattern = (
                js_regex(only[0].split(TITLE_SEP)[-1])
                if runner == "node"
                else full_name_pattern(only[0])
            )
        if runner in ("vitest", "jest"):
            exe = self._bin(ws, module, runner)
            if exe is None:
                return TestRun(crash=f"{runner} is not installed in {module}: run `npm ci` there")
            if runner == "vitest":
                argv = [exe, "run", target, "--reporter=json", f"--outputFile={out}", "--no-color"]
                argv.append(NO_COVERAGE["vitest"])
                if order is Order.RANDOM:
                    argv += ["--sequence.shuffle", f"--sequence.seed={seed}"]
            else:
                argv = [exe, "--ci", "--json", f"--outputFile={out}", "--runTestsByPath", target]
                argv.append(NO_COVERAGE["jest"])
                if order is Order.RANDOM and jest_randomizes(exe):
                    argv += ["--randomize", f"--seed={seed}"]
            if pattern:
                argv += ["-t", pattern]
        else:  # node --test: no random order before Node 22
            argv = [
                "node",
                "--test",
                "--test-reporter=junit",
                f"--test-reporter-destination={out}",
                target,
            ]
            if pattern:
                argv.insert(2, f"--test-name-pattern={pattern}")
        ran = self.exec(ws, [*argv, *self.conf.test_args], cwd=module)
        run = TestRun(exit_status=ran.result.returncode, duration_s=ran.result.duration_s)
        run.tests = node_results.results(out, rel, runner, ran.roots)
        if only:
            run.tests = {k: v for k, v in run.tests.items() if k.split(TEST_ID_SEP, 1)[1] in only}
        if ran.result.timed_out:  # whatever finished before, the file did not
            run.timed_out = True
            run.crash = f"{runner} timed out after {self.timeout_s:g} s"
        elif not run.tests:
            run.crash = ran.why(runner if runner != "node" else "node --test")
        return run
