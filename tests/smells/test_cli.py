"""`assay smells` end to end: the real CLI in a subprocess, its formats, exit codes and errors."""

from __future__ import annotations

import json

import pytest

from assay.smells import RULES
from tests.conftest import REPO, run_cli
from tests.smells.shop_lib import SHOP_LIB

FILES = {
    **SHOP_LIB,
    "tests/test_good.py": """\
        import pytest
        from shop.model import Item

        def test_total():
            assert Item("a", 2).total(3) == 6

        def test_negative():
            with pytest.raises(ValueError, match="negative"):
                Item("a", 2).total(-1)
        """,
    "tests/test_bad.py": """\
        from shop.model import Item

        def test_runs():
            Item("a", 2).total(3)

        def test_label():
            assert Item("a", 2).label() == "a"

        def test_prints():
            print(Item("a", 2).total(1))
            assert Item("a", 2).total(1) == 2
        """,
}


@pytest.fixture
def proj(project):
    return project(FILES)


def test_text_lines_and_exit_1_on_reject(proj):
    proc = run_cli("smells", "tests", cwd=proj)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [
        "tests/test_bad.py:3:1 AS001 [reject] test_runs: no assertion",
        "tests/test_bad.py:6:1 AS020 [reject] test_label: low value: Item.label has no logic "
        "(getter, conversion or literal mapping)",
        "tests/test_bad.py:10:5 AS015 [warn] test_prints: print in a test",
        "3 findings in 2 files (2 reject, 1 warn); exit 1: reject-level findings",
    ]


def test_exit_0_without_reject_findings(proj):
    proc = run_cli("smells", "tests/test_good.py", cwd=proj)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        "no findings in 1 file; exit 0: no reject-level finding\n",
        "",
    )


def test_the_static_check_starts_no_interpreter(proj):
    """`assay smells` runs nothing: the configured test interpreter is not started to ask whether it
    runs pytest (half its CPU on a project with a venv, issue 25's "smells takes 2.1 s"), and one
    not built yet (a pre-commit run in a fresh clone) is no configuration error."""
    config = '[project]\nname = "p"\nversion = "0"\n[tool.assay.python]\ninterpreter = "{}"\n'
    (proj / "pyproject.toml").write_text(config.format(".venv/bin/python"))  # no such venv
    proc = run_cli("smells", "tests/test_good.py", cwd=proj)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    # an interpreter that would say where it ran
    marker = proj / "started"
    fake = proj / "python"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    fake.chmod(0o755)
    (proj / "pyproject.toml").write_text(config.format(fake))
    proc = run_cli("smells", "tests", cwd=proj)
    assert proc.returncode == 1 and "AS001" in proc.stdout, proc.stderr
    assert not marker.exists()


def test_config_levels_apply(proj):
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\n[tool.assay.smells]\n'
        'levels = { AS001 = "warn" }\nfail_on_low_value = false\n'
    )
    proc = run_cli("smells", "tests", "--format", "json", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["summary"] == {"reject": 0, "warn": 3, "info": 0}
    assert [(f["rule"], f["level"]) for f in data["findings"]] == [
        ("AS001", "warn"),
        ("AS020", "warn"),
        ("AS015", "warn"),
    ]


def test_sarif_is_code_scanning_shaped(proj, tmp_path):
    out = tmp_path / "smells.sarif"
    proc = run_cli("smells", "tests", "--format", "sarif", "--output", str(out), cwd=proj)
    assert proc.returncode == 1 and proc.stdout == ""
    sarif = json.loads(out.read_text())
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    driver = sarif["runs"][0]["tool"]["driver"]
    assert (
        driver["name"] == "assay"
        and driver["informationUri"].startswith("https://")
        and driver["version"]
    )
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    for r in driver["rules"]:
        assert (
            r["name"]
            and r["shortDescription"]["text"]
            and r["fullDescription"]["text"]
            and r["help"]["text"]
        )
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("AS001", "error"),
        ("AS020", "error"),
        ("AS015", "warning"),
    ]
    for r in results:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": "tests/test_bad.py", "uriBaseId": "%SRCROOT%"}
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
    assert results[0]["message"]["text"] == "test_runs: no assertion"


def test_unparsable_file_is_a_finding_not_a_crash(proj):
    (proj / "tests/test_broken.py").write_bytes(b"def test_x(:\n")
    (proj / "tests/test_latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\ndef test_\xe9():\n    assert 1\n"
    )
    proc = run_cli("smells", "tests/test_broken.py", "tests/test_latin.py", cwd=proj)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout.splitlines() == [
        "tests/test_broken.py:1:12 AS000 [reject] cannot parse: invalid syntax",
        "tests/test_latin.py:3:5 AS006 [reject] test_é: tautology: `assert 1` always passes",
        "2 findings in 2 files (2 reject); exit 1: reject-level findings",
    ]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["tests/nope.py"], "no such file or directory"),
        (["tests", "--format", "xml"], "unknown format 'xml'"),
        (["tests", "--config", "missing.toml"], "config file not found"),
    ],
)
def test_bad_input_exits_2_with_one_line(proj, args, fragment):
    proc = run_cli("smells", *args, cwd=proj)
    assert proc.returncode == 2
    assert (
        proc.stderr.count("\n") == 1
        and proc.stderr.startswith("assay: error: ")
        and fragment in proc.stderr
    )
    assert "Traceback" not in proc.stderr


def test_pre_commit_hook_runs_assay_smells():
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "id: assay-smells" in text and "entry: assay smells" in text


def test_committed_docs_are_up_to_date():
    from assay.smells.docs import render

    assert (REPO / "docs/smells.md").read_text() == render(), (
        "run: python -m assay.smells.docs > docs/smells.md"
    )
