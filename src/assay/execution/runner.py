"""The Runner protocol: how every language compiles and runs tests, and the typed outcomes
it returns.

A runner only runs and reports; judging (which failure is the test's fault, what feedback to give)
belongs to the gates. Runners read results from a structured source (JSON from an in-process
pytest plugin, JUnit XML, `go test -json`, TRX), never from console text, and give paths relative
to the project.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from assay._assay_sandbox.stability_plan import alone
from assay.execution.workspace import Workspace


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # failed outside the test body (setup, teardown)
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"
    TIMEOUT = "timeout"


class Order(str, Enum):
    FILE = "file"
    RANDOM = "random"
    REVERSE = "reverse"


@dataclass(frozen=True)
class TestResult:
    """One test case's outcome in one run."""

    id: str
    outcome: Outcome
    duration_s: float = 0.0
    message: str = ""
    # lines of a failure naming an import that failed, from its traceback, captured output or
    # subprocesses' output (Python)
    import_errors: tuple[str, ...] = ()
    # where the project's own code raised the failure (`path:line`, below the test's last frame)
    raised_at: str = ""
    marked_flaky: bool = False  # its author marks it flaky (`@pytest.mark.flaky`)


@dataclass(frozen=True)
class Problem:
    """A compile or collection error: where (a project-relative file or a test id, empty when
    unknown), the line when known, and the toolchain's own words."""

    where: str
    message: str
    line: int | None = None
    kind: str = "error"  # syntax | import | collection | fixture | compile | crash
    # an `environment` problem's advice, fitting its cause (fetch the dependencies, fix the build)
    hint: str = ""


@dataclass
class CompileResult:
    """What gate 1 learns: compile or collection errors, or the test ids found."""

    errors: list[Problem] = field(default_factory=list)
    collected: list[str] = field(default_factory=list)
    crash: str | None = None  # the toolchain itself ended abnormally (timeout, killed, no result)
    # the crash was the wall timeout (a collection that runs the tests: jest, node --test)
    timed_out: bool = False
    duration_s: float = 0.0
    raw_lines: int = 0  # lines the toolchain printed (the feedback sends far fewer)
    module_skip: str | None = None  # why the whole file was skipped at collection (pytest)
    # the selection of the project's pytest configuration that left tests out (`-m 'not slow'`)
    deselected_by: str | None = None

    @property
    def ok(self) -> bool:
        return not self.errors and self.crash is None


@dataclass
class TestRun:
    """One run of some tests: per-test outcomes, collection errors, and why the run ended early if
    it did."""

    tests: dict[str, TestResult] = field(default_factory=dict)
    collected: list[str] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    exit_status: int | None = None
    crash: str | None = None  # why the run itself ended abnormally (timeout, killed, no result)
    # why the environment, not the tests, kept the run from happening (a runner artefact, toolchain
    # or dependency missing), naming what is missing: the file is `unvalidated`, never rejected
    environment: str | None = None
    running: str | None = None  # the test that was running when the run was killed
    # pytest failed after every test had run (a plugin's session teardown): what it printed
    after_tests: str | None = None
    module_skip: str | None = None  # why the whole file was skipped at collection
    deselected_by: str | None = None  # as CompileResult's
    timed_out: bool = False  # the crash was the timeout (the runner's own or the sandbox's)
    # killed at the timeout while `running` had run briefly: the tests before it spent the time
    out_of_time: bool = False
    # files of the user's tree the run loaded (should be none)
    leaked: list[str] = field(default_factory=list)
    # project files the test calls created, changed or deleted (the runner watched the tree around
    # them); None: unknown, every change in the tree is the tests' doing
    writes: frozenset[str] | None = None
    # the workspace as it was before this run, when the run was made earlier than asked for (a
    # Python file's tests run in the process that collected them at gate 1): what they damaged is
    # measured from here, not from when the caller asked
    tree_before: dict[str, tuple[int, int]] | None = None
    duration_s: float = 0.0
    # a plan's runs, one per step (Runner.run_plan)
    steps: list[TestRun] = field(default_factory=list)
    # a lean step (`RunStep.lean`): tests run without the per-test protocol, and those that did not
    # pass there (then the step ran again under the protocol, and `tests` are that run's)
    lean: int = 0
    screened: dict[str, str] = field(default_factory=dict)
    together: bool = False  # a lean rerun made one after another with others in one process
    # gate 3's plan, run ahead by the process that made this run (Python: gates 1-2's process)
    ahead: PlanAhead | None = None

    def passed(self) -> dict[str, float]:
        """Passing test ids with their durations, in run order."""
        return {k: r.duration_s for k, r in self.tests.items() if r.outcome is Outcome.PASSED}


@dataclass
class PlanAhead:
    """A plan some process ran before it was asked for: its steps in the runner's own form, the
    tests it watched, and a run per step done (fewer when it stopped at a failing step). A caller
    takes it only for exactly that plan."""

    steps: list[dict]
    ids: list[str]
    runs: list[TestRun]
    # project files its runs created, changed or deleted (not the earlier run's doing)
    writes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RunStep:
    """One run of a plan: the file's tests in an order, or each of them alone."""

    order: Order = Order.FILE
    seed: int = 0
    isolate: bool = False
    # the plan ends after this step when one of its tests did not pass (a flaky file needs no more)
    last_if_failed: bool = False
    # an isolated step: at most this many tests alone (each function's first case, then the other
    # cases in file order); None: every one
    alone: int | None = None
    # a rerun that may screen plain tests without the runner's per-test protocol: a test that does
    # not pass there is run again under it, which alone decides (Python: `_assay_sandbox/lean.py`)
    lean: bool = False
    # a lean rerun of a fast file: the reruns like it may first run one after another in one
    # process, a screen (`_assay_sandbox/plan_steps.py`); a slow file's would only add a run
    together: bool = False


class Runner(Protocol):
    """Compiles and runs the tests of one language inside a workspace, through the sandbox."""

    language: str

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        """Compile (or parse and collect) the given project-relative test files."""
        ...

    def run(
        self,
        ws: Workspace,
        files: list[str],
        ids: list[str] | None = None,
        order: Order = Order.FILE,
        seed: int = 0,
        isolate: bool = False,
    ) -> TestRun:
        """Run the tests of `files` (or only `ids`), in `order`; `isolate`: each test alone."""
        ...


def run_plan(
    runner: Runner,
    ws: Workspace,
    files: list[str],
    steps: list[RunStep],
    ids: list[str] | None = None,
) -> list[TestRun]:
    """Several runs of the same tests (reruns, another order, each alone): in one go where the
    runner can (`runner.run_plan`), else one `run` per step. `ids` are the tests an isolated
    step runs. A step `last_if_failed` in which one of `ids` did not pass is the last run (the
    caller gets fewer runs than steps)."""
    own = getattr(runner, "run_plan", None)
    if own is not None:
        return own(ws, files, steps, ids)
    return each_step(runner, ws, files, steps, ids)


def each_step(
    runner: Runner,
    ws: Workspace,
    files: list[str],
    steps: list[RunStep],
    ids: list[str] | None = None,
) -> list[TestRun]:
    """A plan as one `run` per step (what a runner's own `run_plan` falls back on)."""
    runs = []
    for s in steps:
        ids_ = alone(ids, s.alone) if s.isolate else None
        runs.append(runner.run(ws, files, ids=ids_, order=s.order, seed=s.seed, isolate=s.isolate))
        done = runs[-1].tests
        if s.last_if_failed and (
            runs[-1].crash
            or any(done[t].outcome is not Outcome.PASSED for t in ids or [] if t in done)
        ):
            break
    return runs
