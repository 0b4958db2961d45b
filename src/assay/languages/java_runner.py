"""Java: gate 1 compiles with the project's build (Maven `test-compile`, Gradle `testClasses`) or,
for a tree without a build file, with `javac` and JUnit 5 on the class path; gates 2 and 3 run the
test class with the JUnit console launcher and read its JUnit XML.

The other test classes of the module (by name: `*Test`, `*Tests`, `Test*`, `*IT`) are taken out of
the scratch copy first, so that a broken sibling cannot fail the candidate's build, and helpers
stay. Dependencies come from the real `~/.m2`, read-only, with Maven offline (`-o`: the sandbox has
no network); a dependency the cache lacks makes the file `unvalidated` with the command that
fetches it. `target/` and `build/` stay across workspace resets, so the second compile of a
repaired file is incremental.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import CompileResult, Order, Outcome, RunStep, TestRun
from assay.execution.workspace import Workspace
from assay.languages import java_plan, junit_launcher, junit_xml
from assay.languages.compiler_output import javac_errors
from assay.languages.java_sources import TEST_NAME, build_tool, class_name, test_methods
from assay.languages.java_warm import warm_classpath
from assay.languages.tooling import TEST_ID_SEP, Ran, ToolRunner, slug
from assay.sandbox import Profile, Sandbox
from assay.sandbox.view import hand_over

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

_OFFLINE = re.compile(
    r"offline mode|has not been downloaded from it before|Could not resolve dependencies|"
    r"Plugin [^ ]+ or one of its dependencies could not be resolved|Could not transfer artifact|"
    r"Cannot access \S+ in offline mode|Could not resolve plugin|LocalRepositoryNotAccessible"
)
_RELEASE = re.compile(r"<(?:maven\.compiler\.)?(?:release|target)>\s*(?:1\.)?(\w+)\s*</")
MAVEN_INSTALL = "install Maven (https://maven.apache.org, or apt install maven)"


class JavaRunner(ToolRunner):
    language = "java"
    plan_forks = False  # gate 3's runs are class loaders in one JVM, not forks: no extra reruns

    def __init__(
        self, sandbox: Sandbox, project: Project, settings: Settings, profile: Profile
    ) -> None:
        super().__init__(sandbox, project, settings, profile)
        self._classpath: dict[tuple[str, str], list[str]] = {}  # (workspace, module) -> class path

    def _drop_siblings(self, ws: Workspace, rel: str, module: str) -> None:
        """Other test classes of the module out of the copy; helpers (names not like a
        test) stay."""
        base = ws.path(module)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [
                d for d in dirnames if d not in ("target", "build", ".git", "node_modules")
            ]
            for name in filenames:
                path = Path(dirpath, name)
                other = path.relative_to(ws.project).as_posix()
                if (
                    other != rel
                    and TEST_NAME.search(name)
                    and "org.junit" in path.read_text(errors="replace")
                ):
                    ws.apply({other: None})

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        rel = files[0]
        tool, module = build_tool(ws.project, rel, self.settings)
        self._drop_siblings(ws, rel, module)
        if tool == "javac":
            return self._javac(ws, rel, module)
        conf = self.settings.tool("java")
        known = self._classpath.get((str(ws.base), module))
        if tool == "maven" and known is None and not conf.compile_command:
            known = self._warm(ws, module)
        # warm: the module is built, javac the file
        if tool == "maven" and known and not conf.compile_command:
            fast = self._javac_one(ws, rel, module, known)
            if fast is not None:
                return fast
        cp_file = f"target/assay-classpath-{slug(module)}.txt"
        if conf.compile_command:
            argv = list(conf.compile_command)
        elif tool == "maven":
            # the class path first: known even when the file fails
            argv = [
                "mvn",
                "-B",
                "-o",
                "-q",
                "-Dstyle.color=never",
                "dependency:build-classpath",
                f"-Dmdep.outputFile={cp_file}",
                "-Dmdep.includeScope=test",
                "test-compile",
            ]
        else:
            argv = [
                "./gradlew" if ws.path(module).joinpath("gradlew").exists() else "gradle",
                "--offline",
                "-q",
                "testClasses",
            ]
        if shutil.which(argv[0]) is None and not argv[0].startswith("./"):
            return self.environment(
                f"`{argv[0]}` not found on PATH: "
                + (MAVEN_INSTALL if tool == "maven" else "install Gradle (https://gradle.org)")
            )
        ran = self.exec(ws, argv, cwd=module, timeout=max(self.timeout_s, 600))
        raw, duration = ran.raw_lines, ran.result.duration_s
        classes = (
            ["target/test-classes", "target/classes"]
            if tool == "maven"
            else [
                "build/classes/java/test",
                "build/classes/java/main",
                "build/resources/test",
                "build/resources/main",
            ]
        )
        cp_path = ws.path(module) / cp_file
        if tool == "maven" and cp_path.is_file() and ws.path(f"{module}/target/classes").is_dir():
            deps = [e for e in cp_path.read_text().strip().split(os.pathsep) if e]
            self._classpath[(str(ws.base), module)] = [
                str(ws.path(module) / c) for c in classes
            ] + deps
        if ran.result.returncode != 0:
            return self._failed(ran, rel, module, tool, raw, duration)
        if tool != "maven":
            self._classpath[(str(ws.base), module)] = [str(ws.path(module) / c) for c in classes]
        return self._collected(ws, rel, raw, duration)

    def _warm(self, ws: Workspace, module: str) -> list[str] | None:
        """The module's warm classes copied into a fresh workspace (`java_warm`): its class path."""
        env = self.sandbox.env_for(ws.run_dir / "home", profile=self.profile, cache=ws.cache_dir)
        found = warm_classpath(self.project.root, module, ws, env, self.timeout_s)
        if found is not None:
            self._classpath[(str(ws.base), module)] = found
        return found

    def _javac_one(
        self, ws: Workspace, rel: str, module: str, classpath: list[str]
    ) -> CompileResult | None:
        """The candidate alone compiled by javac against the module Maven built earlier in this
        workspace (its classes, test classes and dependencies): a repaired file costs a second, not
        a Maven start. The release and flags come from the pom; None (use Maven) when javac fails
        outside the candidate."""
        pom = ws.path(f"{module}/pom.xml").read_text(encoding="utf-8", errors="replace")
        out = Path(classpath[0])
        missing = [p for p in (out, *out.parents) if not p.exists()]
        out.mkdir(parents=True, exist_ok=True)
        hand_over(*missing)  # javac writes here as the tests' uid
        # helpers not compiled yet are compiled from source
        sources = [
            str(ws.path(f"{module}/{d}"))
            for d in ("src/test/java", "src/main/java")
            if ws.path(f"{module}/{d}").is_dir()
        ]
        args = [
            "javac",
            "-d",
            classpath[0],
            "-encoding",
            "UTF-8",
            "-cp",
            os.pathsep.join(classpath),
            "-sourcepath",
            os.pathsep.join(sources),
        ]
        release = _RELEASE.search(pom)
        if release and release.group(1).isdigit():
            args += ["--release", release.group(1)]
        args += [flag for flag in ("-parameters", "--enable-preview") if flag in pom]
        ran = self.exec(ws, [*args, rel], cwd=".")
        if ran.result.returncode == 0:
            return self._collected(ws, rel, ran.raw_lines, ran.result.duration_s)
        problems = javac_errors(ran.text, ran.roots, ".")
        mine = [p for p in problems if p.where == rel]
        if mine and len(mine) == len(problems):
            return CompileResult(
                errors=mine, raw_lines=ran.raw_lines, duration_s=ran.result.duration_s
            )
        return None

    def _failed(
        self, ran: Ran, rel: str, module: str, tool: str, raw: int, duration: float
    ) -> CompileResult:
        problems = javac_errors(ran.text, ran.roots, module)
        mine = [p for p in problems if p.where == rel]
        if mine:
            return CompileResult(errors=mine, raw_lines=raw, duration_s=duration)
        if problems:
            return self.environment(
                "the module does not compile without this file: "
                + "; ".join(f"{p.where}:{p.line}: {p.message}" for p in problems[:3]),
                raw,
                duration,
            )
        if _OFFLINE.search(ran.text):
            fetch = "mvn dependency:go-offline" if tool == "maven" else "gradle build"
            return self.environment(
                f"a dependency or plugin of {module} is not in the local cache and the sandbox "
                f"has no network: run `{fetch}` in {module} once",
                raw,
                duration,
            )
        return CompileResult(crash=ran.why(tool), raw_lines=raw, duration_s=duration)

    def _collected(self, ws: Workspace, rel: str, raw: int, duration: float) -> CompileResult:
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        return CompileResult(
            collected=[f"{rel}{TEST_ID_SEP}{m}" for m in test_methods(source)],
            raw_lines=raw,
            duration_s=duration,
        )

    def _javac(self, ws: Workspace, rel: str, module: str) -> CompileResult:
        """A tree without a build file: the candidate's package root holds the sources; JUnit 5
        comes from the console launcher jar, other jars from `lib/` or `libs/`."""
        if shutil.which("javac") is None:
            return self.environment(
                "`javac` not found on PATH: install a JDK (apt install openjdk-17-jdk-headless)"
            )
        jar = junit_launcher.launcher([])
        if jar is None:
            return self.environment(
                "JUnit 5 is not in ~/.m2 and cannot be fetched without Maven: run `mvn "
                f"dependency:get -Dartifact={junit_launcher.ARTIFACT}:"
                f"{junit_launcher.DEFAULT_VERSION}` once"
            )
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        depth = class_name(source, rel).count(".")
        src_root = PurePosixPath(rel).parents[depth].as_posix()
        roots = {src_root}
        for main in ("src/main/java", "src"):
            if ws.path(f"{module}/{main}").is_dir():
                roots.add(PurePosixPath(module, main).as_posix())
        sources = sorted(
            {
                Path(dp, n).relative_to(ws.project).as_posix()
                for r in roots
                for dp, _, names in os.walk(ws.path(r))
                for n in names
                if n.endswith(".java")
            }
        )
        libs = [
            str(p) for d in ("lib", "libs") for p in sorted(ws.path(f"{module}/{d}").glob("*.jar"))
        ]
        out = ws.cache_dir / "javac-classes"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        args = ws.run_dir / "javac-sources.txt"
        args.write_text("\n".join(str(ws.path(s)) for s in sources))
        ran = self.exec(
            ws,
            [
                "javac",
                "-d",
                str(out),
                "-encoding",
                "UTF-8",
                "-proc:none",
                "-cp",
                os.pathsep.join([str(jar), *libs]),
                f"@{args}",
            ],
            cwd=".",
        )
        if ran.result.returncode != 0:
            return self._failed(ran, rel, ".", "javac", ran.raw_lines, ran.result.duration_s)
        self._classpath[(str(ws.base), module)] = [str(out), *libs]
        return self._collected(ws, rel, ran.raw_lines, ran.result.duration_s)

    def _ready(self, ws: Workspace, files: list[str]) -> tuple[list[str], Path, str] | TestRun:
        """The class path, the JUnit launcher jar and the test class to run; or the TestRun that
        says why the file cannot run."""
        rel = files[0]
        tool, module = build_tool(ws.project, rel, self.settings)
        classpath = self._classpath.get((str(ws.base), module))
        if classpath is None:
            built = self.compile(ws, files)
            classpath = self._classpath.get((str(ws.base), module))
            if not built.ok or classpath is None:
                missing = [p.message for p in built.errors if p.kind == "environment"]
                if missing:
                    return TestRun(environment="; ".join(missing[:3]))
                return TestRun(
                    crash=built.crash
                    or "; ".join(p.message for p in built.errors[:3])
                    or "no classes"
                )
        jar = junit_launcher.launcher(classpath)
        if jar is None:
            return TestRun(
                environment="the JUnit console launcher is not in ~/.m2 and cannot be fetched: "
                f"run `mvn dependency:get -Dartifact={junit_launcher.ARTIFACT}:"
                f"{junit_launcher.DEFAULT_VERSION}` once"
            )
        fqcn = class_name(ws.path(rel).read_text(encoding="utf-8", errors="replace"), rel)
        return classpath, jar, fqcn

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
        ready = self._ready(ws, files)
        if isinstance(ready, TestRun):
            return ready
        classpath, jar, fqcn = ready
        module = build_tool(ws.project, rel, self.settings)[1]
        # a parametrized method's cases (`total(int)[2]`) run together: no selector takes one
        methods: dict[str, list[str]] = {}
        for i in ids or []:
            methods.setdefault(java_plan.method_of(fqcn, i.split(TEST_ID_SEP, 1)[1]), []).append(i)
        groups = [[m] for m in methods] if isolate else [list(methods)]
        total = TestRun()
        for group in groups:
            one = self._launch(ws, rel, module, jar, classpath, fqcn, group, order, seed)
            total.tests.update(one.tests)
            total.duration_s += one.duration_s
            total.exit_status = one.exit_status
            if one.crash and not one.tests:
                total.crash = one.crash
                cases = methods.get(group[0], []) if len(group) == 1 else []
                total.running = cases[0] if len(cases) == 1 else None
        return total

    def run_plan(
        self, ws: Workspace, files: list[str], steps: list[RunStep], ids: list[str] | None = None
    ) -> list[TestRun]:
        """Every run of gate 3 in one JVM (`java_plan`); a JVM per run where the plan launcher
        cannot be built or a console-launcher argument is configured."""
        rel = files[0]
        ready = self._ready(ws, files)
        if isinstance(ready, TestRun):
            return [ready]
        classpath, jar, fqcn = ready
        config = java_plan.config_of(self.settings.tool("java").test_args)
        launcher_dir = java_plan.compiled(jar) if config is not None else None
        if launcher_dir is None or config is None:
            return self._run_steps(ws, files, steps, ids)
        module = build_tool(ws.project, rel, self.settings)[1]
        reports = ws.run_dir / f"plan-{len(list(ws.run_dir.glob('plan-*')))}"
        reports.mkdir(parents=True)
        hand_over(reports)  # the tests' uid writes the XML
        plan_file = reports / "plan.txt"
        cp = junit_launcher.without_bundled(classpath)
        runs = java_plan.write(
            plan_file, reports, cp, config, fqcn, steps, ids, f"{rel}{TEST_ID_SEP}"
        )
        ran = self.exec(
            ws,
            java_plan.argv(launcher_dir, jar, plan_file),
            cwd=module,
            timeout=self.timeout_s * len(runs) + 30,
        )
        name_of = self._names(rel, fqcn)
        out: list[TestRun] = []
        for planned in runs:
            xml = sorted(planned.reports.glob("*.xml"))
            if not xml:
                failed = out and any(
                    t.outcome is not Outcome.PASSED for t in out[-1].tests.values()
                )
                if failed and steps[len(out) - 1].last_if_failed and planned.step >= len(out):
                    break  # the plan ended after a run in which a test failed, as asked
                crash = TestRun(
                    crash=ran.why(f"the JUnit launcher on {fqcn}"), timed_out=ran.result.timed_out
                )
                crash.running = planned.ids[0] if planned.ids and len(planned.ids) == 1 else None
                if planned.step < len(out):
                    out[-1].crash, out[-1].running = crash.crash, crash.running
                else:
                    out.append(crash)
                break
            if planned.step == len(out):
                out.append(TestRun(exit_status=ran.result.returncode))
            out[-1].tests.update(junit_xml.read(xml, name_of))
            out[-1].duration_s = ran.result.duration_s
        return out

    def _run_steps(
        self, ws: Workspace, files: list[str], steps: list[RunStep], ids: list[str] | None
    ) -> list[TestRun]:
        """A JVM per run of the plan (`execution.runner.run_plan` without a runner's own)."""
        runs = []
        for s in steps:
            runs.append(self.run(ws, files, ids if s.isolate else None, s.order, s.seed, s.isolate))
            failed = [
                t
                for t in ids or []
                if t in runs[-1].tests and runs[-1].tests[t].outcome is not Outcome.PASSED
            ]
            if s.last_if_failed and (runs[-1].crash or failed):
                break
        return runs

    @staticmethod
    def _names(rel: str, fqcn: str) -> Callable[[str, str], str | None]:
        """Test id of a JUnit XML testcase of the class (or of its nested classes); None for
        another class's."""

        def name_of(classname: str, name: str) -> str | None:
            if classname != fqcn and not classname.startswith(fqcn + "$"):
                return None
            method = name[:-2] if name.endswith("()") else name
            if classname != fqcn:
                method = classname[len(fqcn) + 1 :].replace("$", ".") + "." + method
            return f"{rel}{TEST_ID_SEP}{method}"

        return name_of

    def _launch(
        self,
        ws: Workspace,
        rel: str,
        module: str,
        jar: Path,
        classpath: list[str],
        fqcn: str,
        selected: list[str],
        order: Order,
        seed: int,
    ) -> TestRun:
        """One console launcher JVM on the class, or on the `selected` methods (`Class#method`)."""
        reports = ws.run_dir / f"junit-{len(list(ws.run_dir.glob('junit-*')))}"
        selectors = (
            [f"--select-method={m}" for m in selected] if selected else [f"--select-class={fqcn}"]
        )
        argv = junit_launcher.argv(
            jar,
            junit_launcher.without_bundled(classpath),
            selectors,
            reports,
            seed if order is Order.RANDOM else None,
            self.settings.tool("java").test_args,
        )
        ran = self.exec(ws, argv, cwd=module)
        tests = junit_xml.read(sorted(reports.glob("*.xml")), self._names(rel, fqcn))
        run = TestRun(
            tests=tests, exit_status=ran.result.returncode, duration_s=ran.result.duration_s
        )
        if not tests:
            run.crash = ran.why(f"the JUnit launcher on {fqcn.rsplit('.', 1)[-1]}")
        return run
