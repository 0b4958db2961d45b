"""A skip reason that names a function of an installed module is the author's skip, not a missing
module. platformdirs 4.3.6's `test_compatibility` skips `user_log_dir` with "`appdirs.user_log_dir`
Uses XDG_STATE_DIR instead of appdirs.user_data_dir per the XDG spec on Unix": its 4 cases were
`unvalidated`, "module 'appdirs.user_log_dir' is not installed ... pip install appdirs", with
appdirs installed, and the summary told the user to install it."""

from __future__ import annotations

import json

from tests.conftest import run_cli


def test_a_skip_naming_an_attribute_of_an_installed_module_stays_the_authors(project, tmp_path):
    root = project(
        {
            "src/calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": """
                import pytest

                from calc import add


                def test_add():
                    assert add(1, 2) == 3


                def test_rounding():
                    pytest.skip("`pytest.approx` rounds otherwise on Unix")
                    assert add(0.1, 0.2) == pytest.approx(0.3)
                """,
        },
        "[project.optional-dependencies]\ntest = ['pytest']\n"
        "[tool.pytest.ini_options]\npythonpath = ['src']\n"
        "[tool.assay]\ngates = ['compile', 'green']\n",
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", "text", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    rounding = tests["test_rounding"]
    assert rounding["reason"] == "skipped: `pytest.approx` rounds otherwise on Unix", rounding
    assert "environment:" not in proc.stdout, proc.stdout
