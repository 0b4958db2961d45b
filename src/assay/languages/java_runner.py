"""Java's gates 2 and 3: the test class run with the JUnit console launcher (gate 2, and gate 3
where the plan launcher cannot be built), or gate 3's whole plan in one JVM (`java_plan`); results
read from JUnit XML."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.execution.runner import Order, RunStep, TestResult, TestRun, each_step
from assay.execution.workspace import Workspace
from assay.languages import java_plan, junit_launcher, junit_xml, plans
from assay.languages.java_compile import JavaCompiler
from assay.languages.java_sources import build_tool, class_name
from assay.languages.tooling import TEST_ID_SEP
from assay.sandbox.view import hand_over


class JavaRunner(JavaCompiler):
    plan_forks = False  # gate 3's runs are class loaders in one JVM, not forks: no extra reruns

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
            return each_step(self, ws, files, steps, ids)
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

        def read(planned: plans.PlannedRun) -> dict[str, TestResult] | None:
            if not (planned.out / "done").is_file():  # the JVM ended during this run
                return None
            return junit_xml.read(sorted(planned.out.glob("*.xml")), name_of)

        why = ran.why(f"the JUnit launcher on {fqcn}")
        found = plans.gather(runs, steps, read, why, ran.result.timed_out)
        return plans.redo_crashed(found, steps, lambda rest: each_step(self, ws, files, rest, ids))

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
