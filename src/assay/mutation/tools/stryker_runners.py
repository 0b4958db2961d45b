"""Which StrykerJS and which of its test-runner plugins: assay's own install (`home`), the
project's runner as gates 1-3 choose it, Stryker's options for it, and a plugin too old for the
project's runner version."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

from assay.languages.node_checks import package_json, script_runner
from assay.sandbox import assay_cache

STRYKER_VERSION = "9.6.1"
CORE = "@stryker-mutator/core"
# the project's test runner -> Stryker's plugin for it (per-test coverage); others: command runner
RUNNERS = {
    "vitest": "@stryker-mutator/vitest-runner",
    "jest": "@stryker-mutator/jest-runner",
    "mocha": "@stryker-mutator/mocha-runner",
}
PACKAGES = tuple(f"{name}@{STRYKER_VERSION}" for name in (CORE, *RUNNERS.values()))
HIDDEN = "/\\.assay-stryker/"  # a path pattern (regex) of assay's Stryker files


def home() -> Path:
    """Where assay keeps its StrykerJS (`node_modules/@stryker-mutator/...`)."""
    return assay_cache() / "tools" / f"stryker-{STRYKER_VERSION}"


def install_command() -> str:
    return f"npm install --prefix {home()} {' '.join(PACKAGES)}"


def _version(package_json: Path) -> tuple[str, tuple[int, ...]] | None:
    try:
        text = str(json.loads(package_json.read_text(encoding="utf-8")).get("version", ""))
        return text, tuple(int(n) for n in re.findall(r"\d+", text.split("-")[0])[:3])
    except (OSError, ValueError):
        return None


def unsupported_runner(root: Path, module: str, runner_name: str) -> str | None:
    """Why Stryker's plugin for the project's runner cannot drive the version the project has
    (the plugin's `>=` peer dependency), or None. scule's vitest 1.6.1 got "StrykerJS failed: exit
    1" and five stack frames after a 90 s run; the cause, `this.ctx.provide is not a function`, was
    cut off."""
    plugin = RUNNERS.get(runner_name)
    if plugin is None:
        return None
    try:
        meta = json.loads((home() / "node_modules" / plugin / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    wanted = str((meta.get("peerDependencies") or {}).get(runner_name, ""))
    floor = re.fullmatch(r">=\s*(\d+(?:\.\d+){0,2})", wanted.strip())
    here = root / module
    found = next(
        (
            v
            for d in (here, *here.parents)
            if (v := _version(d / "node_modules" / runner_name / "package.json"))
            and (d == root or root in d.parents)
        ),
        None,
    )
    if floor is None or found is None:
        return None
    need = tuple(int(n) for n in floor.group(1).split("."))
    if found[1] >= need:
        return None
    return (
        f"Stryker's {runner_name} runner ({plugin} {STRYKER_VERSION}) needs {runner_name} "
        f"{wanted}; this project has {runner_name} {found[0]}: gate 4 cannot run here "
        f"(upgrade {runner_name} to measure the file's mutation score)"
    )


def runner(root: Path, module: str, configured: str | None = None) -> str:
    """The package's test runner, as gates 1-3 choose it: the configured one, else from its
    `package.json` dependencies or, a runner a wrapper brings (`kcd-scripts` brings jest), its
    `node_modules/.bin`: vitest, jest, mocha, or node (node's own `node --test`)."""
    if configured:
        return configured
    pkg = package_json(root, module)
    if found := script_runner(pkg):  # what its `npm test` runs
        return found
    deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
    here = PurePosixPath(module)
    bins = [root / d / "node_modules" / ".bin" for d in (here, *here.parents)]
    return next(
        (n for n in RUNNERS if n in deps or any((b / n).exists() for b in bins)),
        "node",
    )


def _jest_options(test_args: list[str]) -> dict[str, Any]:
    """The jest config file and root directory gates 1-3 were told (`test_args`: `--config
    FILE`, `--rootDir DIR`), as Stryker's jest runner takes them."""
    out: dict[str, Any] = {}
    for flag, value in zip(test_args, test_args[1:], strict=False):
        if flag in ("--config", "-c"):
            out["configFile"] = value
        elif flag == "--rootDir":
            out["rootDir"] = value
    return out


def runner_config(
    name: str, tests: list[str], pkg: dict[str, Any], test_args: list[str] | None = None
) -> dict[str, Any]:
    """Stryker's options for the runner `name` on the package-relative test files `tests` of
    the package whose `package.json` is `pkg`; jest's config file from gates 1-3's `test_args`."""
    if name not in RUNNERS:  # node's own runner: no plugin, no per-test coverage
        return {
            "testRunner": "command",
            "commandRunner": {"command": f"node --test {' '.join(tests)}"},
            "coverageAnalysis": "off",
        }
    plugin = home() / "node_modules" / RUNNERS[name] / "dist/src/index.js"
    by_runner: dict[str, dict[str, Any]] = {
        "vitest": {"vitest": {"related": False}},
        # the project's own jest config (package.json or jest.config.*), no `--findRelatedTests`,
        # and not the originals Stryker backs up under its temp dir (jest would run them too)
        "jest": {
            "jest": {
                "projectType": "custom",
                "enableFindRelatedTests": False,
                "config": {
                    key: [*pkg.get("jest", {}).get(key, default), HIDDEN]
                    for key, default in (
                        ("testPathIgnorePatterns", ["/node_modules/"]),
                        ("modulePathIgnorePatterns", []),
                    )
                },
            }
        },
        "mocha": {"mochaOptions": {"spec": tests}},
    }
    jest = _jest_options(test_args or [])
    if name == "jest" and "configFile" in jest:
        by_runner["jest"]["jest"]["configFile"] = jest["configFile"]
    if name == "jest" and "rootDir" in jest:
        by_runner["jest"]["jest"]["config"]["rootDir"] = jest["rootDir"]
    return {
        "testRunner": name,
        "plugins": [str(plugin)],
        "coverageAnalysis": "perTest",
        **by_runner[name],
    }
