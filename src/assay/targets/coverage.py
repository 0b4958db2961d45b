"""Coverage-driven targets: one instrumented run of the project's tests (coverage.py, branch mode)
in a scratch copy inside the sandbox, read back as missing lines and branches per function.

The user's own coverage settings are ignored (an empty rcfile): `fail_under` or a narrow `source`
must not change what assay measures. The run is cached by a hash of every Python file and config
file of the project."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from assay._assay_sandbox.plugins import quieting_args
from assay.config import Settings
from assay.errors import ConfigError
from assay.execution.workspace import Workspace
from assay.languages.python import USAGE_ERROR, usage_problem
from assay.project import Project
from assay.project.discovery import walk
from assay.sandbox import Sandbox
from assay.store import Store

NAMESPACE = "coverage"
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "conftest.py")


@dataclass
class FileCoverage:
    missing_lines: list[int] = field(default_factory=list)
    missing_branches: list[tuple[int, int]] = field(default_factory=list)
    executed_lines: list[int] = field(default_factory=list)


@dataclass
class CoverageData:
    files: dict[str, FileCoverage]  # project-relative path -> coverage
    problem: str | None = None  # why nothing (or not everything) was measured
    duration_s: float = 0.0


# how assay measures; a new value drops cached measurements (2: pytest-cov switched off, whose own
# tracer had left assay's coverage.py with nothing)
MEASURE = 2


def project_hash(project: Project, settings: Settings) -> str:
    h = hashlib.sha256(
        f"{MEASURE}\0{settings.python.interpreter}\0{settings.python.pytest_args}".encode()
    )
    for path in sorted(walk(project.root, {".py", ".toml", ".cfg", ".ini"})):
        h.update(str(path.relative_to(project.root)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def measure(project: Project, settings: Settings, use_cache: bool = True) -> CoverageData:
    """Missing lines and branches of every measured source file, from one run of the
    project's tests."""
    from assay.languages.python import PYTHON

    store = Store(project.root if settings.cache else None)
    try:
        key = project_hash(project, settings)
        if use_cache and (hit := store.get(NAMESPACE, key)):
            return CoverageData(
                {
                    rel: FileCoverage(
                        f["missing_lines"],
                        [tuple(b) for b in f["missing_branches"]],
                        f["executed_lines"],
                    )
                    for rel, f in hit.items()
                }
            )
        data = _run(project, settings, PYTHON.python(settings))
        if data.problem is None:
            store.put(
                NAMESPACE,
                key,
                {
                    rel: {
                        "missing_lines": f.missing_lines,
                        "executed_lines": f.executed_lines,
                        "missing_branches": [list(b) for b in f.missing_branches],
                    }
                    for rel, f in data.files.items()
                },
            )
        return data
    finally:
        store.close()


PROBE = (
    "import importlib.util, json, sys; "
    "print(json.dumps({m: importlib.util.find_spec(m) is not None for m in sys.argv[1:]}))"
)


def _installed(
    sandbox: Sandbox, python: str, env: dict[str, str], cwd: Path, modules: tuple[str, ...]
) -> dict[str, bool]:
    """Which of `modules` the project's interpreter can import."""
    probe = sandbox.run([python, "-c", PROBE, *modules], cwd=cwd, env=env, timeout=60)
    try:
        found = json.loads(probe.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        found = {}
    return {m: bool(found.get(m)) for m in modules}


def _lend_coverage(run_dir: Path) -> Path:
    """A directory holding only assay's coverage package (a link): on the project interpreter's path
    it adds coverage.py and nothing else of assay's environment."""
    import coverage

    lent = run_dir / "lent"
    lent.mkdir(exist_ok=True)
    (lent / "coverage").symlink_to(Path(coverage.__file__).parent, target_is_directory=True)
    return lent


def _run(project: Project, settings: Settings, python: str) -> CoverageData:
    sandbox = Sandbox(settings.sandbox, protect=project.root)
    with Workspace(project.root) as ws:
        rc = ws.run_dir / "coveragerc"
        rc.write_text("[run]\nbranch = True\n")
        data_file = ws.run_dir / "coverage.data"
        out = ws.run_dir / "coverage.json"
        roots = [str(ws.project / r) for r in project.source_roots]
        env = sandbox.env_for(
            ws.run_dir / "home", extra={"PYTHONPATH": os.pathsep.join(roots)}, cache=ws.cache_dir
        )
        has = _installed(sandbox, python, env, ws.project, ("coverage", "pytest_cov"))
        if not has["coverage"]:  # measure with assay's own coverage.py, after the project's paths
            env["PYTHONPATH"] = os.pathsep.join([*roots, str(_lend_coverage(ws.run_dir))])
        source = ",".join(roots)
        timeout = max(settings.sandbox.timeout_s * 5, 120.0)
        run = sandbox.run(
            [
                python,
                "-m",
                "coverage",
                "run",
                f"--rcfile={rc}",
                f"--data-file={data_file}",
                f"--source={source}",
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "--continue-on-collection-errors",
                *settings.python.pytest_args,
                *quieting_args(settings.python.pytest_args, has["pytest_cov"]),
            ],
            cwd=ws.project,
            env=env,
            timeout=timeout,
        )
        # coverage.py did not start (no data file): assay's own does not run under that Python
        if not has["coverage"] and not data_file.exists() and not run.timed_out:
            return CoverageData(
                {},
                f"coverage.py is not installed for {python}, and assay's own does not run "
                "under it: pip install coverage",
            )
        if run.returncode == USAGE_ERROR:
            raise ConfigError(usage_problem(run.stderr))
        if run.timed_out:
            return CoverageData(
                {}, f"the project's tests did not finish within {timeout:g} s", run.duration_s
            )
        report = sandbox.run(
            [
                python,
                "-m",
                "coverage",
                "json",
                f"--rcfile={rc}",
                f"--data-file={data_file}",
                "-o",
                str(out),
                "-q",
            ],
            cwd=ws.project,
            env=env,
            timeout=120,
        )
        try:
            raw = json.loads(out.read_text())
        except (OSError, ValueError):
            tail = " ".join((report.stderr or run.stderr or run.stdout).strip().splitlines()[-2:])[
                :300
            ]
            return CoverageData(
                {}, f"coverage measured nothing ({tail or 'no data'})", run.duration_s
            )
        files = {}
        for name, f in raw.get("files", {}).items():
            path = Path(name) if os.path.isabs(name) else ws.project / name
            try:
                rel = path.resolve().relative_to(ws.project.resolve()).as_posix()
            except ValueError:
                continue
            files[rel] = FileCoverage(
                sorted(f.get("missing_lines", [])),
                sorted(tuple(b) for b in f.get("missing_branches", [])),
                sorted(f.get("executed_lines", [])),
            )
        problem = None
        if run.returncode not in (0, 1):  # 1: some tests failed, which still measures the rest
            problem = (
                f"the project's tests ended with status {run.returncode}; coverage may be partial"
            )
        return CoverageData(files, problem, run.duration_s)
