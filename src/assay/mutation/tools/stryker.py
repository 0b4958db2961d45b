"""JavaScript and TypeScript: StrykerJS, run from assay's own install (`~/.cache/assay/tools/`,
prepared once with the network: `.ci/toolchains`), in the scratch copy, offline.

Stryker runs in the package's directory of the copy, so its vitest runner resolves the project's own
vitest; `inPlace` mutates the copy's files (never the user's tree). With vitest: per-test coverage,
the package's other test files taken out of the copy first (Stryker's vitest runner takes no file
filter, and a config of assay's own would need vite to bundle it into the read-only
`node_modules`). Other runners (jest, mocha, node's) go through Stryker's command runner on the
candidate files: no per-test attribution there, every test of the file counts as the killer of a
detected mutant. The mutation-testing-elements JSON (`reporters: ["json"]`) is read back,
Stryker's test names mapped onto gate 2's ids (`<file>::describe > it`).

StrykerJS 9.6 is the pinned version: 10.x requires Node 22, Debian ships Node 20.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from assay.errors import RunFailed
from assay.feedback import relativize
from assay.languages import LANGUAGES
from assay.languages.compiler_output import error_tail
from assay.languages.node import TITLE_SEP, package_json
from assay.languages.tooling import TEST_ID_SEP, nearest, under
from assay.mutation.model import Mutant, MutantResult, MutationResult, Status
from assay.mutation.tools.base import ToolRequest, assemble, drop_other_tests, span_mutant
from assay.sandbox import assay_cache

STRYKER_VERSION = "9.6.1"
PACKAGES = (
    f"@stryker-mutator/core@{STRYKER_VERSION}",
    f"@stryker-mutator/vitest-runner@{STRYKER_VERSION}",
)
CONFIG = ".assay-stryker.json"
REPORT = ".assay-stryker/mutation.json"
STATUS = {s.value: s for s in Status}


def home() -> Path:
    """Where assay keeps its StrykerJS (`node_modules/@stryker-mutator/...`)."""
    return assay_cache() / "tools" / f"stryker-{STRYKER_VERSION}"


def install_command() -> str:
    return f"npm install --prefix {home()} {' '.join(PACKAGES)}"


class Stryker:
    name = "stryker"
    # with vitest; the command runner (jest, mocha, node's) names every test of the file
    per_test_kills = True

    def __init__(self, language: str):
        self.language = language

    def unavailable(self, request: ToolRequest) -> str | None:
        return None

    def problem(self, request: ToolRequest) -> str | None:
        if shutil.which("node") is None:
            return "StrykerJS needs Node.js: `node` not found on PATH (apt install nodejs npm)"
        for package in PACKAGES:
            name = package.rsplit("@", 1)[0]
            if not (home() / "node_modules" / name / "package.json").is_file():
                return f"{name} {STRYKER_VERSION} is not installed for assay: {install_command()}"
        return None

    def run(self, request: ToolRequest) -> MutationResult:
        start = time.monotonic()
        first = request.tests[0] if request.tests else request.targets[0]
        module = nearest(request.root, first, ("package.json",)) or "."
        base = request.root / module
        pkg = package_json(request.root, module)
        deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
        config: dict[str, Any] = {
            "mutate": [under(module, t) for t in request.targets],
            "reporters": ["json"],
            "jsonReporter": {"fileName": REPORT},
            "inPlace": True,
            "tempDirName": ".assay-stryker/tmp",
            "cleanTempDir": True,
            "concurrency": max(1, request.settings.mutation.workers or 2),
            "logLevel": "error",
            "fileLogLevel": "off",
            "allowEmpty": True,
        }
        tests = [under(module, t) for t in request.tests]
        if "vitest" in deps:
            drop_other_tests(request, LANGUAGES[self.language], module)
            plugin = home() / "node_modules/@stryker-mutator/vitest-runner/dist/src/index.js"
            config |= {
                "testRunner": "vitest",
                "plugins": [str(plugin)],
                "coverageAnalysis": "perTest",
                "vitest": {"related": False},
            }
        else:
            runner = "jest" if "jest" in deps else "mocha" if "mocha" in deps else "node"
            command = (
                f"node --test {' '.join(tests)}"
                if runner == "node"
                else f"node_modules/.bin/{runner} {' '.join(tests)}"
            )
            config |= {
                "testRunner": "command",
                "commandRunner": {"command": command},
                "coverageAnalysis": "off",
            }
        (base / CONFIG).write_text(json.dumps(config, indent=2), encoding="utf-8")
        report = base / REPORT
        report.unlink(missing_ok=True)
        cli = home() / "node_modules/@stryker-mutator/core/bin/stryker.js"
        ran = request.exec(
            ["node", str(cli), "run", CONFIG],
            module,
            replace(LANGUAGES[self.language].profile_for(request.project), loopback=True),
            # names assay's own install to the sandbox, which hides the home it sits in and shows
            # back what a run names (read-only); it also resolves Stryker's plugins
            env={"NODE_PATH": str(home() / "node_modules")},
        )
        if ran.returncode != 0 or not report.is_file():
            text = relativize(error_tail(ran.stdout + "\n" + ran.stderr), str(request.root))
            raise RunFailed(
                f"StrykerJS failed: {ran.limit_hit or f'exit {ran.returncode}'}\n{text}"
            )
        data = json.loads(report.read_text(encoding="utf-8"))
        mutants, results, sources = read_report(data, module, request.root, request.passing)
        return assemble(mutants, results, sources, request, time.monotonic() - start)


def read_report(
    data: dict[str, Any], module: str, root: Path, passing: tuple[str, ...] = ()
) -> tuple[list[Mutant], dict[str, MutantResult], dict[str, str]]:
    """Stryker's mutation-testing-elements JSON (run in the project-relative `module` of the copy
    at `root`) as assay's mutants, results and sources; test names mapped onto `passing` ids."""

    def rel(path: str) -> str:
        return os.path.normpath(PurePosixPath(module, path)).replace(os.sep, "/")

    by_name = {
        (t.split(TEST_ID_SEP, 1)[0], t.split(TEST_ID_SEP, 1)[-1].replace(TITLE_SEP, " ")): t
        for t in passing
    }
    names: dict[str, str] = {}  # Stryker's test id -> gate 2's
    for path, entry in (data.get("testFiles") or {}).items():
        for test in entry.get("tests", []):
            key = (rel(path), test.get("name", ""))
            names[test["id"]] = by_name.get(key, f"{key[0]}{TEST_ID_SEP}{key[1]}")
    every = list(dict.fromkeys([*passing, *names.values()]))
    mutants: list[Mutant] = []
    results: dict[str, MutantResult] = {}
    sources: dict[str, str] = {}
    for path, entry in data.get("files", {}).items():
        file = rel(path)
        source = sources[file] = entry.get("source") or (root / file).read_text("utf-8")
        for m in entry.get("mutants", []):
            loc = m["location"]
            mutant = span_mutant(
                f"stryker-{m['id']}",
                file,
                source,
                (loc["start"]["line"], loc["start"]["column"]),
                (loc["end"]["line"], loc["end"]["column"]),
                m.get("replacement", ""),
                m.get("mutatorName", "stryker"),
            )
            status = STATUS.get(m.get("status", ""), Status.RUNTIME_ERROR)
            killed = [names.get(t, t) for t in m.get("killedBy") or []]
            covered = [names.get(t, t) for t in m.get("coveredBy") or []]
            if status in (Status.KILLED, Status.TIMEOUT) and not killed:  # command runner
                killed = every
            if status is not Status.NO_COVERAGE and not covered:
                covered = killed or every
            mutants.append(mutant)
            results[mutant.id] = MutantResult(
                status,
                covered_by=covered,
                killed_by=killed,
                tests_completed=int(m.get("testsCompleted") or 0),
                reason=m.get("statusReason", "") if status is not Status.SURVIVED else "",
            )
    return mutants, results, sources
