"""The JSON `_assay_sandbox.pytest_runner` writes, as typed runs (paths made project-relative)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from assay.execution.runner import Outcome, PlanAhead, Problem, TestResult, TestRun
from assay.feedback import relativize


def read_run(run: TestRun, data: dict[str, Any], paths: list[str], roots: tuple[str, ...]) -> None:
    """`run` filled from the JSON a pytest process wrote for `paths`."""
    run.collected = data["collected"]
    run.errors = [
        Problem(
            e["nodeid"] or paths[0],
            relativize(e["message"], *roots),
            kind="fixture" if e.get("fixture") else "collection",
        )
        for e in data["errors"]
    ]
    run.exit_status = data["exitstatus"]
    run.module_skip = data.get("module_skip")
    run.deselected_by = data.get("deselected_by")
    run.leaked = data["leaked"]
    if data.get("writes") is not None:
        run.writes = frozenset(data["writes"])
    run.tests = results(data["tests"], roots)
    run.steps = step_runs(data.get("steps", []), run, roots)


def step_runs(steps: list[dict], whole: TestRun, roots: tuple[str, ...]) -> list[TestRun]:
    """A plan's runs, from the JSON of the process that ran it."""
    return [
        TestRun(
            tests=results(step["tests"], roots),
            collected=whole.collected,
            crash=relativize(step["crash"], *roots) if step.get("crash") else None,
            running=step.get("running"),
            out_of_time=bool(step.get("out_of_time")),
            duration_s=whole.duration_s,
            lean=step.get("lean", 0),
            together=bool(step.get("together")),
            screened={
                relativize(t, *roots): relativize(m or "", *roots)
                for t, m in step.get("screened", {}).items()
            },
        )
        for step in steps
    ]


def plan_ahead(path: Path, whole: TestRun, roots: tuple[str, ...]) -> PlanAhead | None:
    """Gate 3's plan as gates 1-2's process ran it (`Reserve`), if it did and finished."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    runs = step_runs(data["steps"], whole, roots)
    return PlanAhead(data["plan"], data["ids"], runs, frozenset(data["writes"]))


def results(tests: dict[str, dict], roots: tuple[str, ...]) -> dict[str, TestResult]:
    return {
        k: TestResult(
            k,
            Outcome(v["outcome"]),
            v["duration"],
            relativize(v["message"], *roots),
            tuple(relativize(line, *roots) for line in v.get("import_errors", ())),
            v.get("raised_at", ""),
            bool(v.get("marked_flaky")),
        )
        for k, v in tests.items()
    }


INTERNAL_ERROR = 3  # pytest.ExitCode.INTERNAL_ERROR
# ini options of common pytest plugins -> the plugin's distribution
PLUGIN_OPTIONS = {
    "asyncio_mode": "pytest-asyncio",
    "asyncio_default_fixture_loop_scope": "pytest-asyncio",
    "trio_mode": "pytest-trio",
    "timeout": "pytest-timeout",
    "timeout_method": "pytest-timeout",
    "DJANGO_SETTINGS_MODULE": "pytest-django",
    "django_find_project": "pytest-django",
    "env": "pytest-env",
    "mock_use_standalone_module": "pytest-mock",
    "looponfailroots": "pytest-xdist",
    "qt_api": "pytest-qt",
    "bdd_features_base_dir": "pytest-bdd",
}
# the warning's own line, not the source line of pytest's traceback that formats it
_UNKNOWN_OPTION = re.compile(r"Unknown config option: ([\w.-]+)\s*$", re.M)
# the first line of a raised exception, `pytest.PytestDeprecationWarning: The configuration ...`
_EXCEPTION = re.compile(r"[\w.]*(Warning|Error|Exception|Exit)\b[^:\s]*:")


def internal_error(output: str) -> str:
    """Why pytest stopped with an internal error before any test ran, for the `environment` of
    the run (the file is `unvalidated`, no test blamed). blinker's `filterwarnings = ["error"]`
    with `asyncio_mode = "auto"` and no pytest-asyncio: the unknown option's warning became the
    error, and the file read "NO TEST PASSED ... skipped, xfail, or lacks a dependency"."""
    if found := _UNKNOWN_OPTION.findall(output):
        option = found[-1]
        if plugin := PLUGIN_OPTIONS.get(option):
            return (
                f"pytest stopped before any test ran: the project's pytest configuration sets "
                f"`{option}`, an option of the plugin {plugin}, which is not installed for the "
                f"test interpreter; pip install {plugin}"
            )
        return (
            f"pytest stopped before any test ran: the project's pytest configuration sets "
            f"`{option}`, which no installed plugin knows (a pytest plugin of the project's test "
            "dependencies is missing from the test interpreter)"
        )
    lines = [
        ln.removeprefix("INTERNALERROR>").strip()
        for ln in output.strip().splitlines()
        if ln.startswith("INTERNALERROR>")
    ]
    # the exception's whole message: its first line names what to do (async_lru 2.4.0's "The
    # configuration option "asyncio_default_fixture_loop_scope" is unset."), the last one did not
    start = max((i for i, ln in enumerate(lines) if _EXCEPTION.match(ln)), default=len(lines) - 1)
    last = " ".join(ln for ln in lines[start:] if ln) if lines else ""
    said = "pytest stopped with an internal error before any test ran" + (
        f": {last}" if last else ""
    )
    if re.match(r"[\w.]*Warning:", last):  # blinker's pytest-asyncio, newer than it pins
        said += " (a warning, which the project's `filterwarnings = error` makes an error)"
    return said


_SAID = re.compile(r"error:(.+)", re.IGNORECASE)
# command-line options of common pytest plugins (a prefix) -> the plugin's distribution
PLUGIN_ARGS = (
    ("--cov", "pytest-cov"),
    ("--no-cov", "pytest-cov"),
    ("--disable-socket", "pytest-socket"),
    ("--allow-hosts", "pytest-socket"),
    ("--timeout", "pytest-timeout"),
    ("--reruns", "pytest-rerunfailures"),
    ("--benchmark", "pytest-benchmark"),
    ("--snapshot", "syrupy"),
    ("--hypothesis", "hypothesis"),
    ("--randomly", "pytest-randomly"),
    ("--dist", "pytest-xdist"),
    ("--numprocesses", "pytest-xdist"),
    ("--mypy", "pytest-mypy"),
    ("--ds", "pytest-django"),
    ("--reuse-db", "pytest-django"),
    ("--asyncio-mode", "pytest-asyncio"),
)


def usage_problem(stderr: str) -> str:
    """A pytest usage error as a configuration error: pytest's own line, where its arguments come
    from, and the plugins that own the options it did not know (url-normalize's addopts:
    `--cov=...` of pytest-cov, `--disable-socket` of pytest-socket, from its `dev` extra). Never
    a verdict: no test of the file was looked at."""
    # argparse's `pytest: error: unrecognized arguments: ...`, a plugin's `ERROR: Error importing
    # plugin "x": No module named 'x'`
    said = [m.group(1).strip() for line in stderr.splitlines() if (m := _SAID.search(line))]
    cause = said[-1] if said else "a usage error"
    unknown = cause.removeprefix("unrecognized arguments:").split() if said else []
    plugins = list(
        dict.fromkeys(
            plugin for arg in unknown for prefix, plugin in PLUGIN_ARGS if arg.startswith(prefix)
        )
    )
    if plugins:
        return (
            f"pytest rejected its arguments ({cause}): options of "
            f"{', '.join(plugins)}, not installed for the test interpreter (pip install "
            f"{' '.join(plugins)}), or drop them from pytest_args in [tool.assay.python] or the "
            "addopts of the project's pytest configuration"
        )
    return (
        f"pytest rejected its arguments ({cause}): check pytest_args in [tool.assay.python] and "
        "the addopts of the project's pytest configuration"
    )
