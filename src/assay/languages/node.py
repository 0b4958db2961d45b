"""TypeScript and JavaScript: one runner for both, with the project's own test runner (vitest, jest,
or `node --test`) and its structured reporter (JSON, or JUnit XML for `node --test`).

Gate 1: TypeScript is type-checked with the project's `tsc` on a generated tsconfig that extends the
project's and holds only the candidate (so a broken sibling cannot fail it); JavaScript is checked
with `node --check`. Both fail closed: a file is never accepted unless its syntax and its execution
were both proven, so a missing `tsc` or test runner makes it `unvalidated`, never `accepted`. The
project's `node_modules` are linked read-only into the scratch copy, never copied, never written.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import (
    CompileResult,
    Order,
    Problem,
    RunStep,
    TestResult,
    TestRun,
    each_step,
)
from assay.execution.workspace import SKIP_DIRS, Workspace
from assay.languages import node_results, plans, vitest_plan
from assay.languages.compiler_output import tsc_errors
from assay.languages.node_results import TITLE_SEP
from assay.languages.plans import PlannedRun
from assay.languages.tooling import TEST_ID_SEP, ToolRunner, nearest, under
from assay.sandbox.view import hand_over

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project
    from assay.sandbox import Profile, Sandbox

# test runners a project may use that assay does not drive: their files are not judged
UNDRIVEN = ("mocha", "jasmine", "ava", "tap", "uvu")
_NODE_CHECK = re.compile(r"^(?P<file>.+?):(?P<line>\d+)$")
_JS_SPECIAL = re.compile(r"[.*+?^${}()|[\]\\/]")


def js_regex(text: str) -> str:
    return "^" + _JS_SPECIAL.sub(lambda m: "\\" + m.group(0), text) + "$"


def package_json(ws_project: Path, module: str) -> dict:
    try:
        return json.loads((ws_project / module / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


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
        self._lock = threading.Lock()

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
        deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
        return next(
            (r for r in ("vitest", "jest") if r in deps or self._bin(ws, module, r)), "node"
        )

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
                'vitest, jest and node --test); runner = "node" in its [tool.assay] language table '
                "if the file runs under node --test"
            )
        if runner == "node" and self.language == "typescript":
            return self.environment(
                f"no TypeScript test runner in {module}/package.json: add vitest "
                "(npm install --save-dev vitest) or jest with ts-jest"
            )
        checked = (
            self._tsc(ws, rel, module)
            if self.language == "typescript"
            else self._node_check(ws, rel)
        )
        if not checked.ok:
            return checked
        if runner in ("vitest", "jest") and self._bin(ws, module, runner) is None:
            return self.environment(
                f"{runner} is not installed in {module}: run `npm ci` (or npm install) there"
            )
        # collection is a first run (jest and node --test cannot list without running; `vitest
        # list` costs a start as long as a run), kept for gate 2's `run`
        key = (str(ws.project), rel)
        with self._lock:
            self._ran.pop(key, None)
        tree_before = ws.snapshot()
        run = self.run(ws, files)
        run.tree_before = tree_before
        crash = None if run.tests and not run.timed_out else run.crash
        load = run.tests.get(f"{rel}{TEST_ID_SEP}<file>")
        if runner == "vitest" and load is not None:  # the file did not load: nothing collected
            crash = f"vitest could not load {rel}:\n{load.message}"
        listed = CompileResult(
            collected=list(run.tests),
            crash=crash,
            timed_out=run.timed_out,
            duration_s=run.duration_s,
        )
        if listed.ok:
            with self._lock:
                self._ran[key] = (_bytes(ws.path(rel)), run)
        listed.raw_lines += checked.raw_lines
        listed.duration_s += checked.duration_s
        return listed

    def _tsc(self, ws: Workspace, rel: str, module: str) -> CompileResult:
        tsc = self._bin(ws, module, "tsc")
        if tsc is None and not self.conf.compile_command:
            return self.environment(
                f"TypeScript is not installed in {module}: run `npm install --save-dev "
                "typescript` (a .ts test is never accepted without a type check)"
            )
        base = nearest(ws.project, rel, ("tsconfig.json",)) or module
        config: dict = {
            "compilerOptions": {"noEmit": True, "incremental": False, "composite": False},
            "files": [under(base, rel)],
            "include": [],
        }
        if ws.path(f"{base}/tsconfig.json").exists():
            config["extends"] = "./tsconfig.json"
        else:
            config["compilerOptions"].update(
                {
                    "strict": True,
                    "skipLibCheck": True,
                    "module": "esnext",
                    "moduleResolution": "bundler",
                    "target": "es2022",
                }
            )
        cfg_rel = f"{base}/tsconfig.assay.json" if base != "." else "tsconfig.assay.json"
        ws.apply({cfg_rel: json.dumps(config)})
        argv = self.conf.compile_command or [
            str(tsc),
            "-p",
            "tsconfig.assay.json",
            "--pretty",
            "false",
        ]
        ran = self.exec(ws, argv, cwd=base)
        problems = tsc_errors(ran.text, ran.roots, base)
        mine = [p for p in problems if p.where == rel]
        if mine:
            return CompileResult(
                errors=mine, raw_lines=ran.raw_lines, duration_s=ran.result.duration_s
            )
        if ran.result.returncode != 0 and not problems:
            return CompileResult(
                crash=ran.why("tsc"), raw_lines=ran.raw_lines, duration_s=ran.result.duration_s
            )
        return CompileResult(raw_lines=ran.raw_lines, duration_s=ran.result.duration_s)

    def _node_check(self, ws: Workspace, rel: str) -> CompileResult:
        ran = self.exec(ws, self.conf.compile_command or ["node", "--check", rel])
        if ran.result.returncode == 0:
            return CompileResult(raw_lines=ran.raw_lines, duration_s=ran.result.duration_s)
        lines = ran.result.stderr.splitlines()
        where = next((m for ln in lines[:3] if (m := _NODE_CHECK.match(ln.strip()))), None)
        error = next((ln.strip() for ln in lines if re.match(r"^\w*Error: ", ln.strip())), None)
        if error is None:
            return CompileResult(crash=ran.why("node --check"), raw_lines=ran.raw_lines)
        line = int(where["line"]) if where else None
        return CompileResult(
            errors=[Problem(rel, error, line, "syntax")],
            raw_lines=ran.raw_lines,
            duration_s=ran.result.duration_s,
        )

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
        """Every run of gate 3 in one vitest instance (`vitest_plan`); a process per run for jest,
        `node --test`, a vitest without the Node API, or when `test_args` are configured."""
        rel = files[0]
        module = self._module(ws, rel)
        exe = self._bin(ws, module, "vitest") if self.test_runner(ws, module) == "vitest" else None
        vitest = vitest_plan.package_dir(exe) if exe and not self.conf.test_args else None
        if vitest is None:
            return each_step(self, ws, files, steps, ids)
        out_dir = ws.run_dir / f"vitest-plan-{len(list(ws.run_dir.glob('vitest-plan-*')))}"
        out_dir.mkdir(parents=True)
        hand_over(out_dir)  # the tests' uid writes the results
        names = {i: js_regex(i.split(TEST_ID_SEP, 1)[1].replace(TITLE_SEP, " ")) for i in ids or []}
        plan = out_dir / "plan.json"
        planned = vitest_plan.write(plan, out_dir, vitest, under(module, rel), steps, ids, names)
        timeout = self.timeout_s * len(planned) + 30
        ran = self.exec(ws, vitest_plan.argv(plan), cwd=module, timeout=timeout)

        def read(run: PlannedRun) -> dict[str, TestResult] | None:
            if not run.out.is_file():
                return None
            tests = node_results.results(run.out, rel, "vitest", ran.roots)
            return {k: v for k, v in tests.items() if run.ids is None or k in run.ids}

        found = plans.gather(planned, steps, read, ran.why("vitest"), ran.result.timed_out)
        return plans.redo_crashed(found, steps, lambda rest: each_step(self, ws, files, rest, ids))

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
        out = ws.run_dir / f"{runner}-{len(list(ws.run_dir.glob(f'{runner}-*')))}.out"
        target = under(module, rel)
        pattern = None
        # vitest and jest match the full name (titles joined by spaces), node --test each title
        if only:
            pattern = js_regex(
                only[0].split(TITLE_SEP)[-1]
                if runner == "node"
                else only[0].replace(TITLE_SEP, " ")
            )
        if runner in ("vitest", "jest"):
            exe = self._bin(ws, module, runner)
            if exe is None:
                return TestRun(crash=f"{runner} is not installed in {module}: run `npm ci` there")
            if runner == "vitest":
                argv = [exe, "run", target, "--reporter=json", f"--outputFile={out}", "--no-color"]
                if order is Order.RANDOM:
                    argv += ["--sequence.shuffle", f"--sequence.seed={seed}"]
            else:
                argv = [exe, "--ci", "--json", f"--outputFile={out}", "--runTestsByPath", target]
                if order is Order.RANDOM:
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
