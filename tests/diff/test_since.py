"""`verify --since`, `mutate --since` and `assay integrity` on the scripted change of issue 29,
through the real CLI and real git."""

from __future__ import annotations

import json

import pytest

from assay import api
from assay.errors import InputError
from tests.conftest import run_cli
from tests.diff.fixture import git, scripted_change


def _rules(file: dict) -> list[tuple[str, str | None, str]]:
    gate = next(g for g in file["gates"] if g["gate"] == "integrity")
    return [(x["rule"], x["test"], x["level"]) for x in gate["findings"]]


def test_verify_since_flags_the_tampering_and_the_weak_file_and_mutates_changed_lines(tmp_path):
    root = scripted_change(tmp_path / "calc")
    proc = run_cli(
        "verify", "--since", "HEAD", "--no-cache", "-f", "json=../v.json", "-f", "sarif=../v.sarif",
        cwd=root,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    # code scanning shows the edited expectation at its line
    sarif = json.loads((root.parent / "v.sarif").read_text())["runs"][0]["results"]
    assert ("AI004", "error", 7) in {
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in sarif
    }
    # the progress lines (CI logs) already give the integrity gate's verdict
    assert "tests/test_core.py: rejected at integrity" in proc.stderr
    data = json.loads((root.parent / "v.json").read_text())
    files = {f["path"]: f for f in data["files"]}
    # test_other.py imports nothing the change touched: out of scope
    assert sorted(files) == ["tests/test_core.py", "tests/test_span.py"]
    core, weak = files["tests/test_core.py"], files["tests/test_span.py"]
    assert core["verdict"] == "rejected" and core["rejected_at"] == "integrity"
    assert _rules(core) == [
        ("AI004", "test_clamp_upper", "reject"),  # 10 -> 9 while clamp changed
        ("AI001", "test_clamp_lower", "reject"),
        ("AI002", "test_mean", "reject"),
    ]
    edited = next(g for g in core["gates"] if g["gate"] == "integrity")["findings"][0]
    assert (edited["line"], edited["old"], edited["new"]) == (
        7,
        "assert clamp(42, 0, 10) == 10",
        "assert clamp(42, 0, 10) == 9",
    )
    verdicts = {t["id"].split("::")[1]: t["verdict"] for t in core["tests"]}
    assert verdicts["test_clamp_upper"] == "rejected" and verdicts["test_scale"] == "accepted"
    assert weak["verdict"] == "rejected" and weak["rejected_at"] == "mutation"
    # gate 4 mutated the changed lines only: whole-file runs mutate 20 mutants for test_core
    mutation = next(g for g in core["gates"] if g["gate"] == "mutation")
    assert mutation["scope"]["mutants"] == 3 and not mutation.get("low_value_tests")
    assert next(g for g in core["gates"] if g["gate"] == "integrity")["scope"].startswith(
        "touched by the change"
    )
    assert data["notes"][0].startswith("diff scope since HEAD")


def test_mutate_since_mutates_changed_lines_or_functions_and_briefs_survivors(tmp_path):
    root = scripted_change(tmp_path / "calc")
    proc = run_cli("mutate", "--since", "HEAD", "--witness", "-q", "-f", "json", cwd=root)
    lines = json.loads(proc.stdout)
    scope = lines["diff_scope"]
    assert scope["targets"] == ["src/calc/core.py"]
    assert scope["tests"] == ["tests/test_core.py", "tests/test_span.py"]
    assert (scope["mutants"], scope["mutants_whole_files"]) == (9, 28)
    assert {m["line"] for m in lines["mutants"]} == {5, 10, 11, 16}
    brief = next(b for b in lines["briefs"] if b["operator"] == "arithmetic")
    assert brief["line"] == 16 and brief["tests"] == ["tests/test_span.py::test_span"]
    assert brief["suggested_test"] == "test_span_arithmetic"
    # run on the input the weak test already uses, the original gives 4, the mutant 6
    assert brief["witness"] == {
        "call": "span([1, 5])",
        "assert": "assert span([1, 5]) == 4",
        "input_from": "tests",
    }
    functions = run_cli(
        "mutate", "--since", "HEAD", "--scope", "function", "-q", "-f", "json", cwd=root
    )
    assert json.loads(functions.stdout)["diff_scope"]["mutants"] == 19
    static = next(
        b for b in json.loads(functions.stdout)["briefs"] if b["operator"] == "arithmetic"
    )
    assert static["must_assert"].startswith("the exact result of `max(xs) - min(xs)`")


def test_integrity_staged_sees_the_index_and_outside_git_is_one_line(tmp_path):
    root = scripted_change(tmp_path / "calc")
    git(root, "add", "tests/test_core.py")  # the test edit staged, the code change not
    report = api.integrity(root, staged=True)
    # the code change is not staged: a test-only change is a warning, and AI004 is not reported
    assert [(f.rule, f.level) for f in report.findings] == [("AI001", "warn"), ("AI002", "warn")]
    assert report.exit_code == 0
    git(root, "add", "src/calc/core.py")
    staged = run_cli("integrity", "--staged", cwd=root)
    assert staged.returncode == 1 and "AI004" in staged.stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    bad = run_cli("verify", "--since", "HEAD", cwd=plain)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "not in one" in bad.stderr
    for call in (api.integrity, lambda root: api.mutate([], [], root=root, since="auto")):
        with pytest.raises(InputError, match="not in one"):
            call(plain)
