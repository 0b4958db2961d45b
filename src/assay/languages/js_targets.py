"""The files a JavaScript or TypeScript test file tests (gate 4 mutates them): those it imports by
relative path, the modules an index re-exports under a name it uses, and the project's own modules
those require in turn (router's `lib/route.js`, reached through `index.js`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path, PurePosixPath

from assay.languages.node_checks import package_json

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


def _extended(path: PurePosixPath) -> list[PurePosixPath]:
    """`path` with each extension in place of its own (`./util.js` standing for util.ts), or
    appended: `./cases.spec.js` is cases.spec.ts (path-to-regexp), not cases.ts."""
    stem = path.with_suffix("") if path.suffix in _JS_EXTENSIONS else path
    return [stem.with_name(stem.name + e) for e in _JS_EXTENSIONS]


@lru_cache(maxsize=8)
def resolve_relative(root: Path, base: PurePosixPath) -> PurePosixPath | None:
    """The file a relative import names, as Node resolves it: the file, the file with an
    extension, and for a directory (`require('../')`: the package under test, in many packages'
    tests) its package.json `main`, then its `index` file."""
    tries: list[PurePosixPath] = []
    if base.name and base.name != "..":
        tries += [base, *_extended(base)]
    if (root / base).is_dir():
        main = package_json(root, base.as_posix()).get("main")
        if isinstance(main, str) and main.strip():
            named = PurePosixPath(os.path.normpath(base / main))
            tries.append(named)
            if named.name and named.name != "..":
                tries += _extended(named)
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


LIMIT = 30  # targets of one file, as for Go and Rust (`tested_sources.LIMIT`)
# what runs nothing when the module loads: `import type { A } from "./a"`, `export type { A } from`
# (TypeScript erases them), and comments
_TYPE_ONLY = re.compile(
    r"""\b(?:import|export)\s+type\s+(?:\{[^}]*\}|[\w$]+|\*\s*as\s+[\w$]+)\s*from\s*["'][^"']*["']"""
)
_COMMENT = re.compile(r"""//[^\n]*|/\*.*?\*/""", re.S)


def _text(root: Path, module: PurePosixPath) -> str:
    try:
        return (root / module).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _own(found: PurePosixPath | None, is_test: Callable[[str], bool]) -> bool:
    """Code under test: a module of the project, not a test file, nor a helper of the suite in a
    test directory (@fastify/merge-json-schemas' test/utils.js), nor a package's."""
    return (
        found is not None
        and found.parts[:1] != ("..",)
        and not is_test(found.as_posix())
        and not set(found.parts[:-1]) & {*TEST_DIRS, "node_modules"}
    )


def required(root: Path, module: PurePosixPath, is_test: Callable[[str], bool]) -> list[str]:
    """The project's modules `module` imports for its own use: its relative imports and requires
    less its re-exports (`reexported` follows those, by the names the test uses) and type-only
    imports."""
    text = _COMMENT.sub(" ", _TYPE_ONLY.sub(" ", _text(root, module)))
    passed_on = set(_REEXPORT.findall(text)) | {spec for _, spec in _CJS_REEXPORT.findall(text)}
    out = []
    for spec in _RELATIVE_IMPORT.findall(text):
        if spec in passed_on:
            continue
        found = resolve_relative(root, PurePosixPath(os.path.normpath(module.parent / spec)))
        if found is not None and _own(found, is_test):
            out.append(found.as_posix())
    return out


def js_sources(root: Path, source: str, rel: str, is_test: Callable[[str], bool]) -> list[str]:
    """A test file's targets: the project's files it imports by relative path (`../src/price`,
    `./util.js` standing for `util.ts`), what an index among them re-exports under a name the test
    uses, then the project's modules those require, transitively. router's test/route.js
    requires only `..` (index.js), which requires lib/route.js and lib/layer.js: gate 4 mutated
    index.js alone and judged a test of routes on the dispatch code it passes through. Gate 4
    counts only the mutants the file's tests run (coverage per test, or V8's)."""
    out: list[str] = []
    words = set(_WORD.findall(source))
    for spec in _RELATIVE_IMPORT.findall(source):
        base = PurePosixPath(os.path.normpath(PurePosixPath(rel).parent / spec))
        found = resolve_relative(root, base)
        if found is not None and _own(found, is_test):
            out += [found.as_posix(), *reexported(root, found, words)]
    seen = list(dict.fromkeys(out))
    todo = list(seen)
    while todo and len(seen) < LIMIT:
        for module in required(root, PurePosixPath(todo.pop(0)), is_test):
            if module not in seen:
                seen.append(module)
                todo.append(module)
    return seen[:LIMIT]


def imported_files(root: Path, tests: Iterable[str]) -> set[str]:
    """The project's files `tests` import by relative path, transitively, test files included:
    path-to-regexp's src/index.spec.ts imports its tables from `./cases.spec.js`, and gate 4,
    which takes the package's other test files out of the copy, left it failing to load
    (StrykerJS "found no tests" and gave no report: "StrykerJS failed: exit 0")."""
    seen: set[str] = set()
    todo = [PurePosixPath(t) for t in tests]
    while todo and len(seen) < 10 * LIMIT:
        module = todo.pop()
        text = _COMMENT.sub(" ", _TYPE_ONLY.sub(" ", _text(root, module)))
        for spec in _RELATIVE_IMPORT.findall(text):
            found = resolve_relative(root, PurePosixPath(os.path.normpath(module.parent / spec)))
            if found is not None and found.parts[:1] != ("..",) and found.as_posix() not in seen:
                seen.add(found.as_posix())
                todo.append(found)
    return seen
