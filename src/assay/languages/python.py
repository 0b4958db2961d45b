"""Python: pytest run in the sandbox by `_assay_sandbox.pytest_runner`, results read from the JSON
it writes."""

from __future__ import annotations

import json
import re
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay._assay_sandbox import launch
from assay._assay_sandbox.protocol import HASH_SEED, PytestJob
from assay.dependencies import normalize
from assay.dependencies.installed import Installed
from assay.dependencies.pytest_check import interpreter_problem
from assay.errors import ConfigError
from assay.execution.runner import (
    CompileResult,
    Order,
    PlanAhead,
    Problem,
    RunStep,
    TestRun,
    alone,
)
from assay.execution.workspace import Workspace
from assay.feedback import relativize
from assay.languages.base import Language
from assay.languages.green_watch import GreenListener, GreenListeners
from assay.languages.pytest_ini import addopts
from assay.languages.pytest_results import (
    INTERNAL_ERROR,
    internal_error,
    plan_ahead,
    read_run,
    usage_problem,
)
from assay.sandbox import Sandbox
from assay.sandbox.environment import venv_path

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project
    from assay.sandbox.process import RunResult


# pytest plugins installed beside assay (its own venv runs tests by default) that import a large
# library at every start-up (hypothesis: 0.75 s, anyio: 0.2 s) yet matter only to tests that use
# that library
HEAVY_PLUGINS = {"hypothesispytest": "hypothesis", "anyio": "anyio"}


def pytest_args(project: Project, settings: Settings) -> list[str]:
    """The configured pytest arguments, plus `-p no:PLUGIN` for each heavy plugin whose library the
    project neither declares nor imports: such a plugin changes no outcome of its tests, and loading
    it would dominate every run."""
    used = project.dependencies.modules | project.dependencies.dists
    off = [
        arg
        for plugin, lib in HEAVY_PLUGINS.items()
        if normalize(lib) not in used
        for arg in ("-p", f"no:{plugin}")
    ]
    # xdist's `-n` in the project's addopts (nameparser: `-n auto --dist worksteal`) runs the tests
    # in worker processes, where assay's in-process plugins see none: every file "collected no
    # test". A later `-n 0` wins, and runs them in the process
    given = [*addopts(project.root), *settings.python.pytest_args]
    serial = ["-n", "0"] if any(_DISTRIBUTED.match(a) for a in given) else []
    return [*settings.python.pytest_args, *off, *serial]


_DISTRIBUTED = re.compile(r"^(-n|--numprocesses)(=?(auto|logical|\d+))?$|^-n(auto|logical|\d+)$")


USAGE_ERROR = 4  # pytest.ExitCode.USAGE_ERROR: its command line was rejected before any test ran


def _last_started(progress: Path) -> str | None:
    try:
        lines = progress.read_text().splitlines()
    except OSError:
        return None
    return lines[-1] if lines else None


class PythonPytestRunner:
    """Runs pytest on test files inside a workspace, one sandboxed process per call; `compile` runs
    the tests too once they collect cleanly, and the next `run` of the same files in the same
    workspace is that run (gates 1 and 2 in one process: one interpreter start and one collection
    less per file)."""

    language = "python"

    def __init__(
        self,
        sandbox: Sandbox,
        python: str,
        source_roots: list[str],
        timeout_s: float,
        pytest_args: list[str] | None = None,
        stability: dict[str, Any] | None = None,
    ):
        self.sandbox = sandbox
        self.python = python
        self.source_roots = source_roots
        self.timeout_s = timeout_s
        self.pytest_args = list(pytest_args or [])
        # gate 3's settings when gate 3 will run: `compile`'s process runs its plan ahead
        self.stability = dict(stability or {})
        # (scratch root, files) -> (their text, the run `compile` made of them), for `run`
        self._ran: dict[tuple[str, tuple[str, ...]], tuple[list[str | None], TestRun]] = {}
        # the same key -> gate 3's plan as `compile`'s process ran it, for `run_plan`
        self._ahead: dict[tuple[str, tuple[str, ...]], tuple[list[str | None], PlanAhead]] = {}
        # file -> (its text, its `checked` run made by `batch`), for `compile`
        self._batched: dict[str, tuple[str | None, TestRun]] = {}
        # who takes gate 2's outcomes before its process ends (`on_green`)
        self._green = GreenListeners()
        self._lock = threading.Lock()

    def on_green(self, ws: Workspace, listener: GreenListener | None) -> None:
        """Hand the tests' outcomes of the next `checked` process in `ws` to `listener` once they
        are in, while the process goes on with gate 3's plan (`GreenWatch`); None: no more."""
        self._green.set(str(ws.project), listener)

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        """Each file must parse; then pytest must import the files and collect their tests (a test
        asking for a fixture that nobody defines counts here, not at run time). When they do, the
        same process runs them, kept for the next `run`; when that process crashed or timed out (a
        test may hang), a collection alone answers, and `run` starts afresh."""
        errors = []
        for rel in files:
            try:
                compile(
                    ws.path(rel).read_text(encoding="utf-8-sig"), rel, "exec", dont_inherit=True
                )
            except SyntaxError as err:
                errors.append(Problem(rel, f"SyntaxError: {err.msg}", err.lineno, "syntax"))
            except (ValueError, UnicodeDecodeError) as err:  # null bytes, not UTF-8
                errors.append(Problem(rel, str(err), None, "syntax"))
        if errors:
            return CompileResult(errors=errors)
        key = (str(ws.project), tuple(files))
        with self._lock:
            self._ran.pop(key, None)
            self._ahead.pop(key, None)
            batched = self._batched.pop(files[0], None) if len(files) == 1 else None
        tree_before = ws.snapshot()
        if batched is not None and [batched[0]] == _texts(ws, files):
            run = batched[1]  # this run, made earlier in a fork of a session shared with others
        else:
            run = self._pytest(ws, "checked", files)
        run.tree_before = tree_before
        if run.environment is not None:  # pytest stopped before any test: its setup, not a test
            return CompileResult(
                errors=[Problem(files[0], run.environment, kind="environment")],
                duration_s=run.duration_s,
            )
        if run.crash is not None:
            run = self._pytest(ws, "collect", files)
        elif not run.errors:
            with self._lock:
                self._ran[key] = (_texts(ws, files), run)
                if run.ahead is not None:
                    self._ahead[key] = (_texts(ws, files), run.ahead)
        return CompileResult(
            errors=run.errors,
            collected=run.collected,
            crash=run.crash,
            duration_s=run.duration_s,
            module_skip=run.module_skip,
            deselected_by=run.deselected_by,
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
        if isolate:
            return self._pytest(ws, "isolate", files, order=order, seed=seed, ids=ids)
        key = (str(ws.project), tuple(files))
        with self._lock:
            kept = self._ran.pop(key, None)
        # the run `compile` made, if the files are still what it ran
        if kept is not None and not ids and order is Order.FILE and kept[0] == _texts(ws, files):
            return kept[1]
        with self._lock:  # the plan run ahead followed a run the caller did not take
            self._ahead.pop(key, None)
        return self._pytest(ws, "run", list(ids) if ids else files, order=order, seed=seed)

    def run_plan(
        self, ws: Workspace, files: list[str], steps: list[RunStep], ids: list[str] | None = None
    ) -> list[TestRun]:
        """Every step in one sandboxed pytest process: collected once, each step in a fork of
        that session."""
        plan = [
            {
                "order": s.order.value,
                "seed": s.seed,
                "isolate": s.isolate,
                "last": s.last_if_failed,
                "ids": alone(ids, s.alone) if s.isolate else None,
                "lean": s.lean,
                "together": s.together,
            }
            for s in steps
        ]
        with self._lock:
            ahead = self._ahead.pop((str(ws.project), tuple(files)), None)
        # the plan `compile`'s process ran ahead, if it is this plan, of these tests, these files
        if (
            ahead is not None
            and (ahead[1].steps, ahead[1].ids) == (plan, list(ids or []))
            and ahead[0] == _texts(ws, files)
        ):
            return ahead[1].runs
        whole = self._pytest(ws, "plan", files, ids=ids, steps=plan)
        if whole.crash is not None or whole.errors:  # the session itself failed: every step saw it
            return [whole for _ in steps]
        return whole.steps

    def batch(self, ws: Workspace, files: list[str]) -> list[str]:
        """Gates 1-2 of several files of one directory, and gate 3's plan ahead, in one sandboxed
        process (`_assay_sandbox.batch`): configured once, each file in a fork collecting only
        itself. Each file's run is kept for its `compile` in any workspace whose file is the same
        (the batch left its tree as it found it); the files it ran so, in order."""
        outs = [self._out(ws) for _ in files]
        job = self._job(ws, "batch", self._out(ws), files)
        job.outs = [str(o) for o in outs]
        self._sandboxed(ws, job, self.timeout_s * len(files) + 30)
        roots = (str(ws.project), str(ws.root))
        done = []
        for rel, out, text in zip(files, outs, _texts(ws, files), strict=True):
            try:
                mark = json.loads(Path(f"{out}.batch").read_text())
                data = json.loads(out.read_text()) if mark["clean"] else None
            except (OSError, ValueError):
                data = None
            if data is None or data["exitstatus"] == USAGE_ERROR:
                continue
            run = TestRun(duration_s=mark["duration_s"])
            read_run(run, data, [rel], roots)
            run.ahead = plan_ahead(Path(f"{out}.plan"), run, roots)
            with self._lock:
                self._batched[rel] = (text, run)
            done.append(rel)
        return done

    def _out(self, ws: Workspace) -> Path:
        return ws.run_dir / f"result-{uuid.uuid4().hex[:10]}.json"

    def _job(
        self,
        ws: Workspace,
        mode: str,
        out: Path,
        paths: list[str],
        order: Order = Order.FILE,
        seed: int = 0,
        ids: list[str] | None = None,
        steps: list[dict] | None = None,
    ) -> PytestJob:
        return PytestJob(
            mode=mode,
            out=str(out),
            user_root=str(ws.root),
            scratch_root=str(ws.project),
            paths=paths,
            source_roots=self.source_roots,
            order=order.value,
            seed=seed,
            ids=list(ids or []),
            test_timeout=self.timeout_s,
            pytest_args=self.pytest_args,
            steps=list(steps or []),
            stability=self.stability if mode in ("checked", "batch") else {},
        )

    def _sandboxed(self, ws: Workspace, job: PytestJob, timeout: float) -> RunResult:
        job_path = Path(job.out).with_suffix(".job.json")
        job_path.write_text(job.to_json())
        # one hash seed for every run, as in the mutation worker: tests parametrized over a set keep
        # their ids
        env = {
            **venv_path(self.sandbox.env_for(ws.run_dir / "home", cache=ws.cache_dir), self.python),
            "PYTHONHASHSEED": HASH_SEED,
        }
        return self.sandbox.run(
            launch.argv(self.python, "pytest", str(job_path)),
            cwd=ws.project,
            env=env,
            timeout=timeout,
        )

    def _pytest(
        self,
        ws: Workspace,
        mode: str,
        paths: list[str],
        order: Order = Order.FILE,
        seed: int = 0,
        ids: list[str] | None = None,
        steps: list[dict] | None = None,
    ) -> TestRun:
        out = self._out(ws)
        job = self._job(ws, mode, out, paths, order, seed, ids, steps)
        if mode == "plan":  # each step and each isolated test has its own deadline inside
            runs = sum(len(ids or []) if s.get("isolate") else 1 for s in steps or [])
            timeout = self.timeout_s * max(1, runs) + 30
        elif mode == "isolate":
            timeout = self.timeout_s * max(1, len(ids or [])) + 30
        else:
            timeout = self.timeout_s
        roots = (str(ws.project), str(ws.root))
        with self._green.watch(str(ws.project) if mode == "checked" else None, out, paths, roots):
            result = self._sandboxed(ws, job, timeout)
        run = TestRun(duration_s=result.duration_s)
        try:
            data: dict[str, Any] | None = json.loads(out.read_text())
        except (OSError, ValueError):
            data = None
        if data is None:
            why = (
                result.limit_hit
                or f"pytest exited with status {result.returncode} and wrote no result"
            )
            if result.timed_out:
                why = f"timed out after {timeout:g} s"
            tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
            run.crash = relativize(
                why + (f"\n{tail}" if tail and not result.timed_out else ""), *roots
            )
            run.running = _last_started(Path(str(out) + ".progress"))
            return run
        if data["exitstatus"] == USAGE_ERROR:
            raise ConfigError(usage_problem(result.stderr))
        read_run(run, data, paths, roots)
        if data["exitstatus"] == INTERNAL_ERROR and not run.tests:
            said = f"{result.stdout}\n{result.stderr}"
            run.environment = relativize(internal_error(said), *roots)
            return run
        if data.get("ended") is False:  # pytest failed after the tests (`Recorder.sessionfinish`)
            told = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
            run.after_tests = relativize(told, *roots) or (
                f"pytest exited with status {result.returncode}"
            )
        if mode == "checked":
            run.ahead = plan_ahead(Path(f"{out}.plan"), run, roots)
        return run


def _texts(ws: Workspace, files: list[str]) -> list[str | None]:
    """The files as they are now (None: gone; a test may delete its own file, which gate 2 must
    still see in the run that did it)."""
    return [
        path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
        for path in (ws.path(rel) for rel in files)
    ]


def stability_ahead(settings: Settings) -> dict[str, Any] | None:
    """Gate 3's settings for the process of gates 1-2 to run its plan ahead (`Reserve`), when gate
    3 and gate 2, whose run it follows, are among the gates that run (else it would be wasted)."""
    if settings.gates is not None and not {"green", "stability"} <= set(settings.gates):
        return None
    cfg = settings.stability
    return {
        "reruns": cfg.reruns,
        "reruns_risky": cfg.reruns_risky,
        "budget_s": cfg.budget_s,
        "random_order": cfg.random_order,
        "seed": cfg.seed,
        "isolation": cfg.isolation,
    }


@dataclass(frozen=True)
class PythonLanguage(Language):
    def toolchain_problem(self, settings: Settings) -> str | None:
        return interpreter_problem(self.python(settings))

    def toolchain_id(self, settings: Settings) -> str:
        """The interpreter and a fingerprint of what is installed for it: a `pip install` changes
        verdicts."""
        python = self.python(settings)
        return f"{python}\0{Installed(python).fingerprint}"

    @staticmethod
    def python(settings: Settings) -> str:
        import sys

        return settings.python.interpreter or sys.executable

    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> PythonPytestRunner:
        return PythonPytestRunner(
            sandbox,
            self.python(settings),
            project.source_roots,
            settings.sandbox.timeout_s,
            pytest_args(project, settings),
            stability_ahead(settings),
        )

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        return project.targets_of(source, rel)


PYTHON = PythonLanguage(
    name="python",
    title="Python",
    extensions=(".py",),
    build_files=("pyproject.toml", "setup.cfg", "setup.py"),
    test_globs=("test_*.py", "*_test.py"),
    tool_section=False,
    fences=("python", "py", "python3", "pytest"),
    test_mark=r"^\s*(async\s+)?def test|^\s*class Test",
    example="shop",
    example_tests="tests",
)
