"""TypeScript: type-checked with the project's `tsc`, run with its vitest or jest
(see `node.py`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.languages.base import Language, Toolchain, WritePlan
from assay.languages.node import NodeRunner, node_module_dirs, package_json
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
_JS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")
_RELATIVE_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}(?:/[^"']*)?)["']"""
)
TEST_DIRS = ("test", "tests", "__tests__")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
# `export * from "./x"`, `export * as ns from "./x"`, `export { a, b as c } from "./x"`
_REEXPORT = re.compile(
    r"""\bexport\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\s*["'](\.{1,2}/[^"']*)["']"""
)
# CommonJS's: `exports.json = require("./lib/types/json")` (body-parser's index.js),
# `module.exports.a = require("./a")`, `module.exports = require("./lib")`
_CJS_REEXPORT = re.compile(
    r"""\b(?:module\.)?exports(?:\.([A-Za-z_$][\w$]*))?\s*=\s*require\s*\(\s*["'](\.{1,2}/[^"']*)["']"""
)
_EXPORTED = re.compile(
    r"\bexport\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?"
    r"(?:function\s*\*?|const|let|var|class|enum|abstract\s+class)\s*([A-Za-z_$][\w$]*)"
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


@lru_cache(maxsize=8)
def resolve_relative(root: Path, base: PurePosixPath) -> PurePosixPath | None:
    """The file a relative import names, as Node resolves it: the file, the file with an
    extension, and for a directory (`require('../')`: the package under test, in many packages'
    tests) its package.json `main`, then its `index` file."""
    tries: list[PurePosixPath] = []
    if base.name and base.name != "..":
        stem = base.with_suffix("") if base.suffix in _JS_EXTENSIONS else base
        tries += [base, *(stem.with_suffix(e) for e in _JS_EXTENSIONS)]
    if (root / base).is_dir():
        main = package_json(root, base.as_posix()).get("main")
        if isinstance(main, str) and main.strip():
            named = PurePosixPath(os.path.normpath(base / main))
            tries.append(named)
            if named.name and named.name != "..":
                tries += [named.with_suffix(e) for e in _JS_EXTENSIONS]
            tries += [named / f"index{e}" for e in _JS_EXTENSIONS]
        tries += [base / f"index{e}" for e in _JS_EXTENSIONS]
    return next((t for t in tries if (root / t).is_file()), None)


def reexported(root: Path, barrel: PurePosixPath, words: set[str], depth: int = 3) -> list[str]:
    """The modules a file re-exports (`export * from "./parse"`, `export { a } from "./b"`) that
    declare a name the test uses, themselves or through their own re-exports (all of them when
    none does), `depth` levels down: ufo's tests import from `../src`, an index of re-exports
    with no code, and gate 4 measured nothing there (accepted, 0 mutants)."""

    def text(module: PurePosixPath) -> str:
        try:
            return (root / module).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def children(module: PurePosixPath) -> list[PurePosixPath]:
        found = (
            resolve_relative(root, PurePosixPath(os.path.normpath(module.parent / spec)))
            for spec in _REEXPORT.findall(text(module))
        )
        return [m for m in found if m is not None]

    def leads(module: PurePosixPath, depth: int) -> bool:
        return bool(words & set(_EXPORTED.findall(text(module)))) or (
            depth > 0 and any(leads(c, depth - 1) for c in children(module))
        )

    found = children(barrel) if depth > 0 else []
    chosen = [m for m in found if leads(m, depth - 1)] or found
    # a CommonJS index: the modules it exports under a name the test uses (body-parser's tests
    # call `bodyParser.json()`: index.js holds no code of it, and gate 4 mutated only index.js),
    # all of them when it names none
    cjs = [
        (name, m)
        for name, spec in (_CJS_REEXPORT.findall(text(barrel)) if depth > 0 else [])
        if (m := resolve_relative(root, PurePosixPath(os.path.normpath(barrel.parent / spec))))
    ]
    chosen += [m for name, m in cjs if not name or name in words] or [m for _, m in cjs]
    out = []
    for module in chosen:
        out += [module.as_posix(), *reexported(root, module, words, depth - 1)]
    return out


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

    def runner_spec(self, root: Path, path: Path) -> bool:
        """mocha's default spec, `./test/*.{js,cjs,mjs}` of a package that tests with mocha and
        names no `spec` of its own (body-parser's `test/json.js`: a directory gave no file)."""
        if path.suffix not in (".js", ".cjs", ".mjs") or path.parent.name != "test":
            return False
        package = path.parent.parent
        if not (package / "package.json").is_file() or any(package.glob(".mocharc*")):
            return False
        pkg = package_json(root, package.relative_to(root).as_posix())
        deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
        return "mocha" in deps and "spec" not in (pkg.get("mocha") or {})

    def profile_for(self, project: Project) -> Profile:
        return _profile(project.root)

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        """The project's files a test file imports by relative path (`../src/price`,
        `./util.js` standing for `util.ts`), those in a test directory left out: what gate 4
        mutates."""
        out: list[str] = []
        words = set(_WORD.findall(source))
        for spec in _RELATIVE_IMPORT.findall(source):
            base = PurePosixPath(os.path.normpath(PurePosixPath(rel).parent / spec))
            found = resolve_relative(project.root, base)
            # a helper of the test suite (@fastify/merge-json-schemas' test/utils.js) is the
            # tests' own code, not the code under test
            helper = found is not None and bool(set(found.parts[:-1]) & set(TEST_DIRS))
            if found is not None and not self.is_test_file(found.as_posix()) and not helper:
                out += [found.as_posix(), *reexported(project.root, found, words)]
        return list(dict.fromkeys(out))

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
        runner = next((r for r in ("vitest", "jest", "mocha") if r in deps), "node")
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
