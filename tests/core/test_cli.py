"""The real CLI in a subprocess: exit codes, one-line errors, report formats, config validation."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import run_cli, tree_digest

FAST = """
[tool.assay]
gates = ["compile", "green", "stability"]

[tool.assay.stability]
reruns = 1
budget_s = 0
"""
FILES = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
    "tests/test_ok.py": "from calc.ops import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_fail.py": "from calc.ops import add\n\ndef "
    "test_add():\n    assert add(2, 3) == 6\n",
}


def one_line_error(proc, fragment: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("assay: error: ") and fragment in lines[0], lines[0]
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.fixture
def proj(project):
    return project(FILES, FAST)


def test_exit_0_when_every_file_is_accepted(proj):
    proc = run_cli("verify", str(proj / "tests/test_ok.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "accepted" in proc.stdout


def test_exit_1_and_all_formats(proj, tmp_path):
    out_json, out_xml, out_md = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    proc = run_cli(
        "verify",
        str(proj / "tests"),
        "-f",
        "json",
        "-o",
        str(out_json),
        "-f",
        "junit",
        "-o",
        str(out_xml),
        "-f",
        "markdown",
        "-o",
        str(out_md),
        "--no-cache",
    )
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(out_json.read_text())
    assert doc["schema"] == "assay.verify/1"
    assert (
        doc["summary"]["files"] == 2
        and doc["summary"]["accepted"] == 1
        and doc["summary"]["rejected"] == 1
    )
    assert set(doc["sandbox"]) >= {
        "network",
        "filesystem",
        "processes",
        "rlimits",
        "env_removed",
        "timeout_s",
    }
    fail = next(f for f in doc["files"] if f["path"] == "tests/test_fail.py")
    assert fail["verdict"] == "rejected" and fail["rejected_at"] == "green"
    assert [g["gate"] for g in fail["gates"]] == ["compile", "green"]
    assert set(fail["gates"][1]) >= {"gate", "status", "duration_s", "feedback"}
    [test] = fail["tests"]
    assert (test["id"], test["verdict"], test["gate"]) == (
        "tests/test_fail.py::test_add",
        "rejected",
        "green",
    )
    assert "assert 5 == 6" in test["reason"]
    assert fail["targets"] == ["src/calc/ops.py"]
    suites = ET.parse(out_xml).getroot()
    cases = suites.findall(".//testcase")
    assert len(cases) == 2
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 1 and failed[0].get("file") == "tests/test_fail.py"
    verdicts = {
        c.get("file"): c.find("properties/property[@name='assay.verdict']").get("value")
        for c in cases
    }
    assert verdicts == {"tests/test_fail.py": "rejected", "tests/test_ok.py": "accepted"}
    md = out_md.read_text()
    assert "| `tests/test_fail.py` |" in md and "**rejected**" in md


def test_json_to_stdout(proj):
    proc = run_cli("verify", str(proj / "tests/test_ok.py"), "-f", "json")
    assert json.loads(proc.stdout)["files"][0]["verdict"] == "accepted"


def test_cache_answers_unchanged_rerun_and_no_cache_bypasses(proj):
    first = run_cli("verify", str(proj / "tests/test_ok.py"), "-f", "json")
    second = run_cli("verify", str(proj / "tests/test_ok.py"), "-f", "json")
    fresh = run_cli("verify", str(proj / "tests/test_ok.py"), "-f", "json", "--no-cache")
    assert not json.loads(first.stdout)["files"][0]["cached"]
    assert json.loads(second.stdout)["files"][0]["cached"]
    assert not json.loads(fresh.stdout)["files"][0]["cached"]
    (proj / "src/calc/ops.py").write_text("def add(a, b):\n    return a + b + 0\n")
    changed = run_cli("verify", str(proj / "tests/test_ok.py"), "-f", "json")
    assert not json.loads(changed.stdout)["files"][0]["cached"]


@pytest.mark.parametrize(
    "case",
    [
        "missing",
        "no-tests-dir",
        "binary",
        "latin1",
        "empty",
        "huge",
        "outside",
        "not-python",
        "bad-format",
    ],
)
def test_bad_input_is_one_line_and_exit_2(proj, tmp_path, case):
    before = tree_digest(proj)
    t = proj / "tests"
    if case == "missing":
        args, frag = [str(t / "test_nope.py")], "no such file"
    elif case == "no-tests-dir":
        (proj / "docs").mkdir()
        (proj / "docs/readme.py").write_text("x = 1\n")
        before = tree_digest(proj)
        args, frag = [str(proj / "docs")], "no test files"
    elif case == "binary":
        (t / "test_bin.py").write_bytes(b"\x7fELF\x00\x01\x02")
        before = tree_digest(proj)
        args, frag = [str(t / "test_bin.py")], "binary"
    elif case == "latin1":
        (t / "test_latin.py").write_bytes(
            "# caf\xe9\ndef test_x():\n    assert 1\n".encode("latin-1")
        )
        before = tree_digest(proj)
        args, frag = [str(t / "test_latin.py")], "not UTF-8"
    elif case == "empty":
        (t / "test_empty.py").write_text("")
        before = tree_digest(proj)
        args, frag = [str(t / "test_empty.py")], "empty"
    elif case == "huge":
        (t / "test_huge.py").write_text("# " + "x" * 10 * 1024 * 1024 + "\n")
        before = tree_digest(proj)
        args, frag = [str(t / "test_huge.py")], "refused"
    elif case == "outside":
        other = tmp_path / "elsewhere"
        other.mkdir()
        (other / "test_o.py").write_text("def test_o():\n    assert True\n")
        args, frag = [str(t / "test_ok.py"), str(other / "test_o.py")], "outside the project"
    elif case == "not-python":
        (t / "notes.txt").write_text("hello")
        before = tree_digest(proj)
        args, frag = [str(t / "notes.txt")], "not a Python test file"
    else:
        args, frag = [str(t / "test_ok.py"), "-f", "yaml"], "unknown format"
    one_line_error(run_cli("verify", *args), frag)
    assert tree_digest(proj) == before


def test_syntax_error_file_is_a_verdict_not_an_input_error(proj):
    (proj / "tests/test_syntax.py").write_text("def test_x(:\n")
    proc = run_cli("verify", str(proj / "tests/test_syntax.py"), "-f", "json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["files"][0]["rejected_at"] == "compile"


@pytest.mark.parametrize(
    ("config", "frag"),
    [
        ("[tool.assay]\nreruns = 3\n", "unknown setting 'reruns'"),
        # the README's interpreter line under the wrong table (a new user, session 13)
        (
            '[tool.assay]\ninterpreter = ".venv/bin/python"\n',
            "unknown setting 'interpreter': it belongs in the `python` table "
            "(`[tool.assay.python]` in pyproject.toml, `[python]` in assay.toml)",
        ),
        ("[tool.assay.sandbox]\ntimeout_s = -1\n", "bad value for 'sandbox.timeout_s'"),
        ("[tool.assay]\ngates = ['compile', 'colour']\n", "unknown gate 'colour'"),
        ("[tool.assay\n", "not valid TOML"),
    ],
)
def test_bad_config_is_one_line_and_exit_2(project, config, frag):
    root = project(FILES, config)
    one_line_error(run_cli("verify", str(root / "tests/test_ok.py")), frag)


def test_assay_toml_is_read(project):
    root = project(FILES)
    (root / "assay.toml").write_text("gates = ['compile']\n")
    proc = run_cli("verify", str(root / "tests/test_fail.py"), "-f", "json")
    assert proc.returncode == 0
    assert [g["gate"] for g in json.loads(proc.stdout)["files"][0]["gates"]] == ["compile"]


@pytest.mark.parametrize(
    ("args", "frag"),
    [
        (["verify", "--jobs", "abc", "x"], "Invalid value for '--jobs'"),
        (["verify"], "Missing argument"),
        (["smells", ".", "--bogus"], "No such option: --bogus"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, frag):
    one_line_error(run_cli(*args), frag)
