"""C#: `dotnet build` of the test project for gate 1 (the compiler's `file(line,col): error CSxxxx`
lines), then `dotnet test --filter` with a TRX logger for runs, offline (`--no-restore`: packages
must already be restored).

Without .NET on the machine every C# file is `unvalidated` with one line saying how to get `dotnet`;
that path is the one the test suite exercises here, where .NET is not installed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import CompileResult, Order, Outcome, TestResult, TestRun
from assay.execution.workspace import Workspace
from assay.languages.base import Language, Toolchain
from assay.languages.compiler_output import csc_errors
from assay.languages.tooling import FETCH, OWN_CODE, TEST_ID_SEP, ToolRunner, module_files, nearest
from assay.sandbox import Profile, Sandbox

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

_TEST_ATTR = re.compile(
    r"\[\s*(?:Fact|Theory|Test|TestCase|TestMethod|DataTestMethod)\b[^\]]*\]\s*"
    r"(?:\[[^\]]*\]\s*)*public\s+(?:async\s+)?[\w<>]+\s+(\w+)\s*\(",
    re.S,
)
_CLASS = re.compile(r"\bclass\s+(\w+)")
_NAMESPACE = re.compile(r"^\s*namespace\s+([\w.]+)", re.M)
_RESTORE = re.compile(
    r"NETSDK1004|assets file .* not found|NU1101|NU1301|Unable to load the service index"
)
DOTNET_INSTALL = (
    "install the .NET SDK 8 or newer (https://dotnet.microsoft.com/download, or apt install "
    "dotnet-sdk-8.0 from Microsoft's package feed)"
)


def test_methods(source: str) -> list[str]:
    return list(dict.fromkeys(_TEST_ATTR.findall(source)))


class CSharpRunner(ToolRunner):
    language = "csharp"

    def _project(self, ws: Workspace, rel: str) -> str:
        return nearest(ws.project, rel, ("*.csproj",)) or "."

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        rel = files[0]
        proj = self._project(ws, rel)
        argv = self.settings.tool("csharp").compile_command or [
            "dotnet",
            "build",
            "--no-restore",
            "-nologo",
            "-clp:ErrorsOnly;NoSummary",
            "-v:q",
        ]
        ran = self.exec(ws, argv, cwd=proj, timeout=max(self.timeout_s, 600))
        if ran.result.returncode != 0:
            problems = csc_errors(ran.text, ran.roots, proj)
            mine = [p for p in problems if p.where == rel]
            if mine:
                return CompileResult(
                    errors=mine, raw_lines=ran.raw_lines, duration_s=ran.result.duration_s
                )
            if ran.result.timed_out:  # the machine's time, whatever dotnet printed before it
                return self.no_result(ran, "dotnet build", ran.raw_lines, ran.result.duration_s)
            if _RESTORE.search(ran.text):
                return self.environment(
                    f"the NuGet packages of {proj} are not restored and the sandbox has no "
                    f"network: run `dotnet restore` in {proj}",
                    ran.raw_lines,
                    hint=FETCH,
                )
            if problems:
                return self.environment(
                    "the project does not build without this file: "
                    + "; ".join(f"{p.where}:{p.line}: {p.message}" for p in problems[:3]),
                    ran.raw_lines,
                    hint=OWN_CODE,
                )
            return self.no_result(ran, "dotnet build", ran.raw_lines, ran.result.duration_s)
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        return CompileResult(
            collected=[f"{rel}{TEST_ID_SEP}{m}" for m in test_methods(source)],
            raw_lines=ran.raw_lines,
            duration_s=ran.result.duration_s,
        )

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
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        ns = _NAMESPACE.search(source)
        cls = _CLASS.search(source)
        fqcn = ".".join(
            p
            for p in (ns.group(1) if ns else "", cls.group(1) if cls else PurePosixPath(rel).stem)
            if p
        )
        names = [i.split(TEST_ID_SEP, 1)[1] for i in ids] if ids else []
        groups = [[n] for n in names] if isolate else [names]
        total = TestRun()
        # order: the runners of .NET have no seeded random order; runs keep the file's
        for group in groups:
            filt = (
                "|".join(f"FullyQualifiedName={fqcn}.{n}" for n in group)
                or f"FullyQualifiedName~{fqcn}"
            )
            trx = ws.run_dir / f"trx-{len(list(ws.run_dir.glob('trx-*')))}"
            argv = [
                "dotnet",
                "test",
                "--no-restore",
                "--no-build",
                "-nologo",
                "--filter",
                filt,
                "--logger",
                "trx;LogFileName=result.trx",
                "--results-directory",
                str(trx),
                *self.settings.tool("csharp").test_args,
            ]
            ran = self.exec(ws, argv, cwd=self._project(ws, rel))
            tests = read_trx(trx / "result.trx", rel)
            total.tests.update(tests)
            total.duration_s += ran.result.duration_s
            if not tests:
                total.crash = ran.why("dotnet test")
        return total


def read_trx(path: Path, rel: str) -> dict[str, TestResult]:
    """Per-test outcomes of a TRX file (the test's method name, its outcome, its error message)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}
    out: dict[str, TestResult] = {}
    for result in root.iter():
        if not result.tag.endswith("UnitTestResult"):
            continue
        name = (result.get("testName") or "").rsplit(".", 1)[-1]
        outcome = {
            "Passed": Outcome.PASSED,
            "Failed": Outcome.FAILED,
            "NotExecuted": Outcome.SKIPPED,
        }.get(result.get("outcome") or "", Outcome.ERROR)
        message = "".join(e.text or "" for e in result.iter() if e.tag.endswith("Message"))
        test_id = f"{rel}{TEST_ID_SEP}{name}"
        out[test_id] = TestResult(test_id, outcome, 0.0, message.strip())
    return out


@dataclass(frozen=True)
class CSharpLanguage(Language):
    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> CSharpRunner:
        return CSharpRunner(sandbox, project, settings, self.profile)

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        proj = nearest(project.root, rel, ("*.csproj",)) or "."
        return module_files(project.root, proj, (".cs", ".csproj"), ())


CSHARP = CSharpLanguage(
    name="csharp",
    title="C#",
    extensions=(".cs",),
    build_files=("*.csproj", "*.sln"),
    test_globs=("*Tests.cs", "*Test.cs"),
    compiled=True,
    toolchain=(Toolchain("dotnet", DOTNET_INSTALL),),
    profile=Profile(
        name="csharp",
        passes=("DOTNET_ROOT",),
        memory="cgroup",
        max_processes=1024,
        keep=("bin", "obj"),
        env={
            "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
            "DOTNET_NOLOGO": "1",
            "NUGET_PACKAGES": "{user_home}/.nuget/packages",
            "DOTNET_CLI_HOME": "{home}",
        },
    ),
    smells=Language.Smells(
        "tree_sitter_c_sharp:language",
        ("invocation_expression", "object_creation_expression"),
        "csharp",
        sleep=r"^(Thread\.Sleep|Task\.Delay|await Task\.Delay)$",
        mocks=r"^(new Mock<.*>|Substitute\.For(<.*>)?|A\.Fake(<.*>)?|Mock\.Of(<.*>)?)$",
    ),
)
