"""Gate 3 of a JUnit 5 class in one JVM (`languages/java_plan.py`): the reruns, the random order and
each test method alone in one launcher process, each run in a class loader of its own; a
parametrized method runs alone once and its cases are judged from that run (each case alone
"crashed" before, and the file was `flaky`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import api
from assay.config import Settings
from assay.execution.runner import Order, RunStep, run_plan
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES, java_plan, junit_launcher
from assay.languages.java_plan import method_of
from assay.model import Verdict
from assay.project import Project
from tests.languages.conftest import RecordingSandbox

CALC = """package com.acme;

public final class Calc {
    private Calc() {}

    public static int twice(int x) {
        return 2 * x;
    }
}
"""
CALC_TEST = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CalcTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void twiceIsEven(int x) {
        assertEquals(0, Calc.twice(x) % 2);
    }

    @Test
    void twiceOfTwo() {
        assertEquals(4, Calc.twice(2));
    }
}
"""
# passes in file order, and in every rerun only if each run starts from fresh statics; fails alone
ORDER_TEST = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OrderTest {
    static final List<Integer> SEEN = new ArrayList<>();

    @Test
    @Order(1)
    void first() {
        SEEN.add(Calc.twice(1));
        assertEquals(1, SEEN.size());
    }

    @Test
    @Order(2)
    void second() {
        assertEquals(List.of(2), SEEN);
    }
}
"""


def java_project(root: Path) -> Path:
    """A tree without a build file (javac, JUnit from the console launcher jar: no Maven start)."""
    if shutil.which("javac") is None or junit_launcher.find(None) is None:
        pytest.skip("a JDK or the JUnit console launcher in ~/.m2 is missing (.ci/toolchains)")
    for name, text in {"Calc": CALC, "CalcTest": CALC_TEST, "OrderTest": ORDER_TEST}.items():
        path = root / f"src/com/acme/{name}.java"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "assay.toml").write_text('gates = ["compile", "green", "stability"]\n')
    return root


@pytest.mark.slow
def test_a_parametrized_method_is_judged_alone_once_and_statics_are_fresh_per_run(tmp_path):
    """Slow (javac and two JVMs per file, 7 s wall): the verdicts end to end."""
    root = java_project(tmp_path / "proj")
    report = api.verify([root / "src"], root=root, use_cache=False)
    files = {f.path.rsplit("/", 1)[-1]: f for f in report.files}
    calc = files["CalcTest.java"]
    assert calc.verdict is Verdict.ACCEPTED, [g.feedback for g in calc.gates]
    order = files["OrderTest.java"]
    assert order.verdict is Verdict.FLAKY
    # fresh statics in every rerun (as a JVM of its own gives): only the run alone fails
    feedback = order.gates[-1].feedback
    assert "OrderTest.java::second: passed 5 of 6 runs; failed when alone" in feedback, feedback


def test_a_files_stability_runs_start_one_jvm(tmp_path):
    root = java_project(tmp_path / "proj")
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    runner = LANGUAGES["java"].runner(sandbox, Project.load(root), settings)
    rel = "src/com/acme/CalcTest.java"
    cases = [f"{rel}::twiceIsEven(int)[{n}]" for n in (1, 2, 3)] + [f"{rel}::twiceOfTwo"]
    steps = [RunStep(last_if_failed=True)] * 3 + [
        RunStep(Order.RANDOM, 7, last_if_failed=True),
        RunStep(isolate=True, last_if_failed=True),
    ]
    with Workspace(root) as ws:
        assert runner.compile(ws, [rel]).ok
        before = len(sandbox.commands)
        runs = run_plan(runner, ws, [rel], steps, cases)
    jvms = [c for c in sandbox.commands[before:] if Path(c[0]).name == "java"]
    assert len(jvms) == 1, jvms  # was 8: 3 reruns, random order, 4 cases alone
    assert len(runs) == len(steps)
    for run in runs:
        assert sorted(run.passed()) == sorted(cases), run


def test_a_case_is_selected_by_its_method():
    assert method_of("a.B", "total(int)[12]") == "a.B#total(int)"
    assert method_of("a.B", "total") == "a.B#total"
    assert (
        method_of("a.B", "Inner.Deeper.total(String, int)[1]")
        == "a.B$Inner$Deeper#total(String, int)"
    )


@pytest.mark.slow
def test_a_plan_launcher_that_fails_falls_back_to_a_jvm_per_run(tmp_path, monkeypatch):
    """Slow: javac twice and three JVMs, 6 s wall. A plan that leaves no result at all must not
    pass gate 3 unobserved: a JVM per run says what the tests do."""
    root = java_project(tmp_path / "proj")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # a plan launcher of its own
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    runner = LANGUAGES["java"].runner(sandbox, Project.load(root), settings)
    rel = "src/com/acme/CalcTest.java"
    with Workspace(root) as ws:
        assert runner.compile(ws, [rel]).ok
        built = java_plan.compiled(junit_launcher.find(None))
        assert built is not None
        (built / "AssayPlan.class").write_bytes(b"not a class")  # the JVM cannot load it
        runs = run_plan(runner, ws, [rel], [RunStep(last_if_failed=True)], [f"{rel}::twiceOfTwo"])
    assert len(runs) == 1 and f"{rel}::twiceOfTwo" in runs[0].passed(), runs
    mains = [
        c[c.index("-cp") + 2] if "-cp" in c else c[c.index("-jar") + 1]
        for c in sandbox.commands
        if Path(c[0]).name == "java"
    ]
    assert mains[0] == "AssayPlan" and len(mains) == 2, mains  # the plan, then the console launcher


# ends its JVM when a run before it in the same JVM left a system property (the JDK's state, which
# the runs of one JVM share): fine in a JVM of its own
EXITS_ON_RERUN = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ExitTest {
    @Test
    void once() {
        if (System.getProperty("exit.seen") != null) {
            System.exit(3);
        }
        System.setProperty("exit.seen", "yes");
        assertEquals(4, Calc.twice(2));
    }
}
"""


@pytest.mark.slow
def test_the_run_a_plan_dies_in_and_those_after_it_run_a_jvm_each(tmp_path):
    """Slow: javac and five JVMs, 8 s wall."""
    root = java_project(tmp_path / "proj")
    rel = "src/com/acme/ExitTest.java"
    (root / rel).write_text(EXITS_ON_RERUN)
    settings = Settings(cache=False)
    sandbox = RecordingSandbox(settings.sandbox, protect=root)
    runner = LANGUAGES["java"].runner(sandbox, Project.load(root), settings)
    steps = [RunStep(last_if_failed=True)] * 3
    with Workspace(root) as ws:
        assert runner.compile(ws, [rel]).ok
        runs = run_plan(runner, ws, [rel], steps, [f"{rel}::once"])
    # rerun 1 in the plan's JVM; it died in rerun 2: reruns 2 and 3 in a JVM each
    assert [sorted(r.passed()) for r in runs] == [[f"{rel}::once"]] * 3, runs
    assert [Path(c[0]).name for c in sandbox.commands].count("java") == 3
