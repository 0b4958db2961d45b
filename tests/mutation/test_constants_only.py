"""A file whose tests only read the project's module-level values runs no code of it: no mutant can
fail it (issue 25 finding: it was `accepted` with no mutant in scope). Each such test is `low_value`
with that reason, and the file too when every test is; a test that runs the code using the value is
judged as before."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

FILES = {
    "conf.py": """
        TIMEOUT = 30
        CODES = {"ok": 200, "missing": 404}


        def wait(n):
            if n > TIMEOUT:
                return TIMEOUT
            return n
        """,
    "tests/test_values.py": """
        import conf
        from conf import CODES


        def test_timeout():
            assert conf.TIMEOUT == 30


        def test_codes():
            assert CODES["missing"] == 404
        """,
    # natsort's `test_unicode_numbers.py`: a table checked against an independent oracle is a check
    "tests/test_oracle.py": """
        import unicodedata

        from conf import CODES


        def test_codes_are_http_status_names():
            assert all(isinstance(unicodedata.name(k[0]), str) for k in CODES)
        """,
    "tests/test_wait.py": """
        from conf import TIMEOUT, wait


        def test_wait_is_capped():
            assert wait(TIMEOUT + 1) == TIMEOUT
            assert wait(TIMEOUT - 1) == TIMEOUT - 1
            assert wait(TIMEOUT) == TIMEOUT
        """,
}


@pytest.mark.slow
def test_a_file_that_only_reads_module_values_is_low_value(project, tmp_path):
    root = project(
        files=FILES, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", "text", "-f", f"json={out}", cwd=root)
    files = {f["path"]: f for f in json.loads(out.read_text())["files"]}
    values = files["tests/test_values.py"]
    assert values["verdict"] == "low_value", (values, proc.stdout[-3000:])
    reasons = {t["id"].split("::")[1]: t["reason"] for t in values["tests"]}
    assert reasons["test_timeout"].startswith("runs no code of the project")
    assert "(conf.TIMEOUT)" in reasons["test_timeout"] and "(CODES)" in reasons["test_codes"]
    assert "read only its module-level values): test_timeout, test_codes" in proc.stdout
    assert files["tests/test_wait.py"]["verdict"] == "accepted"
    assert files["tests/test_oracle.py"]["verdict"] == "accepted"
    assert proc.returncode == 1
