"""Rust: `cargo test --no-run` for gate 1 (rustc's errors read from cargo's JSON messages), then the
test binary cargo built, run directly with libtest's JSON output, one thread (`--test-threads=1`).

An integration test `tests/NAME.rs` builds alone (`--test NAME`); a file under `src/` is judged by
the unit tests of its own module in the library's test binary. Dependencies come from the real
`~/.cargo/registry`, read-only, with `--offline` (the sandbox has no network); build output lives in
the workspace's cache for the session, so a repaired file recompiles in seconds. libtest's JSON
format and shuffling are unstable options, enabled for the test binary alone with RUSTC_BOOTSTRAP=1
(the build itself is untouched).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import CompileResult, Order, Problem, RunStep, TestRun, each_step
from assay.execution.workspace import Workspace
from assay.languages import binary_plan, libtest, rust_binaries
from assay.languages.base import Language, Toolchain, WritePlan
from assay.languages.binary_plan import BinaryRun
from assay.languages.compiler_output import cap, rel_path
from assay.languages.rust_manifest import register_test, write_plan
from assay.languages.rust_warm import BUILD_FILES, warm_target
from assay.languages.tested_sources import rust_sources
from assay.languages.tooling import (
    FETCH,
    OWN_CODE,
    TEST_ID_SEP,
    Ran,
    ToolRunner,
    module_files,
    nearest,
    under,
)
from assay.sandbox import Profile, Sandbox

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

_OFFLINE = re.compile(
    r"--offline|no matching package named|failed to (download|load source)|"
    r"attempting to make an HTTP request|failed to get `[^`]+` as a dependency"
)
_MOD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)


def _target(crate: str, rel: str) -> tuple[list[str], str]:
    """(cargo's target selection, module path prefix of the file's tests) of a test file."""
    inner = PurePosixPath(under(crate, rel))
    if inner.parts[0] == "tests" and len(inner.parts) == 2:
        return ["--test", inner.stem], ""
    if inner.parts[0] == "src":
        parts = list(inner.with_suffix("").parts[1:])
        if parts and parts[-1] in ("lib", "main", "mod"):
            parts.pop()
        if inner.parts[1:2] == ("bin",) or inner.name == "main.rs":
            return ["--bins"], "::".join(parts[1:] if parts[:1] == ["bin"] else parts)
        return ["--lib"], "::".join(parts)
    return ["--tests"], ""


# a build that could not write its files (base64's tests.rs: "could not write output to
# .../cargo-target/debug/deps/...o: Permission denied" was a compile error of the test)
_IO = re.compile(
    r"could not write output|Permission denied|No space left on device|Read-only file system|"
    r"Disk quota exceeded|Too many open files|failed to (write|create|open|remove|rename) "
)
IO_HINT = (
    "Not the file's fault: the build could not write its files here (permissions, disk space); "
    "run again, and report it if it happens again."
)


def _diagnostic(msg: dict, crate: str, roots: tuple[str, ...], root: Path) -> Problem | None:
    """One rustc error from cargo's JSON, at its primary span, with the span's label."""
    if msg.get("level") not in ("error", "error: internal compiler error"):
        return None
    spans = [s for s in msg.get("spans") or [] if s.get("is_primary")]
    code = (msg.get("code") or {}).get("code")
    text = (f"error[{code}]: " if code else "error: ") + msg.get("message", "")
    if not spans:  # no line of any file: the build's own failure, or the machine's
        return Problem("", text, None, "environment" if _IO.search(text) else "compile")
    span = spans[0]
    if span.get("label"):
        text += f": {span['label']}"
    where = rel_path(span.get("file_name", ""), roots, crate)
    if not (root / where).exists():  # cargo names files relative to the workspace root
        where = rel_path(span.get("file_name", ""), roots, "")
    return Problem(where, text, span.get("line_start"), "compile")


class RustRunner(ToolRunner):
    language = "rust"
    plan_forks = False  # gate 3's runs are processes, not forks: no extra reruns

    def __init__(
        self, sandbox: Sandbox, project: Project, settings: Settings, profile: Profile
    ) -> None:
        super().__init__(sandbox, project, settings, profile)
        self._binaries: dict[tuple[str, str], str] = {}  # (workspace, test file) -> test executable
        self._ran: set[str] = set()  # workspaces where a test binary ran (their builds not kept)
        # (workspace, test file) -> (test executable, the tests it listed): gate 2's run of the
        # whole file takes gate 1's list instead of a second `--list` in a sandbox of its own
        self._listed: dict[tuple[str, str], tuple[str, list[str]]] = {}

    def env_extra(self, ws: Workspace) -> dict[str, str]:
        env = {}
        for name, default in (("CARGO_HOME", "~/.cargo"), ("RUSTUP_HOME", "~/.rustup")):
            value = os.environ.get(name) or os.path.expanduser(default)
            if os.path.isdir(value):
                env[name] = value
        return env

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        rel = files[0]
        crate = nearest(ws.project, rel, ("Cargo.toml",)) or "."
        select, module = _target(crate, rel)
        register_test(ws.project, crate, rel)  # `autotests = false`: list it as a [[test]]
        conf = self.settings.tool("rust")
        argv = conf.compile_command or [
            "cargo",
            "test",
            "--offline",
            "--no-run",
            "--message-format=json",
            *select,
        ]
        key, fresh = None, False
        if not conf.compile_command:
            key = rust_binaries.key_of(self, ws, crate, rel, argv)
            kept = rust_binaries.reuse(ws, key) if key else None
            if kept is not None:  # built before from the same files: nothing to compile
                self._binaries[(str(ws.base), rel)] = kept
                return self._collect(ws, crate, rel, kept, module, 0, 0.0)
            # no test has run in this workspace yet: what cargo builds now can be kept
            fresh = str(ws.base) not in self._ran
            # the crate's warm build (`rust_warm`) before the workspace's first build
            warm_target(self, ws, crate)
        ran = self.exec(ws, argv, cwd=crate, timeout=max(self.timeout_s, 300))
        raw = ran.raw_lines
        problems: list[Problem] = []
        for line in ran.result.stdout.splitlines():
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if data.get("reason") == "compiler-message":
                found = _diagnostic(data.get("message") or {}, crate, ran.roots, ws.project)
                if found is not None:
                    problems.append(found)
            elif (
                data.get("reason") == "compiler-artifact"
                and data.get("executable")
                and (data.get("profile") or {}).get("test")
            ):
                self._binaries[(str(ws.base), rel)] = data["executable"]
                if key is not None and fresh and ran.result.returncode == 0:
                    # kept before anything of the candidate runs (its `--list` below is a run)
                    rust_binaries.keep(ws, key, data)
        if ran.result.returncode != 0:
            if ran.result.timed_out:  # the machine's time, whatever cargo printed before it
                return self.no_result(ran, "cargo test --no-run", raw, ran.result.duration_s)
            if not problems and _OFFLINE.search(ran.result.stderr):
                return self.environment(
                    f"a crate that {crate}/Cargo.toml needs is not in the cargo registry cache "
                    f"and the sandbox has no network: run `cargo fetch` in {crate}",
                    raw,
                    ran.result.duration_s,
                    FETCH,
                )
            io = [p for p in problems if p.kind == "environment"]
            if io:
                return self.environment(
                    f"cargo could not write the build: {io[0].message}",
                    raw,
                    ran.result.duration_s,
                    IO_HINT,
                )
            mine = [
                p for p in problems if p.where == rel or (p.where == "" and select[0] == "--test")
            ]
            if mine:
                return CompileResult(
                    errors=cap(mine), raw_lines=raw, duration_s=ran.result.duration_s
                )
            if problems:
                return self.environment(
                    "the crate does not build without this file: "
                    + "; ".join(f"{p.where}:{p.line}: {p.message}" for p in problems[:3]),
                    raw,
                    ran.result.duration_s,
                    OWN_CODE,
                )
            return self.no_result(ran, "cargo test --no-run", raw, ran.result.duration_s)
        exe = self._binaries.get((str(ws.base), rel))
        if exe is None:
            return CompileResult(
                crash="cargo built no test binary for this file",
                raw_lines=raw,
                duration_s=ran.result.duration_s,
            )
        return self._collect(ws, crate, rel, exe, module, raw, ran.result.duration_s)

    def _collect(
        self, ws: Workspace, crate: str, rel: str, exe: str, module: str, raw: int, took: float
    ) -> CompileResult:
        """Gate 1's result once the test binary is built: the file's own tests, as it lists them."""
        listed = self._exec_tests(ws, crate, exe, ["--list", "--format", "terse"])
        names = [
            ln[: -len(": test")]
            for ln in listed.result.stdout.splitlines()
            if ln.endswith(": test")
        ]
        if listed.result.returncode == 0:
            self._listed[(str(ws.base), rel)] = (exe, names)
        else:  # a pooled workspace's earlier candidate of the same path listed other tests
            self._listed.pop((str(ws.base), rel), None)
        names = self._own(ws, rel, names, module)
        return CompileResult(
            collected=[f"{rel}{TEST_ID_SEP}{n}" for n in names],
            raw_lines=raw,
            duration_s=took + listed.result.duration_s,
        )

    @staticmethod
    def _own(ws: Workspace, rel: str, names: list[str], module: str) -> list[str]:
        """The tests defined in this file: all of an integration test's; a source file's own
        module's only."""
        if not module and not rel.endswith(("lib.rs", "main.rs")):
            return names
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        others = set(_MOD_DECL.findall(source))  # tests of `mod x;` live in other files
        prefix = f"{module}::" if module else ""
        return [
            n
            for n in names
            if n.startswith(prefix) and n[len(prefix) :].split("::")[0] not in others
        ]

    def _exec_tests(self, ws: Workspace, crate: str, exe: str, args: list[str]) -> Ran:
        self._ran.add(str(ws.base))
        return self.exec(ws, [exe, *args], cwd=crate, env=self._test_env(ws, crate))

    @staticmethod
    def _test_env(ws: Workspace, crate: str) -> dict[str, str]:
        return {
            "RUSTC_BOOTSTRAP": "1",
            "RUST_BACKTRACE": "0",
            "CARGO_MANIFEST_DIR": str(ws.path(crate)),
        }

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
        crate = nearest(ws.project, rel, ("Cargo.toml",)) or "."
        exe = self._binaries.get((str(ws.base), rel))
        if exe is None or not Path(exe).exists():
            built = self.compile(ws, files)
            exe = self._binaries.get((str(ws.base), rel))
            if not built.ok or exe is None:
                return TestRun(
                    crash=built.crash
                    or "; ".join(p.message for p in built.errors[:3])
                    or "no test binary"
                )
            ids = ids or built.collected
        names = [i.split(TEST_ID_SEP, 1)[1] for i in ids] if ids else None
        if names is None:
            _, module = _target(crate, rel)
            seen = self._listed.get((str(ws.base), rel))
            if seen is not None and seen[0] == exe:  # the binary gate 1 listed
                all_names = seen[1]
            else:
                listed = self._exec_tests(ws, crate, exe, ["--list", "--format", "terse"])
                all_names = [
                    ln[:-6] for ln in listed.result.stdout.splitlines() if ln.endswith(": test")
                ]
            names = self._own(ws, rel, all_names, module)
        if isolate:
            total = TestRun()
            for name in names:
                one = self._libtest(ws, crate, exe, rel, [name], order, seed)
                total.tests.update(one.tests)
                total.duration_s += one.duration_s
                if one.crash and not one.tests:
                    total.crash, total.running = one.crash, f"{rel}{TEST_ID_SEP}{name}"
            return total
        return self._libtest(ws, crate, exe, rel, names, order, seed)

    def _libtest(
        self,
        ws: Workspace,
        crate: str,
        exe: str,
        rel: str,
        names: list[str],
        order: Order,
        seed: int,
    ) -> TestRun:
        args = self._libtest_args(names, order, seed)
        return libtest.results(rel, self._exec_tests(ws, crate, exe, args))

    def _libtest_args(self, names: list[str], order: Order, seed: int) -> list[str]:
        args = ["-Z", "unstable-options", "--format", "json", "--report-time"]
        args += ["--shuffle-seed", str(seed)] if order is Order.RANDOM else []
        return [*args, "--test-threads=1", "--exact", *self.settings.tool("rust").test_args, *names]

    def run_plan(
        self, ws: Workspace, files: list[str], steps: list[RunStep], ids: list[str] | None = None
    ) -> list[TestRun]:
        """Every run of gate 3 in one sandbox entry (`binary_plan`), each run still a process of
        its own; a sandbox entry per run while the test binary is not built."""
        rel = files[0]
        crate = nearest(ws.project, rel, ("Cargo.toml",)) or "."
        exe = self._binaries.get((str(ws.base), rel))
        if exe is None or not Path(exe).exists() or not ids:
            return each_step(self, ws, files, steps, ids)
        names = [i.split(TEST_ID_SEP, 1)[1] for i in ids]
        planned: list[tuple[int, str | None]] = []
        runs: list[BinaryRun] = []
        for n, s in enumerate(steps):
            for name in names if s.isolate else [None]:
                planned.append((n, name))
                argv = [exe, *self._libtest_args([name] if name else names, s.order, s.seed)]
                runs.append(BinaryRun(argv, s.last_if_failed))
        env = self._test_env(ws, crate)
        self._ran.add(str(ws.base))
        done = binary_plan.run_all(self, ws, runs, crate, self.timeout_s, env)
        out: list[TestRun] = []
        for (n, name), ran in zip(planned, done, strict=False):
            one = libtest.results(rel, ran)
            if name is None:
                out.append(one)
                continue
            if n == len(out):
                out.append(TestRun())
            out[-1].tests.update(one.tests)  # each test alone, as `run` merges them
            if one.crash and not one.tests:
                out[-1].crash, out[-1].running = one.crash, f"{rel}{TEST_ID_SEP}{name}"
        return out


@dataclass(frozen=True)
class RustLanguage(Language):
    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> RustRunner:
        return RustRunner(sandbox, project, settings, self.profile)

    def is_test_file(self, rel: str) -> bool:
        """Integration tests (`tests/*.rs`); a source file counts when it holds a `#[cfg(test)]`
        module, which only an explicit path finds."""
        parts = PurePosixPath(rel).parts
        return self.owns(rel) and len(parts) >= 2 and parts[-2] == "tests"

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        return rust_sources(project.root, source, rel)

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        crate = nearest(project.root, rel, ("Cargo.toml",)) or "."
        return module_files(project.root, crate, (".rs",), BUILD_FILES)

    def plan_tests(self, root: Path, source_rel: str, n: int = 1) -> WritePlan:
        """An integration test, `tests/<stem>_assay.rs` of the crate (`rust_manifest`)."""
        return write_plan(root, source_rel, n)


RUST = RustLanguage(
    name="rust",
    title="Rust",
    extensions=(".rs",),
    build_files=("Cargo.toml",),
    test_globs=("tests/*.rs",),
    compiled=True,
    toolchain=(
        Toolchain(
            "cargo",
            "install Rust with rustup (https://rustup.rs) or your package manager "
            "(apt install cargo)",
        ),
    ),
    profile=Profile(
        name="rust",
        passes=("RUSTUP_TOOLCHAIN",),
        memory="cgroup",
        env={
            "CARGO_TARGET_DIR": "{cache}/cargo-target",
            "CARGO_TERM_COLOR": "never",
            "CARGO_NET_OFFLINE": "true",
            "RUST_BACKTRACE": "0",
            # a candidate's test crate compiles once per workspace: rustc's incremental cache costs
            # a third more CPU (0.30 s against 0.20 s for semver's test_version.rs) and saves 0.01 s
            # on a repaired file's recompile (docs/languages.md, "Warm builds")
            "CARGO_INCREMENTAL": "0",
        },
    ),
    fences=("rust", "rs"),
    test_mark=r"#\[test\]",
    example="rust",
    smells=Language.Smells(
        "tree_sitter_rust:language",
        ("macro_invocation", "call_expression"),
        "rust",
        sleep=r"(^|::)thread::sleep$|^sleep$|tokio::time::sleep$",
        mocks=r"^Mock\w+::(new|default)$",
    ),
)
