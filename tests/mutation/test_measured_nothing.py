"""Gate 4 that passes a file with no mutant in scope says it measured nothing (emoji 2.16.0's
test_dict.py: data checks of `emoji.EMOJI_DATA` behind a helper module's fixture read ✔ and
`accepted`, with `score: null` and not a word)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

FILES = {
    "pkg/__init__.py": "from pkg.core import render\nfrom pkg.data import TABLE\n",
    "pkg/data.py": """
        TABLE = {"smile": {"E": 1.0, "en": ":smile:"}, "cat": {"E": 0.6, "en": ":cat:"}}
        """,
    "pkg/core.py": """
        from pkg.data import TABLE


        def render(name, lang="en"):
            if name not in TABLE:
                return ""
            return TABLE[name].get(lang, "")
        """,
    "tests/helpers.py": """
        import pytest

        import pkg


        @pytest.fixture
        def warm():
            pkg.render("smile")
            yield
        """,
    "tests/test_data.py": """
        import pkg
        from helpers import warm as warm


        def test_versions(warm):
            for item in pkg.TABLE.values():
                assert item["E"] >= 0.6


        def test_names(warm):
            for item in pkg.TABLE.values():
                assert item["en"].startswith(":")
        """,
}


@pytest.mark.slow
def test_a_pass_with_no_mutant_in_scope_says_gate_4_measured_nothing(project, tmp_path):
    root = project(
        files=FILES,
        pyproject="[tool.pytest.ini_options]\npythonpath = ['tests']\n"
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n",
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests/test_data.py", "-f", "text", "-f", f"json={out}", cwd=root)
    (f,) = json.loads(out.read_text())["files"]
    gate = next(g for g in f["gates"] if g["gate"] == "mutation")
    assert (gate["status"], gate["scope"]["mutants"]) == ("pass", 0), (gate, proc.stderr[-2000:])
    assert any(n.startswith("measured nothing: no mutant in scope") for n in gate["notes"]), gate
    assert "tests/test_data.py — mutation note: measured nothing" in proc.stdout
