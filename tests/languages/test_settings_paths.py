"""Paths off the examples' main road, each with a real toolchain and a tiny project: a dependency
the cache lacks (no network in the sandbox), `compile_validation = false`, Rust unit tests inside a
source file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from assay import api
from tests.conftest import run_cli

GO_TEST = (
    'package x\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) '
    '{\n\tif 1+1 != 2 {\n\t\tt.Fatal("sum")\n\t}\n}\n'
)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_module_missing_from_the_cache_is_unvalidated_with_the_command_that_fetches_it(tmp_path):
    root = write(
        tmp_path / "g",
        {
            "go.mod": "module example.com/x\n\ngo 1.22\n\nrequire "
            "example.com/not/in/cache v1.2.3\n",
            "x_test.go": GO_TEST.replace(
                'import "testing"', 'import (\n\t"testing"\n\n\t_ "example.com/not/in/cache"\n)'
            ),
        },
    )
    # offline: no prepare step, so the sandboxed build itself meets the gap
    report = api.verify(
        [root / "x_test.go"], root=root, use_cache=False, overrides={"offline": True}
    )
    f = report.files[0]
    assert (f.verdict.value, f.rejected_at) == ("unvalidated", "compile"), f.gates[0].feedback
    assert "run `go mod download` in ." in f.gates[0].feedback.replace("\n", " ")


def test_without_compile_validation_a_compiled_language_compiles_at_gate_2(tmp_path):
    root = write(
        tmp_path / "g",
        {
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "ok_test.go": GO_TEST,
            "bad_test.go": GO_TEST.replace("TestAdd", "TestBad").replace(
                "1+1 != 2", "undefinedThing() != 2"
            ),
        },
    )
    (root / "assay.toml").write_text('compile_validation = false\ngates = ["compile", "green"]\n')
    report = api.verify([root], root=root, use_cache=False)
    files = {f.path: f for f in report.files}
    ok, bad = files["ok_test.go"], files["bad_test.go"]
    assert ok.verdict.value == "accepted" and ok.gates[0].status.value == "skip"
    assert "compile_validation is off" in ok.gates[0].feedback
    assert bad.rejected_at == "green" and "undefinedThing" in bad.gates[-1].feedback


def test_rust_unit_tests_of_a_source_file_are_its_own_modules_tests(tmp_path):
    root = write(
        tmp_path / "r",
        {
            "Cargo.toml": '[package]\nname = "r"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub mod price;\n\n#[cfg(test)]\nmod "
            "tests {\n    #[test]\n    fn lib_level() {\n"
            "        assert_eq!(crate::price::add(1, 1), 2);\n    }\n}\n",
            "src/price.rs": "pub fn add(a: i64, b: i64) -> i64 {\n    "
            "a + b\n}\n\n#[cfg(test)]\nmod tests {\n"
            "    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 3), 5);\n    }\n}\n",
        },
    )
    # gates 1-3 only: gate 4 needs cargo-mutants, which CI builds only when asked (.ci/toolchains)
    report = api.verify(
        [root / "src/price.rs"],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": ["compile", "green", "stability"]},
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
    assert [t.id for t in f.tests] == ["src/price.rs::price::tests::adds"]


def test_a_missing_junit_launcher_at_gate_2_is_unvalidated_never_rejected(tmp_path):
    """No JUnit launcher in the Maven cache and no Maven that can fetch it: the tests cannot run,
    which says nothing of them (with compile_validation off the build happens at gate 2)."""
    if shutil.which("javac") is None:
        pytest.skip("no JDK here")
    home, shims = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    shims.mkdir()
    (shims / "mvn").write_text("#!/bin/sh\necho 'no network' >&2\nexit 1\n")
    (shims / "mvn").chmod(0o755)
    root = write(
        tmp_path / "j",
        {
            "Calc.java": "public class Calc {\n    static int twice(int x) { return 2 * x; }\n}\n",
            "CalcTest.java": "import org.junit.jupiter.api.Test;\n"
            "import static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
            "class CalcTest {\n    @Test\n    void twice() {\n"
            "        assertEquals(4, Calc.twice(2));\n    }\n}\n",
            "assay.toml": 'compile_validation = false\ngates = ["compile", "green"]\n',
        },
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
    }
    done = run_cli("verify", "CalcTest.java", cwd=root, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 unvalidated" in done.stdout and "0 rejected" in done.stdout, done.stdout
    assert "UNVALIDATED: Gate 2 — TEST ENVIRONMENT" in done.stdout
    assert "JUnit 5 is not in ~/.m2" in done.stdout, done.stdout
