"""Gate 4's targets of a Go or Rust test file: the package's or crate's files that declare a name
the test uses (without them gate 4 skipped every Go and Rust file, "no target")."""

from __future__ import annotations

from pathlib import Path

from assay.languages import LANGUAGES
from assay.project import Project


def _write(root: Path, files: dict[str, str]) -> Project:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return Project.load(root)


def test_a_go_test_targets_the_package_files_declaring_what_it_calls(tmp_path):
    project = _write(
        tmp_path,
        {
            "go.mod": "module shop\n\ngo 1.21\n",
            "price/price.go": "package price\n\nfunc Total(c ...int) int { return 0 }\n",
            "price/tax.go": "package price\n\nfunc (r *Rate) Apply(c int) int { return c }\n",
            "price/other.go": "package price\n\nconst unused = 1\n",
            "price/price_test.go": "package price\n",
            "cart/cart.go": "package cart\n\nfunc Total() int { return 1 }\n",
        },
    )
    test = "package price\n\nfunc TestTotal(t *testing.T) { Total(1); (&Rate{}).Apply(2) }\n"
    go = LANGUAGES["go"]
    assert go.targets_of(project, test, "price/price_test.go") == ["price/price.go", "price/tax.go"]
    # naming none of them: the whole package
    assert go.targets_of(project, "package price\n", "price/x_test.go") == [
        "price/other.go",
        "price/price.go",
        "price/tax.go",
    ]


def test_a_rust_integration_test_targets_the_src_files_declaring_its_pub_items(tmp_path):
    project = _write(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
            "src/lib.rs": "pub mod price;\nmod util;\n",
            "src/price.rs": "pub fn total(c: &[i64]) -> i64 { 0 }\n",
            "src/util.rs": "pub(crate) fn helper() {}\n",
            "src/bin/cli.rs": "pub fn total() {}\n",
        },
    )
    rust = LANGUAGES["rust"]
    test = "use shop::price::total;\n#[test]\nfn t() { assert_eq!(total(&[1]), 1); }\n"
    assert rust.targets_of(project, test, "tests/price.rs") == ["src/price.rs"]
    # naming no item: the crate root; a unit-test module tests its own file
    assert rust.targets_of(project, "#[test]\nfn t() {}\n", "tests/x.rs") == ["src/lib.rs"]
    assert rust.targets_of(project, "", "src/price.rs") == ["src/price.rs"]


def test_a_js_test_requiring_its_package_directory_targets_the_packages_main(tmp_path):
    """ljharb's packages (side-channel, object-inspect, qs) test `require('../')`: gate 4
    skipped them, "no target", and the file was accepted unmeasured."""
    project = _write(
        tmp_path,
        {
            "package.json": '{"name": "side", "main": "lib/side.js"}',
            "lib/side.js": "module.exports = 1;\n",
            "index.js": "module.exports = 2;\n",
            "sub/index.js": "module.exports = 3;\n",
            "sub/package.json": "{}",
        },
    )
    js = LANGUAGES["javascript"]
    test = "var side = require('../');\nvar sub = require(\"../sub/\");\nrequire('..');\n"
    assert js.targets_of(project, test, "test/index.js") == ["lib/side.js", "sub/index.js"]
    assert js.targets_of(project, "require('./')", "index.test.js") == ["lib/side.js"]


def test_a_rust_test_is_not_charged_with_a_file_for_a_word_in_a_comment_or_a_method_it_never_calls(
    tmp_path,
):
    """textwrap 0.16.1: tests/indent.rs ("ported over from python" in a comment) made src/core.rs,
    which has `Word::from`, a target: rejected at "src/core.rs 0%"."""
    project = _write(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "textwrap"\nversion = "0.1.0"\n',
            "src/lib.rs": "mod indentation;\npub mod core;\npub use indentation::indent;\n",
            "src/indentation.rs": "pub fn indent(s: &str, prefix: &str) -> String { s.into() }\n",
            "src/core.rs": "pub struct Word;\nimpl Word {\n"
            "    pub fn from(w: &str) -> Word { Word }\n"
            "    pub fn width(&self) -> usize { 0 }\n}\n",
        },
    )
    rust = LANGUAGES["rust"]
    test = (
        "/// tests cases ported over from python\nuse textwrap::indent;\n"
        '#[test]\nfn t() { assert_eq!(indent("from width", \'"\'), "from"); }\n'
    )
    assert rust.targets_of(project, test, "tests/indent.rs") == ["src/indentation.rs"]
    # a method it calls, or the type it names, still makes the file a target
    called = 'use textwrap::indent;\n#[test]\nfn t() { indent("a", ""); x.width(); }\n'
    assert rust.targets_of(project, called, "tests/indent.rs") == [
        "src/core.rs",
        "src/indentation.rs",
    ]


RYU_LIKE = {
    "Cargo.toml": '[package]\nname = "num"\nversion = "0.1.0"\n\n[features]\nsmall = []\n',
    # the library: a module at a `#[path]` outside src/, one behind a feature that is off
    "src/lib.rs": (
        'mod fmt;\n#[path = "../gen/table.rs"]\nmod table;\n#[cfg(feature = "small")]\nmod small;\n'
        "#[cfg(test)]\nmod naive;\npub use fmt::show;\n"
    ),
    "src/fmt.rs": "pub fn show(n: i64) -> String { n.to_string() }\n",
    "gen/table.rs": "pub fn lookup(i: usize) -> u64 { [1, 2, 3][i] }\n",
    "src/small.rs": "pub fn lookup_small(i: usize) -> u64 { i as u64 }\n",
    # the unit tests' helper (base64's engine/naive.rs): no integration test links it
    "src/naive.rs": "pub fn lookup_naive(i: usize) -> u64 { 1 }\n",
    # compiled by no target of the library: only the test below includes it by `#[path]`
    "src/parse.rs": "pub fn parse_num(s: &str) -> i64 { s.parse().unwrap() }\n",
}


def test_a_rust_test_targets_the_files_the_crate_really_compiles(tmp_path):
    """ryu's tests include `src/s2d.rs` by `#[path]` (no library module) and its library keeps a
    table behind `feature = "small"`: targets follow the `mod` declarations as rustc does."""
    from assay.languages.rust_modules import crate_files, included_by_test

    project = _write(tmp_path, RYU_LIKE)
    rust = LANGUAGES["rust"]
    assert crate_files(tmp_path, ".") == ["src/lib.rs", "src/fmt.rs", "gen/table.rs"]
    parse = '#[path = "../src/parse.rs"]\nmod parse;\n#[test]\nfn t() { parse::parse_num("1"); }\n'
    assert included_by_test(tmp_path, ".", "tests/parse.rs") == []  # not written yet
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/parse.rs").write_text(parse)
    assert included_by_test(tmp_path, ".", "tests/parse.rs") == ["src/parse.rs"]
    assert rust.targets_of(project, parse, "tests/parse.rs") == ["src/parse.rs"]
    # a module the library puts outside src/ is found; one behind a feature that is off is not
    both = "#[test]\nfn t() { num::lookup(0); num::lookup_small(0); num::lookup_naive(0); }\n"
    assert rust.targets_of(project, both, "tests/t.rs") == ["gen/table.rs"]


def test_a_js_test_importing_an_index_of_reexports_targets_the_modules_behind_it(tmp_path):
    """ufo's tests import from `../src`, whose index only re-exports: its one target had no
    mutant, and gate 4 passed parse.test.ts with nothing measured."""
    project = _write(
        tmp_path,
        {
            "package.json": '{"name": "u", "type": "module"}\n',
            "src/index.ts": 'export * from "./parse";\nexport { join } from "./join";\n'
            'export * from "./deep";\n',
            "src/parse.ts": "export function parseURL(s: string) { return s.length > 1; }\n",
            "src/join.ts": "export const join = (a: string, b: string) => a + b;\n",
            "src/deep.ts": 'export * from "./deep/query";\n',
            "src/deep/query.ts": "export function getQuery(s: string) { return s; }\n",
        },
    )
    ts = LANGUAGES["typescript"]
    test = 'import { parseURL, getQuery } from "../src";\nparseURL("a"); getQuery("b");\n'
    assert ts.targets_of(project, test, "test/parse.test.ts") == [
        "src/index.ts",
        "src/parse.ts",
        "src/deep.ts",
        "src/deep/query.ts",
    ]
    # naming none of the re-exported names: every module behind the index
    assert ts.targets_of(project, 'import * as u from "../src";\n', "test/u.test.ts") == [
        "src/index.ts",
        "src/parse.ts",
        "src/join.ts",
        "src/deep.ts",
        "src/deep/query.ts",
    ]


def test_a_js_test_of_a_commonjs_index_targets_the_modules_it_exports(tmp_path):
    """body-parser 2.3's tests call `bodyParser.json()`, exported by index.js as
    `exports.json = require('./lib/types/json')`: index.js was gate 4's one target, its two
    mutants in code no test runs, and test/json.js was rejected at 0 % with 155 tests low value."""
    index = (
        "exports = module.exports = bodyParser\n"
        "exports.json = require('./lib/types/json')\n"
        'module.exports.raw = require("./lib/types/raw.js")\n'
        "function bodyParser () { throw new Error('split') }\n"
    )
    project = _write(
        tmp_path,
        {
            "package.json": '{"name": "body-parser"}\n',
            "index.js": index,
            "lib/types/json.js": "module.exports = function json () { return 1 }\n",
            "lib/types/raw.js": "module.exports = function raw () { return 2 }\n",
            "all.js": "module.exports = require('./lib/types/raw')\n",
        },
    )
    js = LANGUAGES["javascript"]
    test = "const bodyParser = require('..')\nbodyParser.json()\n"
    assert js.targets_of(project, test, "test/json.js") == ["index.js", "lib/types/json.js"]
    # naming none of the exported names: every module behind the index
    assert js.targets_of(project, "require('..')\n", "test/a.js") == [
        "index.js",
        "lib/types/json.js",
        "lib/types/raw.js",
    ]
    whole = "const raw = require('../all')\nraw()\n"
    assert js.targets_of(project, whole, "test/all.js") == ["all.js", "lib/types/raw.js"]


def test_a_rust_test_of_a_dependency_has_no_target_in_the_crate(tmp_path):
    """indoc 2.0.0's tests/test_unindent.rs tests the `unindent` crate, a dev-dependency; indoc's
    src/unindent.rs (a copy of it, `pub fn unindent`) was its target, rejected at 0 %."""
    project = _write(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "in-doc"\nversion = "0.1.0"\n\n'
            '[dev-dependencies]\nunindent = "0.2"\n',
            "src/lib.rs": "mod unindent;\npub use unindent::unindent;\n",
            "src/unindent.rs": "pub fn unindent(s: &str) -> String { s.into() }\n",
        },
    )
    rust = LANGUAGES["rust"]
    other = 'use unindent::unindent;\n#[test]\nfn t() { assert_eq!(unindent(" a"), "a"); }\n'
    assert rust.targets_of(project, other, "tests/test_unindent.rs") == []
    own = 'use in_doc::unindent;\n#[test]\nfn t() { assert_eq!(unindent(" a"), "a"); }\n'
    assert rust.targets_of(project, own, "tests/own.rs") == ["src/unindent.rs"]


def test_a_root_of_reexports_with_its_own_tests_targets_the_files_behind_it(tmp_path):
    """urlencoding 2.1.3's src/lib.rs is `mod enc; pub use enc::encode;` and a `#[cfg(test)]`
    module testing them: it was its own only target, gave no mutant, and gate 4 passed it with
    nothing measured. A file with code of its own still tests itself alone."""
    lib = (
        "mod enc;\npub use enc::encode;\nmod dec;\npub use dec::decode;\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n"
        "    fn doubles() {\n        assert_eq!(encode(2), 4);\n    }\n}\n"
    )
    project = _write(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "code"\nversion = "0.1.0"\n',
            "src/lib.rs": lib,
            "src/enc.rs": "pub fn encode(x: i32) -> i32 {\n    x * 2\n}\n",
            "src/dec.rs": "pub fn decode(x: i32) -> i32 {\n    x / 2\n}\n",
        },
    )
    rust = LANGUAGES["rust"]
    assert rust.targets_of(project, lib, "src/lib.rs") == ["src/lib.rs", "src/enc.rs"]
    own = "pub fn one() -> i32 {\n    1\n}\n" + lib
    assert rust.targets_of(project, own, "src/lib.rs") == ["src/lib.rs"]


def test_a_js_tests_helper_in_the_test_directory_is_not_code_under_test(tmp_path):
    """@fastify/merge-json-schemas' tests require `./utils` (a `defaultResolver` that throws if
    called): test/utils.js was a gate 4 target beside index.js, named as code under test."""
    project = _write(
        tmp_path,
        {
            "package.json": '{"name": "merge", "main": "index.js"}',
            "index.js": "module.exports = { merge: (a) => a };\n",
            "test/utils.js": "module.exports = { resolver() { throw new Error('no'); } };\n",
            "test/fixtures/schema.js": "module.exports = {};\n",
        },
    )
    js = LANGUAGES["javascript"]
    test = (
        "const { merge } = require('../index')\nconst { resolver } = require('./utils')\n"
        "const schema = require('./fixtures/schema')\n"
    )
    assert js.targets_of(project, test, "test/enum.test.js") == ["index.js"]


def test_a_js_test_targets_the_projects_modules_its_targets_require(tmp_path):
    """router 2.2's test/route.js requires only `..` (index.js), which requires lib/route.js and
    lib/layer.js: gate 4 mutated index.js alone and judged a test of routes on the dispatch code
    it passes through (41.9 %, rejected). The modules a target requires for its own use are
    targets too, transitively; packages, the suite's helpers and type-only imports are not, and
    an index's re-exports still follow the names the test uses."""
    index = (
        "const Layer = require('./lib/layer')\nconst debug = require('debug')\n"
        "// const old = require('./lib/old')\n"
        "const Route = require('./lib/route')\nmodule.exports = Router\n"
        "module.exports.Route = Route\nfunction Router () { return new Layer(new Route()) }\n"
    )
    project = _write(
        tmp_path,
        {
            "package.json": '{"name": "router", "main": "index.js"}\n',
            "index.js": index,
            "lib/route.js": "const Layer = require('./layer')\nconst u = require('../test/u')\n"
            "module.exports = function Route () { return Layer }\n",
            "lib/layer.js": "module.exports = function Layer () {}\n",
            "lib/old.js": "module.exports = 1\n",
            "test/u.js": "module.exports = 2\n",
            "src/index.ts": 'export * from "./parse";\nexport * from "./join";\n',
            "src/parse.ts": 'import type { Options } from "./types";\n'
            'import { low } from "./low";\n'
            "export function parseURL(s: string, o?: Options) { return low(s); }\n",
            "src/join.ts": 'import { low } from "./low";\n'
            "export const join = (a: string) => low(a);\n",
            "src/low.ts": "export function low(s: string) { return s.toLowerCase(); }\n",
            "src/types.ts": "export type Options = { strict: boolean };\n",
        },
    )
    js = LANGUAGES["javascript"]
    test = "const Router = require('..')\nconst utils = require('./support/utils')\n"
    assert js.targets_of(project, test, "test/route.js") == [
        "index.js",
        "lib/layer.js",
        "lib/route.js",
    ]
    ts = LANGUAGES["typescript"]
    test = 'import { parseURL } from "../src";\nparseURL("A");\n'
    assert ts.targets_of(project, test, "test/parse.test.ts") == [
        "src/index.ts",
        "src/parse.ts",
        "src/low.ts",
    ]


def test_the_test_files_a_js_test_imports_stay_in_gate_4s_copy(tmp_path):
    """path-to-regexp 8.4's src/index.spec.ts imports its tables from `./cases.spec.js`: gate 4
    took every other test file out of the copy, the candidate no longer loaded, and StrykerJS
    "found no tests" ("StrykerJS failed: exit 0", gate 4 not measured)."""
    from assay.languages.js_targets import imported_files

    _write(
        tmp_path,
        {
            "package.json": '{"name": "p", "type": "module"}\n',
            "src/index.ts": "export const parse = (s: string) => s;\n",
            "src/cases.spec.ts": 'import type { T } from "./types.js";\n'
            'import { more } from "./more.spec.js";\nexport const CASES = [...more];\n',
            "src/more.spec.ts": "export const more = [1];\n",
            "src/types.ts": "export type T = number;\n",
            "src/other.spec.ts": "it('x', () => {});\n",
        },
    )
    test = 'import { parse } from "./index.js";\nimport { CASES } from "./cases.spec.js";\n'
    (tmp_path / "src/index.spec.ts").write_text(test)
    assert imported_files(tmp_path, ["src/index.spec.ts"]) == {
        "src/index.ts",
        "src/cases.spec.ts",
        "src/more.spec.ts",
    }
