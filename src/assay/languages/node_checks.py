"""Gate 1's checks of a TypeScript or JavaScript test file before (or, for `node --test`, after)
its first run: TypeScript's type check with the project's `tsc`, JavaScript's `node --check`."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import CompileResult, Problem
from assay.languages import mocha, tsc_cache
from assay.languages.compiler_output import tsc_errors
from assay.languages.tooling import nearest, under

if TYPE_CHECKING:
    from assay.execution.runner import TestResult, TestRun
    from assay.execution.workspace import Workspace
    from assay.languages.node import NodeRunner

_NODE_CHECK = re.compile(r"^(?P<file>.+?):(?P<line>\d+)$")
# ufo's join.test.ts: TS2556 at gate 1, while `vitest run` (which strips types unchecked) passes
UNCHECKED_BY_VITEST = (
    "Fix the type errors: assay type-checks a .ts test before it runs (tsc with the project's "
    "tsconfig.json compilerOptions); vitest runs it without a type check, so `vitest run` passes "
    "it as it is."
)


# tsc's errors in the options of a tsconfig (TS5xxx): it type-checks no file after them
_OPTION_ERROR = re.compile(r"error TS5\d{3}: .*")
_DEPRECATED = re.compile(r"error TS5\d{3}: .*deprecated.*\"ignoreDeprecations\": \"([\d.]+)\"")


def tsc(self: NodeRunner, ws: Workspace, rel: str, module: str) -> CompileResult:
    """The project's `tsc` on a generated tsconfig that extends the project's and holds only the
    candidate (a broken sibling cannot fail it); errors in the candidate reject it."""
    tsc = self._bin(ws, module, "tsc")
    if tsc is None and not self.conf.compile_command:
        return self.environment(
            f"TypeScript is not installed in {module}: run `npm install --save-dev "
            "typescript` (a .ts test is never accepted without a type check)"
        )
    base = nearest(ws.project, rel, ("tsconfig.json",)) or module
    config: dict = {
        "compilerOptions": {"noEmit": True, "incremental": False, "composite": False},
        "files": [under(base, rel)],
        "include": [],
    }
    if ws.path(f"{base}/tsconfig.json").exists():
        config["extends"] = "./tsconfig.json"
    else:
        config["compilerOptions"].update(
            {
                "strict": True,
                "skipLibCheck": True,
                "module": "esnext",
                "moduleResolution": "bundler",
                "target": "es2022",
            }
        )
    cfg_rel = f"{base}/tsconfig.assay.json" if base != "." else "tsconfig.assay.json"
    ws.apply({cfg_rel: json.dumps(config)})
    args = ["-p", "tsconfig.assay.json", "--pretty", "false"]
    found = tsc_cache.compiler(ws, tsc) if tsc and not self.conf.compile_command else None
    make: list[tsc_cache.Compiler] = []
    if found is not None:
        jest = self.test_runner(ws, module) == "jest"  # ts-jest's typescript.js too
        argv, make = tsc_cache.argv(
            ws, found, args, tsc_cache.typescript_module(ws, module) if jest else None
        )
    else:
        argv = self.conf.compile_command or [str(tsc), *args]
    ran = self.exec(ws, argv, cwd=base)
    for made in make:
        tsc_cache.keep(ws, made)  # before anything of the candidate runs
    if not self.conf.compile_command and (silence := _DEPRECATED.search(ran.text)):
        # TypeScript 6 stops at a deprecated option of the project's config (cookie-es:
        # `esModuleInterop: false`, TS5107) and checks nothing; the project's runner never asks
        config["compilerOptions"]["ignoreDeprecations"] = silence.group(1)
        ws.apply({cfg_rel: json.dumps(config)})
        ran = self.exec(ws, argv, cwd=base)
    problems = tsc_errors(ran.text, ran.roots, base)
    mine = [p for p in problems if p.where == rel]
    if not mine and (option := _OPTION_ERROR.search(ran.text)):
        return self.environment(
            f"tsc stopped at the project's TypeScript configuration before it type-checked "
            f"{rel}: {option.group(0).strip()}{_version(ws, tsc)}",
            ran.raw_lines,
            ran.result.duration_s,
            hint="Fix the project's tsconfig.json for its TypeScript (`npx tsc --noEmit -p .` "
            "shows the same error); a .ts test is never accepted without a type check.",
        )
    if mine and (absent := missing_types(self, ws, module, rel, mine)):
        return absent
    if problems and not mine and all(p.message.startswith("TS1") for p in problems):
        # tsc type-checks nothing once a file does not parse (radash: an @types/node newer than
        # its TypeScript 4.9): the candidate passed gate 1 unchecked
        first = problems[0]
        where = first.where  # node_modules is the project's own, seen through a link
        where = where[where.find("node_modules/") :] if "node_modules/" in where else where
        return self.environment(
            f"tsc stopped at syntax errors in {where} ({first.message[:120]}) before it "
            f"type-checked {rel}: that file does not parse with this project's TypeScript"
            f"{_version(ws, tsc)}",
            ran.raw_lines,
            ran.result.duration_s,
            hint="Install the versions the project's lockfile pins (npm ci), or a TypeScript "
            "that reads them; a .ts test is never accepted without a type check.",
        )
    if mine:
        if self.test_runner(ws, module) == "vitest" and any(p.message[:2] == "TS" for p in mine):
            mine[0] = replace(mine[0], hint=UNCHECKED_BY_VITEST)
        return CompileResult(errors=mine, raw_lines=ran.raw_lines, duration_s=ran.result.duration_s)
    if ran.result.returncode != 0 and not problems:
        return self.no_result(ran, "tsc", ran.raw_lines, ran.result.duration_s)
    return CompileResult(raw_lines=ran.raw_lines, duration_s=ran.result.duration_s)


NOT_TAKEN = "assay: vitest's config takes no test file by this name"  # vitest_plan.mjs says it
# vitest's and jest's words for a file that loads and declares no test
NO_SUITE = ("No test suite found in file", "Your test suite must contain at least one test")


def holds_no_test(run: TestRun, load: TestResult | None) -> bool:
    """Whether the first run loaded the file and found no test in it: vitest's "No test suite
    found in file" (path-to-regexp's src/cases.spec.ts, a table of cases another test file
    imports), jest's "Your test suite must contain at least one test", a mocha or `node --test`
    run that ended 0 with no test. Gate 1 said "collection did not finish ... Fix the compile
    errors" of such a file (jest's: gate 2, "TEST FAILURE ... Fix expected values")."""
    if load is not None and any(words in load.message for words in NO_SUITE):
        return True
    return not run.tests and run.exit_status == 0 and not run.timed_out


def not_taken(crash: str, rel: str) -> str | None:
    """The project's vitest never runs `rel` (its `include` globs leave it out: negotiator's
    `test/charset.js` against vitest's default `**/*.{test,spec}.?(c|m)[jt]s?(x)`): no verdict
    on the file. It read "collection did not finish: vitest exited with status 0"."""
    if NOT_TAKEN not in crash:
        return None
    said = crash[crash.index(NOT_TAKEN) + len(NOT_TAKEN) :].splitlines()[0].strip()
    try:
        include = ", ".join(json.loads(said).get("include") or [])
    except (ValueError, AttributeError):
        include = ""
    return (
        f"the project's vitest does not run {rel}: its `test.include` ({include or 'the default'}) "
        "leaves the file out; name the file as the include says, add it there, or choose the "
        'runner that runs it (runner = "..." in the language table)'
    )


def package_json(ws_project: Path, module: str) -> dict:
    try:
        return json.loads((ws_project / module / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


# what runs ahead of a test runner on a script's command line: `npx`, coverage, environment
_WRAPPERS = {"npx", "cross-env", "nyc", "c8", "dotenv", "exec"}
_SCRIPT_RUNNERS = {"vitest": "vitest", "jest": "jest", "mocha": "mocha", "_mocha": "mocha"}


def script_runner(pkg: dict) -> str | None:
    """The runner package.json's `test` script runs (vitest, jest, mocha, or node for
    `node --test`), None when it names none of them. negotiator 1.1 has vitest for its
    benchmarks (`vitest bench`) and tests with mocha (`"test": "mocha ... test/"`): the
    dependency order chose vitest, and every test file was rejected at gate 1 ("collection did
    not finish")."""
    scripts = pkg.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(script, str):
        return None
    for command in re.split(r"&&|\|\||[;|]", script):
        words = command.split()
        for i, word in enumerate(words):
            name = word.rsplit("/", 1)[-1]  # ./node_modules/.bin/mocha
            if name in _SCRIPT_RUNNERS:
                return _SCRIPT_RUNNERS[name]
            if name == "node":
                return "node" if "--test" in words[i + 1 :] else None
            if not (name in _WRAPPERS or word.startswith("-") or re.match(r"\w+=", word)):
                break  # another command: eslint, tsc, npm run build
    return None


def _version(ws: Workspace, tsc: str | None) -> str:
    """The version of the TypeScript `tsc` (its node_modules/.bin link) is, as " (4.9.5)"."""
    if tsc is None:
        return ""
    try:
        meta = json.loads((Path(tsc).parent.parent / "typescript/package.json").read_text())
    except (OSError, ValueError):
        return ""
    return f" ({meta.get('version')})" if meta.get("version") else ""


# a module tsc found no types for: the import of an untyped package, or of none at all
_NO_TYPES = re.compile(
    r"TS7016: Could not find a declaration file for module '(?P<untyped>[^']+)'"
    r"|TS2307: Cannot find module '(?P<absent>[^']+)' or its corresponding type declarations"
)


def missing_types(
    self: NodeRunner, ws: Workspace, module: str, rel: str, problems: list[Problem]
) -> CompileResult | None:
    """`unvalidated`, naming the package, when tsc (or ts-jest) found no types for an import
    because a package the project declares is not installed: `@types/chai` for radash's
    `import { assert } from 'chai'` (TS7016) was the test's "failure" to fix. An import of what
    the project does not declare stays the test's error."""
    pkg = package_json(ws.project, module)
    declared = {n for k in _DECLARING for n in pkg.get(k) or {}}
    text = _ANSI.sub("", "\n".join(p.message for p in problems))  # ts-jest colours its words
    for m in _NO_TYPES.finditer(text):
        name = m.group("untyped") or m.group("absent")
        if name.startswith((".", "/", "node:")):
            continue
        parts = name.split("/")
        package = "/".join(parts[:2]) if name.startswith("@") else parts[0]
        types = "@types/" + package.removeprefix("@").replace("/", "__")
        for wanted in (types, package):
            if wanted in declared and not _installed(ws, module, wanted):
                return self.environment(
                    f"the package {wanted!r} ({rel} imports {name!r}; the project declares "
                    f"{wanted}) is not installed in {module}: run `npm ci` (or npm install) there"
                )
    return None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_DECLARING = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")


def _installed(ws: Workspace, module: str, package: str) -> bool:
    here = PurePosixPath(module)
    return any(
        ws.path(f"{d.as_posix()}/node_modules/{package}/package.json").exists()
        for d in (here, *here.parents)
    )


# a package the loaded code imports and node_modules lacks: vite's words, node's ESM and CJS ones
_MISSING = re.compile(
    r"Failed to load url (?P<vite>[^\s(]+) \(resolved id: [^)]*\)(?: in (?P<in>\S+?))?\.? Does"
    r"|Cannot find (?:package|module) '(?P<node>[^']+)'(?: imported from '?(?P<from>[^'\s]+))?"
)


def missing_package(text: str) -> tuple[str, str] | None:
    """(package, the file importing it, when named) of a load failure that is a dependency not
    installed: a bare specifier, not a relative path or a builtin. pathe's tests failed to load
    with "Failed to load url zeptomatch ... in src/_path.ts": the project's dependency, not in
    node_modules, and the file was rejected as a compile error."""
    for m in _MISSING.finditer(text):
        name = m.group("vite") or m.group("node") or ""
        if name and not name.startswith((".", "/", "node:")) and "\\" not in name:
            parts = name.split("/")
            package = "/".join(parts[:2]) if name.startswith("@") else parts[0]
            return package, m.group("in") or m.group("from") or ""
    return None


def not_loaded(pkg: dict, package: str, where: str, module: str) -> str:
    """Why a package could not load: not installed, or (ohash: `import { digest } from
    "ohash/crypto"` in src/hash.ts) the project's own package, which it exports from its build
    output: "not installed ... run npm ci" sent its author to the wrong fix."""
    by = f" ({where} imports it)" if where else ""
    if package == pkg.get("name") and pkg.get("exports"):
        return (
            f"{package!r} is this project's own package{by}, loaded through its package.json "
            "`exports`, which point at its build output (dist/): assay's scratch copy holds no "
            "build output, so the file cannot load there"
        )
    return (
        f"the package {package!r}{by} is not installed in {module}: run `npm ci` (or npm "
        "install) there"
    )


def node_check(self: NodeRunner, ws: Workspace, rel: str) -> CompileResult:
    """`node --check`: a syntax error, compact and on its line."""
    ran = self.exec(ws, self.conf.compile_command or ["node", "--check", rel])
    if ran.result.returncode == 0:
        return CompileResult(raw_lines=ran.raw_lines, duration_s=ran.result.duration_s)
    lines = ran.result.stderr.splitlines()
    where = next((m for ln in lines[:3] if (m := _NODE_CHECK.match(ln.strip()))), None)
    error = next((ln.strip() for ln in lines if re.match(r"^\w*Error: ", ln.strip())), None)
    if error is None:
        return self.no_result(ran, "node --check", ran.raw_lines, ran.result.duration_s)
    line = int(where["line"]) if where else None
    return CompileResult(
        errors=[Problem(rel, error, line, "syntax")],
        raw_lines=ran.raw_lines,
        duration_s=ran.result.duration_s,
    )


_JEST_UNPARSED = "Jest encountered an unexpected token"


def jest_cannot_parse(pkg: dict, module: str, rel: str, message: str) -> str | None:
    """jest could not parse a file gate 1's compiler (tsc, `node --check`) accepts: its transform
    does not handle the syntax, the project's jest configuration is not where jest looks
    (match-sorter's tests run through `kcd-scripts test`, which hands jest a config of its own),
    so the failure is the setup's, not the test's. None for any other load failure."""
    if _JEST_UNPARSED not in message:
        return None
    script = str((pkg.get("scripts") or {}).get("test") or "")
    runs = f" (its package.json runs the tests with `{script}`)" if script else ""
    where = "" if module == "." else f" in {module}"
    return (
        f"jest cannot parse {rel}, which the compiler accepts: no jest transform for its syntax"
        f'{where}{runs}; point jest at the project\'s configuration: test_args = ["--config", '
        '"<jest config file>", "--rootDir", "."] in the [typescript] or [javascript] table of '
        "assay's configuration"
    )


def load_gap(
    self: NodeRunner,
    ws: Workspace,
    runner: str,
    module: str,
    rel: str,
    pkg: dict,
    load: TestResult | None,
    crash: str | None,
    compiled: bool,
) -> CompileResult | None:
    """Why the first run could not load the file, when the cause is the machine's or the setup's,
    not the file's: type definitions ts-jest misses, a syntax jest cannot parse that the compiler
    accepted, a mocha config's `require` failing, a package the project declares (or its own code
    imports) not installed. None: the file's own failure (or none)."""
    if load is not None and (
        absent := missing_types(self, ws, module, rel, [Problem(rel, load.message)])
    ):
        return absent  # ts-jest's type check of the file (jest's own run of it)
    if runner == "jest" and load is not None and compiled:  # noqa: SIM102
        if unparsed := jest_cannot_parse(pkg, module, rel, load.message):
            return self.environment(unparsed)  # the compiler parsed what jest could not
    if runner == "mocha" and (failed := mocha.config_failure(crash)):
        return self.environment(failed)
    if runner == "vitest" and crash and (left_out := not_taken(crash, rel)):
        return self.environment(left_out)
    missing = missing_package(crash) if crash else None
    declared = {
        name
        for key in ("dependencies", "devDependencies", "peerDependencies")
        for name in pkg.get(key) or {}
    }
    by_test = missing is not None and missing[1] in ("", rel, str(ws.path(rel)))
    if missing is not None and (missing[0] in declared or not by_test):
        # a dependency not installed (the project declares it, or its own code imports it): the
        # machine's, not the file's; a test importing what the project has not is its own
        package, where = missing
        return self.environment(not_loaded(pkg, package, where, module))
    return None
