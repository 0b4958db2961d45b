"""A toy language, to prove that adding a language is this module plus one line in
`languages.LANGUAGES`.

A toylang test file (`*_test.toy`) holds lines `test NAME: EXPRESSION`; the runner checks each line
at gate 1 and runs each test as its own real process in the sandbox (a Python interpreter evaluating
the expression), passing the language's `[tool.assay.toylang] test_args` to it."""

from __future__ import annotations

import re
import sys

from assay.config import Settings
from assay.execution.runner import CompileResult, Order, Outcome, Problem, TestResult, TestRun
from assay.execution.workspace import Workspace
from assay.languages.base import Language
from assay.languages.tooling import TEST_ID_SEP, ToolRunner
from assay.project import Project
from assay.sandbox import Sandbox

LINE = re.compile(r"^test (\w+): (.+)$")
EVAL = "import sys; sys.exit(0 if eval(sys.argv[1]) else 1)"


def tests_of(source: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """Tests by name, and the lines that are neither a test, a comment nor blank."""
    tests, bad = {}, []
    for n, line in enumerate(source.splitlines(), 1):
        if m := LINE.match(line):
            tests[m.group(1)] = m.group(2)
        elif line.strip() and not line.startswith("#"):
            bad.append((n, line))
    return tests, bad


class ToyRunner(ToolRunner):
    language = "toylang"

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        rel = files[0]
        tests, bad = tests_of(ws.path(rel).read_text(encoding="utf-8"))
        if bad:
            return CompileResult(
                errors=[Problem(rel, f"not a test line: {text}", n, "compile") for n, text in bad]
            )
        return CompileResult(collected=[f"{rel}{TEST_ID_SEP}{name}" for name in tests])

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
        tests, _ = tests_of(ws.path(rel).read_text(encoding="utf-8"))
        out = TestRun(collected=[f"{rel}{TEST_ID_SEP}{name}" for name in tests])
        for name, expression in tests.items():
            test_id = f"{rel}{TEST_ID_SEP}{name}"
            if ids and test_id not in ids:
                continue
            ran = self.exec(
                ws,
                [sys.executable, "-c", EVAL, expression, *self.settings.tool("toylang").test_args],
            )
            passed = ran.result.returncode == 0
            out.tests[test_id] = TestResult(
                test_id,
                Outcome.PASSED if passed else Outcome.FAILED,
                ran.result.duration_s,
                "" if passed else f"false: {expression}",
            )
            out.duration_s += ran.result.duration_s
        return out


class ToyLanguage(Language):
    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> ToyRunner:
        return ToyRunner(sandbox, project, settings, self.profile)


TOY = ToyLanguage(
    name="toylang",
    title="Toylang",
    extensions=(".toy",),
    test_globs=("*_test.toy",),
    fences=("toy",),
    test_mark=r"^test \w+:",
)
