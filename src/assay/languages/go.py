"""Go: `go vet` and a test build of the package for gate 1, `go test -json` for runs, in the module
of the nearest `go.mod`.

Dependencies come from the real module cache, read-only, with the proxy off (the sandbox has no
network): a module the cache lacks makes the file `unvalidated` with the command that fetches it.
The build cache is assay's own (`~/.cache/assay/go-build`), shared across runs and writable in the
sandbox, because an empty one rebuilds the standard library for a minute on every run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import (
    CompileResult,
    Order,
    RunStep,
    TestRun,
    each_step,
)
from assay.execution.workspace import Workspace
from assay.languages import binary_plan, go_binaries
from assay.languages.base import Language, Toolchain, WritePlan
from assay.languages.binary_plan import BinaryRun
from assay.languages.compiler_output import go_errors
from assay.languages.go_binary import TestBinary, events, json_events, results, sources_state
from assay.languages.go_cache import (
    GO_CACHE,
    hold_fresh,
    module_cache,
    module_imports,
    std_imports,
    warm_build_cache,
    warm_std,
)
from assay.languages.go_requirements import warm_requirements
from assay.languages.go_source import spawning_tests, test_names, write_plan
from assay.languages.tested_sources import go_sources
from assay.languages.tooling import (
    FETCH,
    OWN_CODE,
    TEST_ID_SEP,
    ToolRunner,
    module_files,
    nearest,
    outside_errors,
    slug,
    under,
)
from assay.sandbox import Profile, Sandbox, assay_cache

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

# a module go.mod requires is not downloaded (an import no required module provides is the test's
# own error)
_MISSING_MODULE = re.compile(r"GOPROXY=off|missing go\.sum entry|updates to go\.mod needed")


class GoRunner(ToolRunner):
    language = "go"
    plan_forks = False  # gate 3's runs are processes, not forks: no extra reruns

    def __init__(
        self, sandbox: Sandbox, project: Project, settings: Settings, profile: Profile
    ) -> None:
        super().__init__(sandbox, project, settings, profile)
        # (workspace, test file) -> its package's test binary, built at gate 1
        self._binaries: dict[tuple[str, str], TestBinary] = {}
        self._ran: set[str] = set()  # workspaces where tests ran (their builds not kept)

    def _binary_path(self, ws: Workspace, rel: str) -> Path:
        return ws.cache_dir / "go-test" / (slug(PurePosixPath(rel).parent.as_posix()) + ".test")

    def _state(self, ws: Workspace, rel: str) -> tuple:
        module, _ = self._package(ws, rel)
        return sources_state(ws, ws.path(rel).parent, ws.path(module))

    def _fresh_binary(self, ws: Workspace, rel: str) -> Path | None:
        """The test binary gate 1 built, if the package has not changed since."""
        built = self._binaries.get((str(ws.base), rel))
        if built is None or not built.path.exists() or built.built_from != self._state(ws, rel):
            return None
        return built.path

    def env_extra(self, ws: Workspace) -> dict[str, str]:
        cache = module_cache()
        return {"GOMODCACHE": cache} if cache else {}

    def _package(self, ws: Workspace, rel: str) -> tuple[str, str]:
        """(module directory, package path as `go` takes it from there) of a test file."""
        module = nearest(ws.project, rel, ("go.mod",)) or "."
        pkg = under(module, rel).rsplit("/", 1)
        return module, "./" + (pkg[0] if len(pkg) == 2 else ".")

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        """`go vet` on the package (type-checks the tests), then `go test -c` (links the
        test binary). Sibling test files of the package that do not build are taken out of the
        scratch copy and the build tried again: the candidate is judged alone. `go vet`'s findings
        alone reject nothing: the build vets as `go test` does."""
        rel = files[0]
        module, pkg = self._package(ws, rel)
        raw, duration = 0, 0.0
        binary = self._binary_path(ws, rel)
        binary.parent.mkdir(parents=True, exist_ok=True)
        self._binaries.pop((str(ws.base), rel), None)
        key = go_binaries.key_of(self, ws, rel, ["go", "vet", "test", "-c", module, pkg])
        kept = go_binaries.reuse(ws, key) if key else None
        if kept is not None:  # built before from the same files: no vet, compile nor link
            self._binaries[(str(ws.base), rel)] = TestBinary(
                kept.path, self._state(ws, rel), kept.built_in
            )
            return self._collected(ws, rel, 0, 0.0)
        # the standard library's packages it needs, built in the shared cache (not in this layer)
        warm_std(std_imports(ws.path(module), ws.path(rel).parent))
        self._warm_requirements(ws, module, rel)
        # kept only from a clean build (vet passed, no sibling taken out) before any test ran
        clean = key is not None and str(ws.base) not in self._ran
        # vet type-checks the tests; the test binary is linked once, for every run that follows
        for step in (["go", "vet", pkg], ["go", "test", "-c", "-o", str(binary), pkg]):
            if step[1] == "test" and clean:
                step = [*step[:2], "-vet=off", *step[2:]]  # `go vet` ran every check it runs
            for _attempt in range(4):
                # a build is not a test run: the timeout's allowance for it, as at gate 2
                ran = self.exec(ws, step, cwd=module, timeout=self.timeout_s + 30)
                raw += ran.raw_lines
                duration += ran.result.duration_s
                if ran.result.returncode == 0:
                    break
                clean = False
                if ran.result.timed_out:  # the machine's time, whatever go printed before it
                    return self.no_result(ran, " ".join(step[:2]), raw, duration)
                if (
                    _MISSING_MODULE.search(ran.text)
                    and "cannot find module providing" not in ran.text
                ):
                    gomod = "go.mod" if module == "." else f"{module}/go.mod"
                    return self.environment(
                        f"a module that {gomod} requires is not in the module cache "
                        "(or go.sum lacks it) and the sandbox has no network: run `go mod "
                        f"download` in {module}",
                        raw,
                        duration,
                        FETCH,
                    )
                if step[1] == "vet":
                    # `go test` vets with a subset of vet's checks (`go help test`): what only
                    # `go vet` finds (xxhash's assembly frames, a lock copied in a test) fails
                    # no `go test`, and its text may name no Go line; the build, vetting as
                    # `go test` does, decides, and takes out broken sibling tests
                    break
                problems = go_errors(ran.text, ran.roots, module)
                if not problems:
                    return self.no_result(ran, " ".join(step[:2]), raw, duration)
                if not outside_errors(problems, rel):
                    return CompileResult(
                        errors=[p for p in problems if p.where == rel],
                        raw_lines=raw,
                        duration_s=duration,
                    )
                siblings = {p.where for p in problems if p.where.endswith("_test.go")}
                # other tests of the package that do not build: judge the candidate alone
                if siblings:
                    ws.apply(dict.fromkeys(siblings))
                    continue
                return self.environment(
                    "the package does not build without this file: "
                    + "; ".join(f"{p.where}:{p.line}: {p.message}" for p in problems[:3]),
                    raw,
                    duration,
                    OWN_CODE,
                )
            else:
                return CompileResult(
                    crash="sibling test files kept failing the build",
                    raw_lines=raw,
                    duration_s=duration,
                )
        self._binaries[(str(ws.base), rel)] = TestBinary(binary, self._state(ws, rel))
        if clean and key is not None:
            go_binaries.keep(ws, key, rel, binary)  # before anything of the candidate runs
        return self._collected(ws, rel, raw, duration)

    def _warm_requirements(self, ws: Workspace, module: str, rel: str) -> None:
        """The required modules' packages the user's own files of the package import, built in the
        shared cache (`go_requirements`): read from the project, the candidate left out."""
        root = self.project.root
        _, required = module_imports(root / module, (root / rel).parent, skip=root / rel)
        warm_requirements(
            root / module,
            root,
            required,
            lambda home: self.sandbox.env_for(home, self.env_extra(ws), self.profile),
        )

    @staticmethod
    def _collected(ws: Workspace, rel: str, raw: int, duration: float) -> CompileResult:
        names = test_names(ws.path(rel).read_text(encoding="utf-8", errors="replace"))
        return CompileResult(
            collected=[f"{rel}{TEST_ID_SEP}{n}" for n in names], raw_lines=raw, duration_s=duration
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
        names = (
            [i.split(TEST_ID_SEP, 1)[1] for i in ids]
            if ids
            else test_names(ws.path(rel).read_text(encoding="utf-8", errors="replace"))
        )
        if not names:
            return TestRun(crash="no Test functions in the file")
        if not isolate:
            run = self._go_test(ws, rel, names, order, seed)
            if run.tests or not run.crash or run.timed_out:
                return run
            # the build failed: take out broken siblings, or say what failed
            built = self.compile(ws, files)
            if not built.ok:
                problems = "\n".join(f"{p.where}:{p.line}: {p.message}" for p in built.errors[:10])
                return TestRun(
                    crash=problems or built.crash, duration_s=run.duration_s + built.duration_s
                )
            return self._go_test(ws, rel, names, order, seed)
        if isolate:
            total = TestRun()
            for name in names:
                one = self._go_test(ws, rel, [name], order, seed)
                total.tests.update(one.tests)
                total.duration_s += one.duration_s
                if one.crash and not one.tests:
                    total.crash, total.running = (
                        one.crash,
                        one.running or f"{rel}{TEST_ID_SEP}{name}",
                    )
            return total
        return self._go_test(ws, rel, names, order, seed)

    def _go_test(
        self, ws: Workspace, rel: str, names: list[str], order: Order, seed: int
    ) -> TestRun:
        module, pkg = self._package(ws, rel)
        binary = self._fresh_binary(ws, rel)
        if binary is None and self.compile(ws, [rel]).ok:
            binary = self._fresh_binary(ws, rel)
        if binary is None:  # no binary: `go test` builds and says why
            argv = ["go", "test", "-json", "-count=1", f"-timeout={int(self.timeout_s)}s"]
            argv += ["-run", "^(" + "|".join(re.escape(n) for n in names) + ")$"]
            argv += [f"-shuffle={seed}"] if order is Order.RANDOM else []
            self._ran.add(str(ws.base))
            ran = self.exec(ws, [*argv, pkg], cwd=module, timeout=self.timeout_s + 30)
            return results(rel, ran, json_events(ran.result.stdout), self.timeout_s)
        argv = self._binary_argv(binary, names, order, seed)
        self._ran.add(str(ws.base))
        ran = self.exec(ws, argv, cwd=str(PurePosixPath(rel).parent), timeout=self.timeout_s + 30)
        ran = go_binaries.rebase(ran, self._built_in(ws, rel), ws.project)
        return results(rel, ran, events(ran.result.stdout, ran.result.stderr), self.timeout_s)

    def _built_in(self, ws: Workspace, rel: str) -> str | None:
        built = self._binaries.get((str(ws.base), rel))
        return built.built_in if built else None

    def _binary_argv(self, binary: Path, names: list[str], order: Order, seed: int) -> list[str]:
        """What `go test` runs, in the package's directory as `go test` does."""
        argv = [str(binary), "-test.v=test2json", "-test.paniconexit0", "-test.count=1"]
        argv.append(f"-test.timeout={int(self.timeout_s)}s")
        argv += ["-test.run", "^(" + "|".join(re.escape(n) for n in names) + ")$"]
        return argv + ([f"-test.shuffle={seed}"] if order is Order.RANDOM else [])

    def run_plan(
        self, ws: Workspace, files: list[str], steps: list[RunStep], ids: list[str] | None = None
    ) -> list[TestRun]:
        """Every run of gate 3 in one sandbox entry (`binary_plan`), each run still a process of
        its own; a sandbox entry per run while the test binary is not built."""
        rel = files[0]
        binary = self._fresh_binary(ws, rel)
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        names = [i.split(TEST_ID_SEP, 1)[1] for i in ids] if ids else test_names(source)
        if binary is None or not names:
            return each_step(self, ws, files, steps, ids)
        planned: list[tuple[int, list[str]]] = []
        runs: list[BinaryRun] = []
        for n, s in enumerate(steps):
            for group in [[name] for name in names] if s.isolate else [names]:
                planned.append((n, group))
                argv = self._binary_argv(binary, group, s.order, s.seed)
                runs.append(BinaryRun(argv, s.last_if_failed))
        cwd = str(PurePosixPath(rel).parent)
        self._ran.add(str(ws.base))
        done = binary_plan.run_all(self, ws, runs, cwd, self.timeout_s + 30)
        built_in = self._built_in(ws, rel)
        out: list[TestRun] = []
        for (n, group), ran in zip(planned, done, strict=False):
            ran = go_binaries.rebase(ran, built_in, ws.project)
            one = results(rel, ran, events(ran.result.stdout, ran.result.stderr), self.timeout_s)
            if not steps[n].isolate:
                out.append(one)
                continue
            if n == len(out):
                out.append(TestRun())
            out[-1].tests.update(one.tests)  # each test alone, as `run` merges them
            if one.crash and not one.tests:
                out[-1].crash = one.crash
                out[-1].running = one.running or f"{rel}{TEST_ID_SEP}{group[0]}"
        return out


@dataclass(frozen=True)
class GoLanguage(Language):
    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> GoRunner:
        warm_build_cache()
        hold_fresh(Path(GO_CACHE.format(assay_cache=assay_cache())))
        return GoRunner(sandbox, project, settings, self.profile)

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        return go_sources(project.root, source, rel)

    def spawning_tests(self, source: str) -> dict[str, str]:
        return spawning_tests(source)

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        return module_files(
            project.root,
            nearest(project.root, rel, ("go.mod",)) or ".",
            (".go",),
            ("go.mod", "go.sum", "go.work"),
        )

    def plan_tests(self, root: Path, source_rel: str, n: int = 1) -> WritePlan:
        return write_plan(root, source_rel, n)


GO = GoLanguage(
    name="go",
    title="Go",
    extensions=(".go",),
    build_files=("go.mod", "go.work"),
    test_globs=("*_test.go",),
    compiled=True,
    toolchain=(
        Toolchain(
            "go", "install Go from https://go.dev/dl/ (or your package manager: apt install golang)"
        ),
    ),
    profile=Profile(
        name="go",
        passes=("GOROOT",),
        memory="cgroup",
        env={
            "GOCACHE": GO_CACHE,
            "GOPROXY": "off",
            "GOFLAGS": "-mod=readonly",
            "GOTOOLCHAIN": "local",
            "GOTELEMETRY": "off",
            "GOENV": "off",
            "GONOSUMDB": "*",
            "GOSUMDB": "off",
            "GOPATH": "{home}/go",
        },
        shared=(GO_CACHE,),
    ),
    fences=("go", "golang"),
    test_mark=r"^func Test",
    example="go",
    smells=Language.Smells(
        "tree_sitter_go:language",
        ("call_expression",),
        "go",
        sleep=r"^time\.Sleep$",
        mocks=r"^(gomock\.NewController|(\w+\.)?NewMock\w*|mock\.Mock)$",
    ),
)
