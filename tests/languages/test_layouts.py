"""Where the project is and which files are tests, in the layouts real repositories have:
multi-module Maven, Cargo and npm workspaces, Go packages in subdirectories, a repository that mixes
languages. No toolchain runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import InputError
from assay.languages import LANGUAGES, language_of
from assay.languages.tooling import nearest
from assay.project import discover, find_root


def tree(root: Path, files: list[str]) -> Path:
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    (root / ".git").mkdir()
    return root


@pytest.mark.parametrize(
    "files,test,module",
    [
        (
            ["pom.xml", "core/pom.xml", "core/src/test/java/a/ATest.java"],
            "core/src/test/java/a/ATest.java",
            "core",
        ),
        (
            ["Cargo.toml", "crates/price/Cargo.toml", "crates/price/tests/p.rs"],
            "crates/price/tests/p.rs",
            "crates/price",
        ),
        (
            ["package.json", "packages/web/package.json", "packages/web/test/a.test.ts"],
            "packages/web/test/a.test.ts",
            "packages/web",
        ),
        (
            ["go.mod", "pkg/price/price.go", "pkg/price/price_test.go"],
            "pkg/price/price_test.go",
            ".",
        ),
    ],
)
def test_the_project_is_the_outermost_build_the_module_the_nearest(tmp_path, files, test, module):
    root = tree(tmp_path / "repo", files)
    assert find_root(root / test) == root.resolve()
    names = ("pom.xml", "Cargo.toml", "package.json", "go.mod")
    assert nearest(root, test, names) == module


def test_test_files_of_a_mixed_repository(tmp_path):
    root = tree(
        tmp_path / "repo",
        [
            "pyproject.toml",
            "tests/test_a.py",
            "svc/go.mod",
            "svc/x_test.go",
            "svc/x.go",
            "jvm/pom.xml",
            "jvm/src/main/java/a/TestData.java",
            "jvm/src/test/java/a/PriceTest.java",
            "web/package.json",
            "web/src/a.ts",
            "web/test/a.test.ts",
            "web/test/helpers.js",
            "web/src/__tests__/index.ts",  # jest's default testMatch (match-sorter)
            "web/lib/__tests__/deep/util.js",
            "rs/Cargo.toml",
            "rs/src/lib.rs",
            "rs/tests/p.rs",
        ],
    )
    found = sorted(
        p.relative_to(root.resolve()).as_posix() for p in discover([root], root.resolve())
    )
    assert found == [
        "jvm/src/test/java/a/PriceTest.java",
        "rs/tests/p.rs",
        "svc/x_test.go",
        "tests/test_a.py",
        "web/lib/__tests__/deep/util.js",
        "web/src/__tests__/index.ts",
        "web/test/a.test.ts",
    ]
    assert [language_of(root / f, root).name for f in found] == [
        "java",
        "rust",
        "go",
        "python",
        "javascript",
        "typescript",
        "typescript",
    ]
    only_go = discover([root], root.resolve(), [LANGUAGES["go"]])
    assert [p.name for p in only_go] == ["x_test.go"]


def test_a_directory_leaves_out_java_base_classes_whose_tests_run_in_subclasses(tmp_path):
    """ulid-creator's abstract UlidFactoryTest (helpers, no test of its own; surefire never runs
    it) was "rejected at compile: no tests collected" in `assay verify src/test`."""
    root = tree(tmp_path / "repo", ["pom.xml"])
    pkg = root / "src/test/java/a"
    pkg.mkdir(parents=True)
    (pkg / "FactoryTest.java").write_text(
        "package a;\n\npublic abstract class FactoryTest {\n    protected void check() {}\n}\n"
    )
    (pkg / "MonotonicFactoryTest.java").write_text(
        "package a;\n\nimport org.junit.Test;\n\npublic class MonotonicFactoryTest extends "
        "FactoryTest {\n    abstract static class Inner {}\n    @Test public void t() {}\n}\n"
    )
    found = [p.name for p in discover([root], root.resolve())]
    assert found == ["MonotonicFactoryTest.java"]


def test_a_directory_gives_mochas_default_spec_in_a_package_that_tests_with_mocha(tmp_path):
    """body-parser and router (jshttp, pillarjs) keep their mocha tests as `test/json.js`: `assay
    verify test/` said "no test files". mocha's default spec is `./test/*.{js,cjs,mjs}`; a package
    without mocha, or whose config names its own spec, keeps the name rule."""
    root = tree(
        tmp_path / "repo",
        ["api/test/json.js", "api/test/support/utils.js", "web/test/helpers.js", "own/test/a.js"],
    )
    (root / "api/package.json").write_text('{"devDependencies": {"mocha": "10"}}')
    (root / "web/package.json").write_text('{"devDependencies": {"jest": "29"}}')
    (root / "own/package.json").write_text(
        '{"devDependencies": {"mocha": "10"}, "mocha": {"spec": "test/**/*.spec.js"}}'
    )
    found = sorted(
        p.relative_to(root.resolve()).as_posix() for p in discover([root], root.resolve())
    )
    assert found == ["api/test/json.js"]


@pytest.mark.parametrize(
    "config,expected",
    [
        # .mocharc.yml, a block list; an `ignore` glob
        (
            {
                ".mocharc.yml": "# the suites\nspec:\n  - 'tests/unit/**/*.js'\n  - tests/e2e\n"
                "ignore: tests/unit/fixtures/**\n",
            },
            ["tests/e2e/login.js", "tests/unit/deep/b.js", "tests/unit/route.js"],
        ),
        # .mocharc.jsonc: a directory, walked recursively, TypeScript among its extensions
        (
            {
                ".mocharc.jsonc": '{\n  // the unit suite\n  "spec": "./tests/unit/",\n'
                '  "extension": ["js", "ts"], "recursive": true\n}'
            },
            [
                "tests/unit/deep/b.js",
                "tests/unit/deep/c.ts",
                "tests/unit/fixtures/x.js",
                "tests/unit/route.js",
            ],
        ),
        # .mocharc.js, literals; package.json's spec is added to it
        (
            {
                ".mocharc.js": "'use strict';\nmodule.exports = {\n  spec: ['tests/e2e/*.js'],\n"
                "  timeout: 5000,\n};\n",
                "package.json": '{"devDependencies": {"mocha": "11"}, '
                '"mocha": {"spec": "tests/unit/route.js"}}',
            },
            ["tests/e2e/login.js", "tests/unit/route.js"],
        ),
        # a spec set by code: not read, the name rule only (which finds nothing here)
        ({".mocharc.cjs": "module.exports = { spec: specs() };\n"}, None),
    ],
)
def test_a_directory_gives_the_files_the_mocha_config_names(tmp_path, config, expected):
    """A `.mocharc.*` or package.json "mocha" `spec` was not read: `assay verify tests/` ran
    mocha's default spec only (or nothing, as here, where no file has a test name)."""
    root = tree(
        tmp_path / "repo",
        [
            "tests/unit/route.js",
            "tests/unit/deep/b.js",
            "tests/unit/deep/c.ts",
            "tests/unit/fixtures/x.js",
            "tests/e2e/login.js",
            "tests/support/utils.js",
            "test/a.js",
        ],
    )
    (root / "package.json").write_text('{"devDependencies": {"mocha": "11"}}')
    for name, text in config.items():
        (root / name).write_text(text)
    if expected is None:
        with pytest.raises(InputError, match="no test files"):
            discover([root], root.resolve())
        return
    found = sorted(
        p.relative_to(root.resolve()).as_posix() for p in discover([root], root.resolve())
    )
    assert found == expected


@pytest.mark.parametrize(
    "package,expected",
    [
        # a directory on the test script's command line, through nyc
        (
            {"scripts": {"test": "nyc --reporter=text mocha --check-leaks -R spec tests/unit"}},
            ["tests/unit/route.js", "tests/unit/route.test.js"],
        ),
        # a quoted glob, `--recursive` ahead of it; `--require`'s value is not a spec
        (
            {"scripts": {"test": "mocha --recursive -r ./setup.js 'tests/**/*.spec.js'"}},
            ["tests/e2e/login.spec.js"],
        ),
        # `--spec=` and a config's spec, together as mocha takes them
        (
            {
                "scripts": {"test": "mocha --spec=tests/e2e/login.spec.js"},
                "mocha": {"spec": "tests/unit/route.js"},
            },
            ["tests/e2e/login.spec.js", "tests/unit/route.js"],
        ),
        # another runner runs the tests: mocha's spec says nothing, the name rule decides
        (
            {"scripts": {"test": "jest"}, "devDependencies": {"mocha": "11", "jest": "29"}},
            ["tests/e2e/login.spec.js", "tests/integration/db.test.js", "tests/unit/route.test.js"],
        ),
    ],
)
def test_a_directory_gives_the_files_the_test_scripts_mocha_names_and_no_other(
    tmp_path, package, expected
):
    """`"test": "mocha test/unit"` was not read (only a config's spec): `assay verify tests/` ran
    mocha's default `./test` only, and took `tests/integration/db.test.js`, which mocha never
    runs, by its name. A spec the package names keeps out the files it does not name."""
    root = tree(
        tmp_path / "repo",
        [
            "tests/unit/route.js",
            "tests/unit/route.test.js",
            "tests/e2e/login.spec.js",
            "tests/integration/db.test.js",
            "tests/support/utils.js",
        ],
    )
    (root / "package.json").write_text(json.dumps({"devDependencies": {"mocha": "11"}, **package}))
    found = sorted(
        p.relative_to(root.resolve()).as_posix() for p in discover([root], root.resolve())
    )
    assert found == expected
