"""JavaScript and TypeScript: StrykerJS, run from assay's own install (`~/.cache/assay/tools/`,
prepared once with the network: `.ci/toolchains`), in the scratch copy, offline.

Stryker runs in the package's directory of the copy, so its runner plugin resolves the project's
own test runner; `inPlace` mutates the copy's files (never the user's tree). The runner is the
project's (`package.json`): vitest, jest and mocha through Stryker's own runner plugins with
per-test coverage (a mutant runs only the tests that cover it, and the report names the tests that
kill it), the package's other test files taken out of the copy first (the plugins take no file
filter that works for all three); at gate 4 a mutant no test of the file runs is out of its score.
Node's own runner (`node --test`) goes through Stryker's command runner on the candidate files,
CommonJS tape files through assay's runner plugin (`stryker_tape`: in Stryker's worker, per
top-level tape test); both are scoped by V8's coverage of one run of the file (`stryker_scope`: the
code of the functions it runs), every test of the file counts as the killer of a detected mutant
(gate 2 sees a tape file as one test), and a mutant that loops for ever is stopped by a CPU limit
(command runner) or Stryker's hit limit (plugin). The mutation-testing-elements JSON
(`reporters: ["json"]`) is read back, Stryker's test names mapped onto gate 2's ids
(`<file>::describe > it`).

StrykerJS 9.6 is the pinned version: 10.x requires Node 22, Debian ships Node 20.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from assay.errors import RunFailed
from assay.feedback import relativize
from assay.languages import LANGUAGES
from assay.languages.compiler_output import node_error_tail
from assay.languages.js_targets import imported_files
from assay.languages.node import TITLE_SEP, package_json
from assay.languages.tooling import TEST_ID_SEP, nearest, under
from assay.mutation.model import (
    DETECTED,
    SAMPLE_UNRUN,
    Mutant,
    MutantResult,
    MutationResult,
    Status,
)
from assay.mutation.tools import stryker_mocha, stryker_observe, stryker_scope, stryker_tape
from assay.mutation.tools.base import ToolRequest, assemble, drop_other_tests, span_mutant
from assay.mutation.tools.js_text import exact_replacement
from assay.mutation.tools.scratch_run import ended
from assay.mutation.tools.stryker_mocha import project_mocha
from assay.mutation.tools.stryker_runners import (
    CORE,
    RUNNERS,
    STRYKER_VERSION,
    home,
    install_command,
    runner,
    runner_config,
    unsupported_runner,
)
from assay.sandbox.view import hand_over

CONFIG = ".assay-stryker.json"
REPORT = ".assay-stryker/mutation.json"
STATUS = {s.value: s for s in Status}
HERE = Path(__file__).parent
UNRUN = "assay: out of gate 4's scope (no test of the file runs this code)"


class Stryker:
    name = "stryker"
    # with vitest, jest and mocha; the command runner (node --test) names every test of the file
    per_test_kills = True

    def __init__(self, language: str):
        self.language = language

    def unavailable(self, request: ToolRequest) -> str | None:
        return None

    def problem(self, request: ToolRequest) -> str | None:
        if shutil.which("node") is None:
            return "StrykerJS needs Node.js: `node` not found on PATH (apt install nodejs npm)"
        module, _ = self._package(request)
        r = runner(request.root, module, request.settings.tool(self.language).runner)
        needed = [CORE, *([RUNNERS[r]] if r in RUNNERS else [])]
        for name in needed:
            if not (home() / "node_modules" / name / "package.json").is_file():
                return f"{name} {STRYKER_VERSION} is not installed for assay: {install_command()}"
        return unsupported_runner(request.root, module, r)

    def _package(self, request: ToolRequest) -> tuple[str, Path]:
        """The package (directory of the nearest package.json) of the request's files."""
        first = request.tests[0] if request.tests else request.targets[0]
        module = nearest(request.root, first, ("package.json",)) or "."
        return module, request.root / module

    def run(self, request: ToolRequest) -> MutationResult:
        start = time.monotonic()
        module, base = self._package(request)
        config: dict[str, Any] = {
            "mutate": [under(module, t) for t in request.targets],
            "reporters": ["json"],
            "jsonReporter": {"fileName": REPORT},
            "inPlace": True,
            "tempDirName": ".assay-stryker/tmp",
            "cleanTempDir": True,
            "concurrency": max(1, request.settings.mutation.workers or 2),
            "logLevel": "error",
            "fileLogLevel": "off",
            "allowEmpty": True,
        }
        tool = request.settings.tool(self.language)
        config |= runner_config(
            runner(request.root, module, tool.runner),
            [under(module, t) for t in request.tests],
            package_json(request.root, module),
            tool.test_args,
        )
        scoped, observed = None, None
        if config["testRunner"] != "command":
            kept = imported_files(request.root, request.tests)
            drop_other_tests(request, LANGUAGES[self.language], module, kept)
            own = project_mocha(request.root, base) if config["testRunner"] == "mocha" else None
            if own:
                plugin = home() / "node_modules" / RUNNERS["mocha"] / "dist/src"
                stryker_mocha.configure(config, base / ".assay-stryker", plugin, own)
            if request.executed_only and config["testRunner"] == "mocha":
                observed = base / ".assay-stryker"
                mocha = own or home() / "node_modules" / "mocha"
                self._observe(request, module, config, "mocha", mocha, start)
            if request.executed_only:
                stryker_scope.top_level_out(config, base / ".assay-stryker")
                if size := request.settings.mutation.sample:
                    stryker_scope.sample_out(config, base / ".assay-stryker", size)
        else:
            scoped = self._command_scope(request, module, config)
            if stryker_tape.fits(request.root, module, request.tests, request.targets):
                stryker_tape.configure(
                    config, base / ".assay-stryker", [request.root / t for t in request.tests]
                )
            elif request.executed_only:
                observed = base / ".assay-stryker"
                self._observe(request, module, config, "node", None, start)
        stryker_scope.logging_out(config, base / ".assay-stryker")
        (base / CONFIG).write_text(json.dumps(config, indent=2), encoding="utf-8")
        report = base / REPORT
        report.unlink(missing_ok=True)
        cli = home() / "node_modules/@stryker-mutator/core/bin/stryker.js"
        ran = request.exec(
            ["node", str(cli), "run", CONFIG],
            module,
            replace(LANGUAGES[self.language].profile_for(request.project), loopback=True),
            # names assay's own install to the sandbox, which hides the home it sits in and shows
            # back what a run names (read-only); it also resolves Stryker's plugins
            env={"NODE_PATH": str(home() / "node_modules")},
        )
        if ran.returncode == 0 and not ran.timed_out and not report.is_file():
            raise RunFailed(no_test_found(config["testRunner"], request.tests))
        if ran.returncode != 0 or not report.is_file():
            text = relativize(node_error_tail(ran.stdout + "\n" + ran.stderr), str(request.root))
            hint, size = "", request.settings.mutation.sample
            if ran.timed_out:  # said where to cut: it read only "timed out after 600 s"
                hint = (
                    f"; a lower `mutation.sample` ({size} now) runs fewer mutants"
                    if size
                    else "; `mutation.sample = 0` runs every mutant: a sample (100) runs fewer"
                )
            raise RunFailed(f"StrykerJS failed: {ended(ran, request.timeout_s)}{hint}\n{text}")
        data = json.loads(report.read_text(encoding="utf-8"))
        # no kills per test of gate 2's: each passing test of the file counts as the killer
        whole_file = config["testRunner"] in ("command", stryker_tape.NAME)
        mutants, results, sources = read_report(
            data, module, request.root, request.passing, whole_file, request.executed_only
        )
        note, cost = stryker_observe.settle(results, observed) if observed else ("", None)
        run = assemble(mutants, results, sources, request, time.monotonic() - start)
        run.scope_note, run.observer = note, cost
        run.per_test_kills = run.per_test_coverage = not whole_file
        run.complete_kills = whole_file  # Stryker's runners stop a mutant at its first failing test
        if scoped is not None and scoped.functions:
            run.scope = scoped.functions
        return run

    def _observe(
        self,
        request: ToolRequest,
        module: str,
        config: dict[str, Any],
        runner_name: str,
        mocha: Path | None,
        start: float,
    ) -> None:
        """Gate 4's observer on the survivors (`stryker_observe`), within gate 4's limit."""
        stryker_observe.configure(
            config,
            request.root / module / ".assay-stryker",
            runner_name,
            mocha,
            [under(module, t) for t in request.tests],
            request.root,
            request.targets,
            time.time() + request.timeout_s - (time.monotonic() - start) - 30,
        )

    def _command_scope(
        self, request: ToolRequest, module: str, config: dict[str, Any]
    ) -> stryker_scope.Scope | None:
        """The command runner's scope (`stryker_scope`): one run of the candidate under V8's
        coverage, and assay's ignorer plugin in `config`; None when that run gave no coverage
        (every mutant then runs, as before). That run's time also bounds a mutant's CPU."""
        base = request.root / module
        own = base / ".assay-stryker"
        own.mkdir(exist_ok=True)
        hand_over(own)  # Stryker writes its report and backups here as the tests' uid
        coverage = own / "v8"
        shutil.rmtree(coverage, ignore_errors=True)
        ran = request.exec(
            ["node", "--test", *(under(module, t) for t in request.tests)],
            module,
            LANGUAGES[self.language].profile_for(request.project),
            env={"NODE_V8_COVERAGE": str(coverage)},
        )
        # a mutant that computes for ever stops at the file's own time + 1 s of CPU (per process),
        # which load cannot stretch; Stryker's wall-clock timeout (x1.5 + 5 s of its dry run)
        # stays the backstop for one that sleeps: at x1.25 + 1 s, a survivor was called Timeout
        # (a kill) under load 37, and deepmerge had twice Stryker's own Timeouts
        command = config["commandRunner"]["command"]
        cpu = math.ceil(ran.duration_s + 1)
        config["commandRunner"]["command"] = f"ulimit -S -t {cpu} && {command}"
        seen = stryker_scope.read_coverage(coverage, request.root)
        if not seen:
            return None
        sources = {t: (request.root / t).read_text(encoding="utf-8") for t in request.targets}
        loading = self._loading(request, module, sources, own) if request.executed_only else None
        scoped = stryker_scope.scope(seen, sources, request.executed_only, loading)
        if scoped.segments:
            shutil.copyfile(HERE / "stryker_scope.mjs", own / "scope.mjs")
            (own / "scope.json").write_text(
                json.dumps(scoped.to_json(request.root)), encoding="utf-8"
            )
            # Stryker opens the project's files for writing too (EACCES on root's)
            hand_over(own / "scope.mjs", own / "scope.json")
            config["plugins"] = [*config.get("plugins", []), str(own / "scope.mjs")]
            config["ignorers"] = ["assay-scope"]
        return scoped

    def _loading(
        self, request: ToolRequest, module: str, sources: dict[str, str], own: Path
    ) -> dict[str, list[int]]:
        """What each target runs when it loads (one run importing each alone under V8's
        coverage): code run only then is out of gate 4's scope, as Python's import time is."""
        coverage = own / "v8-load"
        shutil.rmtree(coverage, ignore_errors=True)
        targets = [t for t in sources if t.endswith(stryker_scope.SCOPED_SUFFIXES)]
        if not targets:
            return {}
        ran = request.exec(
            ["node", "-e", stryker_scope.LOAD_SCRIPT, *(str(request.root / t) for t in targets)],
            module,
            LANGUAGES[self.language].profile_for(request.project),
            env={"NODE_V8_COVERAGE": str(coverage)},
        )
        loaded = {
            t for t in targets if f"assay-loaded {request.root / t}" in ran.stdout.splitlines()
        }
        return stryker_scope.load_counts(
            stryker_scope.read_coverage(coverage, request.root), sources, loaded
        )


def no_test_found(test_runner: str, tests: tuple[str, ...]) -> str:
    """Why a Stryker run ended 0 with no report: its dry run found no test (`allowEmpty`; Stryker
    logs "No tests were found" at info level, below the error level assay runs it at). It said
    "StrykerJS failed: exit 0" (path-to-regexp's index.spec.ts, whose cases file gate 4 had
    taken out of the copy)."""
    runner_name = "node --test" if test_runner == "command" else test_runner
    return (
        f"StrykerJS's dry run found no test in {', '.join(tests)}: its {runner_name} runner ran "
        "none (with the package's other test files out of the copy), so no mutant could be "
        "tried. A test file or setup the file needs may be among those left out, or its tests "
        "may not declare themselves under Stryker's runner"
    )


def read_report(
    data: dict[str, Any],
    module: str,
    root: Path,
    passing: tuple[str, ...] = (),
    whole_file: bool = False,
    unrun_out: bool = False,
) -> tuple[list[Mutant], dict[str, MutantResult], dict[str, str]]:
    """Stryker's mutation-testing-elements JSON (run in the project-relative `module` of the copy
    at `root`) as assay's mutants, results and sources; test names mapped onto `passing` ids.
    `whole_file` (the command runner): the report's one test, "All tests", stands for the file's
    tests: every passing test covers and kills what it does (it alone was credited: every test
    of the file was then `low_value`, "kills none of the mutants").
    `unrun_out` (gate 4): a mutant no test of the file runs (NoCoverage) is out of the file's
    score, Ignored with assay's reason, as out of the command runner's scope and Python's; unless
    the tests run none of the targets' mutants (all stay NoCoverage, counted)."""

    def rel(path: str) -> str:
        return os.path.normpath(PurePosixPath(module, path)).replace(os.sep, "/")

    # Stryker's vitest runner trims the joined title (destr's `it("{     ")` is "… {"): both
    # sides are compared trimmed, or such a test got no mutant of its own and was `low_value`
    by_name = {
        (
            t.split(TEST_ID_SEP, 1)[0],
            t.split(TEST_ID_SEP, 1)[-1].replace(TITLE_SEP, " ").strip(),
        ): t
        for t in passing
    }
    names: dict[str, str] = {}  # Stryker's test id -> gate 2's
    for path, entry in (data.get("testFiles") or {}).items():
        for test in entry.get("tests", []):
            key = (rel(path), test.get("name", ""))
            names[test["id"]] = by_name.get(
                (key[0], key[1].strip()), f"{key[0]}{TEST_ID_SEP}{key[1]}"
            )
    every = list(dict.fromkeys([*passing, *names.values()]))
    if whole_file and passing:
        names, every = {}, list(passing)
    mutants: list[Mutant] = []
    results: dict[str, MutantResult] = {}
    sources: dict[str, str] = {}
    for path, entry in data.get("files", {}).items():
        file = rel(path)
        source = sources[file] = entry.get("source") or (root / file).read_text("utf-8")
        for m in entry.get("mutants", []):
            loc = m["location"]
            mutant = span_mutant(
                f"stryker-{m['id']}",
                file,
                source,
                (loc["start"]["line"], loc["start"]["column"]),
                (loc["end"]["line"], loc["end"]["column"]),
                m.get("replacement", ""),
                m.get("mutatorName", "stryker"),
                reprint=exact_replacement,
            )
            status = STATUS.get(m.get("status", ""), Status.RUNTIME_ERROR)
            why = m.get("statusReason") or ""
            if status is Status.IGNORED and why == stryker_scope.REASONS[stryker_scope.OUT]:
                mutants.append(mutant)  # out of gate 4's scope: listed, not judged
                continue
            if status is Status.IGNORED and why == stryker_scope.REASONS[stryker_scope.NO_COVERAGE]:
                status = Status.NO_COVERAGE
            if status is Status.COMPILE_ERROR and why == stryker_scope.SAMPLE:
                status, why = Status.IGNORED, SAMPLE_UNRUN  # out of the sample: covered, not run
            killed = [names.get(t, t) for t in m.get("killedBy") or []]
            covered = [names.get(t, t) for t in m.get("coveredBy") or []]
            if whole_file and not names:
                killed = covered = []  # filled with `every` below
            if status in (Status.KILLED, Status.TIMEOUT) and not killed:  # command runner
                killed = every
            if status is not Status.NO_COVERAGE and not covered:
                covered = killed or every
            mutants.append(mutant)
            results[mutant.id] = MutantResult(
                status,
                covered_by=covered,
                killed_by=killed,
                tests_completed=int(m.get("testsCompleted") or 0),
                reason=why if status is not Status.SURVIVED else "",
            )
    if unrun_out and any(r.status in (*DETECTED, Status.SURVIVED) for r in results.values()):
        for r in results.values():
            if r.status is Status.NO_COVERAGE:
                r.status, r.reason = Status.IGNORED, UNRUN
    return mutants, results, sources
