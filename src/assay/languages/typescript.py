"""TypeScript: type-checked with the project's `tsc`, run with its vitest or jest
(see `node.py`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.languages.base import Language, Toolchain, WritePlan
from assay.languages.js_targets import TEST_DIRS, js_sources
from assay.languages.mocha_spec import takes_file
from assay.languages.node import NodeRunner, node_module_dirs, package_json
from assay.languages.node_checks import script_runner
from assay.languages.tooling import module_files, nearest
from assay.sandbox import Profile, Sandbox

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

NODE_INSTALL = "install Node.js 20 or newer (https://nodejs.org, or apt install nodejs npm)"
NODE_PROFILE = Profile(
    name="node",
    passes=("NODE_PATH", "NVM_DIR", "NVM_BIN"),
    memory="cgroup",
    max_processes=1024,
    env={
        "CI": "1",
        "NO_COLOR": "1",
        "FORCE_COLOR": "0",
        "NODE_OPTIONS": "",
        "npm_config_offline": "true",
        "npm_config_cache": "{cache}/npm",
    },
)
_NODE_ESM = re.compile(r'"(module|moduleResolution)"\s*:\s*"node(16|next)"', re.I)
FRAMEWORKS = {
    "vitest": 'vitest (`import { describe, it, expect } from "vitest";`)',
    "jest": "jest (describe/it/expect are globals; expect(...).toThrow for errors)",
    "mocha": "mocha (describe/it are globals, no expect: "
    '`const assert = require("node:assert/strict");`, or the package\'s own chai)',
    "node": 'node:test (`import { test } from "node:test"; '
    'import assert from "node:assert/strict";`)',
}


def _profile(root: Path) -> Profile:
    return Profile(**{**NODE_PROFILE.__dict__, "links": node_module_dirs(root)})


@dataclass(frozen=True)
class NodeLanguage(Language):
    """A language run by Node: its runner and a profile that links the project's
    `node_modules` read-only."""

    # the smells rules' sleeps and mocks in JavaScript and TypeScript tests (AP003, AP005)
    SLEEP = r"^(setTimeout|sleep|delay|(\w+\.)?wait(ForTimeout)?)$"
    MOCKS = (
        r"^(jest|vi)\.(mock|fn|spyOn|doMock)$|^sinon\.(stub|spy|mock|fake)$|"
        r"^(td\.)?(func|object)$"
    )

    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> NodeRunner:
        return NodeRunner(self.name, sandbox, project, settings, self.profile_for(project))

    def runner_spec(self, root: Path, path: Path) -> bool | None:
        """Whether the mocha of the package holding `path` takes it as a test file
        (`mocha_spec.takes_file`: its config's or `test` script's spec, else mocha's default
        `./test/*.{js,cjs,mjs}`; body-parser's `test/json.js`: a directory gave no file)."""
        rel = PurePosixPath(path.relative_to(root).as_posix())
        module = nearest(root, rel.as_posix(), ("package.json",))
        return None if module is None else takes_file(root, PurePosixPath(module), rel)

    def profile_for(self, project: Project) -> Profile:
        return _profile(project.root)

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        """What gate 4 mutates: `js_targets.js_sources`."""
        return js_sources(project.root, source, rel, self.is_test_file)

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        module = nearest(project.root, rel, ("package.json",)) or "."
        return module_files(
            project.root,
            module,
            (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx"),
            (
                "package.json",
                "package-lock.json",
                "tsconfig.json",
                "vitest.config.ts",
                "vitest.config.js",
                "jest.config.js",
                "jest.config.ts",
            ),
        )

    def plan_tests(self, root: Path, source_rel: str, n: int = 1) -> WritePlan:
        """`<stem>.assay.test.<ext>` in the package's test directory (`test/`, `tests/`,
        `__tests__/`), else beside the source; the framework the package's own tests run with; a
        relative import (`.js` where Node's ESM resolution wants one)."""
        src = PurePosixPath(source_rel)
        module = nearest(root, source_rel, ("package.json",)) or "."
        where = next(
            (PurePosixPath(module, d) for d in TEST_DIRS if (root / module / d).is_dir()),
            src.parent,
        )
        ext = src.suffix
        stem = src.name[: -len(ext)]
        path = where / f"{stem}.assay{'' if n == 1 else n}.test{ext}"
        pkg = package_json(root, module)
        deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
        runner = script_runner(pkg) or next(
            (r for r in ("vitest", "jest", "mocha") if r in deps), "node"
        )
        tsconfig = nearest(root, source_rel, ("tsconfig.json",))
        config = (
            (root / tsconfig / "tsconfig.json").read_text(errors="replace")
            if tsconfig is not None
            else ""
        )
        esm = bool(_NODE_ESM.search(config)) or (
            self.name == "javascript" and pkg.get("type") == "module"
        )
        spec = os.path.relpath(src.with_suffix("").as_posix(), where.as_posix())
        spec = (spec if spec.startswith(".") else "./" + spec) + (".js" if esm else "")
        return WritePlan(
            path.as_posix(), FRAMEWORKS[runner], f'import the code under test as "{spec}"'
        )


TYPESCRIPT = NodeLanguage(
    name="typescript",
    title="TypeScript",
    extensions=(".ts", ".tsx", ".mts", ".cts"),
    build_files=("tsconfig.json", "package.json"),
    test_globs=(
        "*.test.ts",
        "*.spec.ts",
        "*.test.tsx",
        "*.spec.tsx",
        "*.test.mts",
        "*.spec.mts",
        # jest's default `testMatch` also takes every file under `__tests__` (match-sorter)
        "__tests__/*.ts",
        "*/__tests__/*.ts",
        "__tests__/*.tsx",
        "*/__tests__/*.tsx",
    ),
    toolchain=(Toolchain("node", NODE_INSTALL),),
    profile=NODE_PROFILE,
    fences=("ts", "typescript", "tsx"),
    test_mark=r"\b(it|test)\s*\(",
    example="ts",
    smells=NodeLanguage.Smells(
        "tree_sitter_typescript:language_typescript",
        ("call_expression",),
        "js",
        sleep=NodeLanguage.SLEEP,
        mocks=NodeLanguage.MOCKS,
        variants=((".tsx", "tree_sitter_typescript:language_tsx"),),
    ),
)
