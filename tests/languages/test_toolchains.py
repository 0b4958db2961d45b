"""A missing toolchain, for every language: run with a PATH that lacks the compiler, each
file is `unvalidated` with one line naming the command and how to get it, other files go on,
and `--require-toolchain` exits 2. C# is always tested this way: .NET is not installed on
these machines."""

from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import run_cli

FILES = {
    "assay.toml": "max_compile_retries = 2\n",
    "java/pom.xml": "<project/>\n",
    "java/src/test/java/PriceTest.java": "class PriceTest "
    "{ @org.junit.jupiter.api.Test void t() {} }\n",
    "go/go.mod": "module example.com/x\n\ngo 1.22\n",
    "go/x_test.go": 'package x\n\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n',
    "rust/Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
    "rust/tests/x.rs": "#[test]\nfn x() {}\n",
    "ts/package.json": "{}\n",
    "ts/x.test.ts": "it('x', () => {});\n",
    "js/package.json": "{}\n",
    "js/x.test.js": "it('x', () => {});\n",
    "cs/X.Tests.csproj": "<Project/>\n",
    "cs/XTests.cs": "public class XTests { [Fact] public void X() {} }\n",
}
COMMANDS = {
    "java": "java",
    "go": "go",
    "rust": "cargo",
    "typescript": "node",
    "javascript": "node",
    "csharp": "dotnet",
}


@pytest.fixture
def mixed(tmp_path):
    for rel, text in FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def no_toolchain_env(tmp_path) -> dict[str, str]:
    """PATH with only the Python that runs assay: no java, go, cargo, node or dotnet."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(sys.executable, bin_dir / "python3")
    return {**os.environ, "PATH": str(bin_dir)}


def test_every_language_without_its_toolchain_is_unvalidated_with_one_line(mixed, tmp_path):
    proc = run_cli(
        "verify",
        str(mixed),
        "--root",
        str(mixed),
        "-f",
        "json",
        "--no-cache",
        env=no_toolchain_env(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    import json

    files = {f["language"]: f for f in json.loads(proc.stdout)["files"]}
    assert set(files) == set(COMMANDS)
    for lang, command in COMMANDS.items():
        f = files[lang]
        assert f["verdict"] == "unvalidated", f
        line = f["gates"][0]["feedback"]
        assert "\n" not in line and line.startswith(f"`{command}` not found on PATH: install"), line


@pytest.mark.parametrize(
    "rel,lang",
    [
        ("cs/XTests.cs", "C#"),
        ("go/x_test.go", "Go"),
        ("rust/tests/x.rs", "Rust"),
        ("java/src/test/java/PriceTest.java", "Java"),
        ("ts/x.test.ts", "TypeScript"),
    ],
)
def test_require_toolchain_exits_2_with_one_line(mixed, tmp_path, rel, lang):
    proc = run_cli(
        "verify",
        str(mixed / rel),
        "--root",
        str(mixed),
        "--require-toolchain",
        env=no_toolchain_env(tmp_path),
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.startswith(f"assay: error: {lang} toolchain missing: `")
        and proc.stderr.count("\n") == 1
    )


def test_language_filter_takes_one_language_of_a_mixed_repository(mixed, tmp_path):
    proc = run_cli(
        "verify",
        str(mixed),
        "--root",
        str(mixed),
        "--language",
        "csharp",
        "-f",
        "json",
        env=no_toolchain_env(tmp_path),
    )
    import json

    assert [f["path"] for f in json.loads(proc.stdout)["files"]] == ["cs/XTests.cs"]
    bad = run_cli("verify", str(mixed), "--root", str(mixed), "--language", "cobol")
    assert bad.returncode == 2 and "unknown language 'cobol'" in bad.stderr


def test_language_settings_are_read_from_assay_toml_of_a_non_python_repository(mixed):
    from assay.config import load_settings

    settings = load_settings(mixed)
    assert settings.max_compile_retries == 2 and settings.compile_validation is True
    (mixed / "assay.toml").write_text(
        '[java]\nrunner = "gradle"\ncompile_command = ["gradle", "testClasses"]\n'
    )
    assert load_settings(mixed).tool("java").compile_command == ["gradle", "testClasses"]
    (mixed / "assay.toml").write_text('[java]\nrunner = "ant"\n')
    proc = run_cli("verify", str(mixed / "go/x_test.go"), "--root", str(mixed))
    assert proc.returncode == 2 and "bad value for 'java.runner'" in proc.stderr
