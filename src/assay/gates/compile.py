"""Gate 1: the file compiles (for Python: parses, and pytest can import it and collect
its tests)."""

from __future__ import annotations

import re
import time

from assay.dependencies.installed import Installed
from assay.feedback import collection_summary, compose, trim
from assay.gates.base import BaseGate, GateContext
from assay.gates.green import environment_details
from assay.gates.swallowed import left_undefined
from assay.languages.tooling import FETCH, OTHER_PLUGIN, OWN_CODE
from assay.model import Candidate, GateResult, GateStatus, Verdict

HEADER = "REJECT: Gate 1 — COMPILE ERROR"
HINT = "Fix the compile errors: check imports, types, API compatibility."
CONFTEST_HEADER = "UNVALIDATED: Gate 1 — THE PROJECT'S CONFTEST DOES NOT LOAD"
CONFTEST_HINT = (
    "No test of this directory can run here: install what the project tests with (its test "
    "requirements, a pytest it supports) in the test interpreter, or fix the conftest."
)
# pytest's words for a conftest that failed to register or import, and a traceback frame in one
_CONFTEST = re.compile(
    r"Plugin '([^']*conftest\.py)'|while loading conftest '([^']*conftest\.py)'"
    r"|File \"([^\"]*conftest\.py)\""
)
SKIPPED_HEADER = "UNVALIDATED: Gate 1 — THE FILE SKIPS ITSELF"
SKIPPED_HINT = (
    "Not judged: give the file what its skip asks for (a module, a server, a platform) and run "
    "again."
)
COMPILED_OUT_HEADER = "UNVALIDATED: Gate 1 — THE FILE'S TESTS ARE COMPILED OUT"
COMPILED_OUT_HINT = (
    "The file builds only under a cfg this build does not set (a cargo feature off by default): "
    "assay builds with the crate's default features."
)
# a Rust file's inner `#![cfg(...)]`: the whole file is left out unless its condition holds
_FILE_CFG = re.compile(r"^\s*#!\[cfg\((.*)\)\]\s*$", re.M)
ENVIRONMENT_HINT = "Not the file's fault: do what the line above says, then run again."
# the summary line's advice (`EnvironmentGap.describe`) for each cause's hint
ENVIRONMENT_TODO = {
    FETCH: "fetch the project's dependencies once and run again",
    OWN_CODE: "fix the project's build and run again",
    OTHER_PLUGIN: "fix what that plugin reports and run again",
}
TIMEOUT_HEADER = "UNVALIDATED: Gate 1 — THE COMPILER DID NOT FINISH IN TIME"
TIMEOUT_HINT = (
    "Not the file's fault: run again when the machine is less busy, or raise "
    "[tool.assay.sandbox] timeout_s (now {timeout} s)."
)
DESELECTED_HEADER = "UNVALIDATED: Gate 1 — THE PROJECT'S PYTEST CONFIGURATION LEAVES THE FILE OUT"
DESELECTED_HINT = (
    "Not judged: pytest collects these tests and the project's own selection deselects every "
    "one (its authors run them apart). To judge them, give assay the selection that runs them: "
    '[tool.assay.python] pytest_args = ["-m", "..."].'
)
HOOK_HEADER = "UNVALIDATED: Gate 1 — TESTS PYTEST DOES NOT RUN"
HOOK_HINT = (
    "Not judged: pytest collects `test_*` functions and `Test*` classes, not a suite a loading "
    "hook builds; write the checks as tests (a doctest file: `pytest --doctest-glob`) to have "
    "them judged."
)
# unittest's and setuptools' loading hooks (`load_tests`, setup.py's `test_suite` target's
# `additional_tests`, `suite`): a file of only these builds its tests where pytest never looks
_HOOKS = re.compile(r"^def (load_tests|additional_tests|suite)\(", re.M)
NO_TESTS_HINT = (
    "pytest collects top-level `test_*` functions and `test_*` methods of `Test*` classes "
    "without `__init__`: name the tests so, or leave a file that holds none out of the run."
)
# any other language's file with no test (it compiled: "fix the compile errors" misled)
NO_TEST_HINT = (
    "The file declares no test the runner collects: add tests, or leave a file of shared cases "
    "or helpers out of the run (its name need not look like a test file's)."
)
MISSING_HEADER = "UNVALIDATED: Gate 1 — MISSING DEPENDENCY"
MISSING_HINT = (
    "Install the project's test dependencies for "
    "{python}, or set [tool.assay.python] interpreter to "
    "a Python that has them."
)


class CompileGate(BaseGate):
    name = "compile"
    provides = ("collected",)

    def run(self, candidate: Candidate, ctx: GateContext) -> GateResult:
        start = time.monotonic()

        def reject(body: list[str], hint: str = HINT, **details: object) -> GateResult:
            return GateResult(
                self.name,
                GateStatus.REJECT,
                time.monotonic() - start,
                compose(HEADER, body, hint),
                details=details,
            )

        def unvalidated(header: str, body: list[str], hint: str, **details: object) -> GateResult:
            """The environment cannot judge the file (never the test's fault, never cached)."""
            return GateResult(
                self.name,
                GateStatus.SKIP,
                time.monotonic() - start,
                compose(header, body, hint),
                verdict=Verdict.UNVALIDATED,
                details=details,
            )

        if candidate.read_error:
            return reject([f"{candidate.rel}: {candidate.read_error}"])
        # dynamic languages always fail closed
        if not ctx.settings.compile_validation and ctx.language.compiled:
            return GateResult(
                self.name,
                GateStatus.SKIP,
                0.0,
                "SKIP: Gate 1 — COMPILE NOT RUN ON ITS OWN\n"
                "compile_validation is off: the compiler runs with the tests at gate 2",
                details={"reason": "compile_validation = false"},
            )
        result = ctx.runner.compile(ctx.workspace, [candidate.rel])
        environment = [e for e in result.errors if e.kind == "environment"]
        # the machine or the project cannot build the file as it is (dependencies not in the
        # cache, the project's own code, another build plugin): no verdict, advice by the cause
        if environment:
            hint = environment[0].hint or ENVIRONMENT_HINT
            python = getattr(ctx.runner, "python", None)  # the test interpreter lacks a plugin
            return unvalidated(
                "UNVALIDATED: Gate 1 — BUILD ENVIRONMENT",
                [e.message for e in environment],
                hint,
                environment=environment_details({environment[0].message: []}, python)
                if python
                else environment[0].message,
                todo=ENVIRONMENT_TODO.get(hint, "do what it says and run again"),
            )
        late = [e for e in result.errors if e.kind == "timeout"]
        if late:  # the compiler ran out of time: the machine's, the test has not run
            timeout = ctx.settings.sandbox.timeout_s
            return unvalidated(
                TIMEOUT_HEADER,
                [f"{candidate.rel}: {late[0].message}"],
                TIMEOUT_HINT.format(timeout=f"{timeout:g}"),
                timeout=late[0].message,  # not an `environment` gap: nothing to install
            )
        located = [e for e in result.errors if e.kind in ("syntax", "compile")]
        if located:  # the compiler's own errors, at their lines
            details = (
                {"compile_errors": len(located), "raw_lines": result.raw_lines}
                if result.raw_lines
                else {}
            )
            return reject(
                [
                    f"{e.where}:{e.line}: {e.message}" if e.line else f"{e.where}: {e.message}"
                    for e in located
                ],
                hint=next((e.hint for e in located if e.hint), HINT),
                **details,
            )
        if result.timed_out:  # not a compile error (collecting by running: jest, node --test)
            return GateResult(
                self.name,
                GateStatus.REJECT,
                time.monotonic() - start,
                compose(
                    "REJECT: Gate 1 — TIMEOUT",
                    [f"{candidate.rel}: {result.crash}"],
                    "A test never ends: look for an endless loop or a wait on something that "
                    "never comes.",
                ),
            )
        if result.crash:
            conftest = broken_conftest(result.crash, candidate.rel)
            if conftest:  # the project's setup, not this file: every test of the directory fails
                cause = f"{conftest} does not load: {result.crash.strip().splitlines()[-1]}"
                return unvalidated(
                    CONFTEST_HEADER, [f"{candidate.rel}: {cause}"], CONFTEST_HINT, environment=cause
                )
            return reject([f"{candidate.rel}: collection did not finish: {trim(result.crash)}"])
        if result.errors:
            python = getattr(ctx.runner, "python", None)
            installed = Installed(python) if python else None
            deps = ctx.project.dependencies
            undefined = [
                left_undefined(candidate.source, e.message, installed) for e in result.errors
            ]
            gaps = [
                deps.gap([e.message, *(u[1] if u else [])], installed)
                for e, u in zip(result.errors, undefined, strict=True)
            ]
            # the environment lacks something the project itself needs: no verdict on the test
            if all(gaps):
                where_per_gap: dict[str, list[str]] = {}
                reasons: dict[str, str] = {}
                for e, gap, u in zip(result.errors, gaps, undefined, strict=True):
                    assert gap is not None
                    where_per_gap.setdefault(gap.label, []).append(e.where)
                    # the file's `except ImportError` hid it until a name of it was used
                    reasons[gap.label] = gap.reason + (
                        f"; without it {u[0]!r} is undefined" if u else ""
                    )
                body = [
                    f"{candidate.rel}: {reasons[label]}"
                    + (f" ({len(ws)} tests)" if len(ws) > 1 else "")
                    for label, ws in where_per_gap.items()
                ]
                return unvalidated(
                    MISSING_HEADER,
                    body,
                    MISSING_HINT.format(python=python or "the test interpreter"),
                    missing_dependencies=len(body),
                    environment=environment_details(where_per_gap, python),
                )
            return reject(
                [f"{e.where}: {collection_summary(e.message)}" for e in result.errors],
                collection_errors=len(result.errors),
            )
        if not result.collected and (gate := compiled_out(candidate.source)):
            return unvalidated(
                COMPILED_OUT_HEADER,
                [f"{candidate.rel}: {gate}"],
                COMPILED_OUT_HINT,
                reason=f"compiled out by {gate}",
            )
        if not result.collected and result.module_skip:
            why = f"pytest skipped the whole file at collection: {result.module_skip}"
            return unvalidated(
                SKIPPED_HEADER, [f"{candidate.rel}: {why}"], SKIPPED_HINT, environment=why
            )
        if not result.collected and result.deselected_by:
            # jsonpath-ng's PyInstaller tests (`-m "not pyinstaller"` in its addopts) were "no
            # test_* functions"
            why = f"every test of the file is deselected by {result.deselected_by}"
            return unvalidated(
                DESELECTED_HEADER, [f"{candidate.rel}: {why}"], DESELECTED_HINT, reason=why
            )
        if not result.collected and candidate.language == "python":
            if hook := _HOOKS.search(candidate.source):
                why = (
                    f"no test pytest collects: its tests are built by {hook.group(1)}(), a "
                    "unittest/setuptools loading hook pytest does not call"
                )
                return unvalidated(HOOK_HEADER, [f"{candidate.rel}: {why}"], HOOK_HINT, reason=why)
            return reject(
                [f"{candidate.rel}: no tests collected (no test_* functions or Test* classes)"],
                NO_TESTS_HINT,
            )
        if not result.collected:
            return reject([f"{candidate.rel}: no tests collected (no test found)"], NO_TEST_HINT)
        ctx.facts.collected = result.collected
        return GateResult(
            self.name,
            GateStatus.PASS,
            time.monotonic() - start,
            details={"collected": len(result.collected)},
        )


def broken_conftest(crash: str, candidate: str) -> str | None:
    """The conftest a collection crash happened in (the last one its traceback names), unless the
    candidate is that conftest: a project whose conftest does not load under the test
    interpreter's pytest (boltons 24.0.0's `pytest_ignore_collect(path, config)` under pytest 9)
    cannot judge any test file."""
    found = [next(g for g in m.groups() if g) for m in _CONFTEST.finditer(crash)]
    if not found or found[-1].endswith(candidate):
        return None
    return found[-1]


def compiled_out(source: str) -> str | None:
    """The `#![cfg(...)]` that leaves a whole Rust file out of the build, when it names a feature
    (hex's tests/serde.rs: `#![cfg(all(feature = "serde", feature = "alloc"))]`): no test is then
    the build's doing, not the file's, and it was rejected as a compile error."""
    found = _FILE_CFG.search(source)
    return f"#![cfg({found.group(1)})]" if found and "feature" in found.group(1) else None
