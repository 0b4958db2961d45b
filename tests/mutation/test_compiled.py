"""A test that reaches no mutant in a project with compiled code is not called low value: wrapt
2.5.2's `FunctionWrapper` is C (`_wrappers.c`), and `test_double_binding`, which checks its
binding, read "low value: reaches no mutant", though gate 4 cannot mutate what it checks."""

from __future__ import annotations

import _json
import json
import shutil
from pathlib import Path

import pytest

from assay.gates.compiled import compiled_modules
from tests.conftest import run_cli

FILES = {
    "pkg/__init__.py": """
        from pkg._json import scanstring


        def quote(text):
            if not text:
                return '""'
            return '"' + text + '"'
        """,
    "tests/test_pkg.py": """
        from pkg import quote, scanstring


        def test_quote():
            assert quote("a") == '"a"'
            assert quote("") == '""'


        def test_scan_compiled():
            assert scanstring('"abc"', 1) == ("abc", 5)
        """,
}


@pytest.mark.slow
def test_a_test_of_compiled_code_is_not_low_value(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    # a real extension module of the project: the interpreter's own `_json`, under the package
    shutil.copy(_json.__file__, root / "pkg" / Path(_json.__file__).name)
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests/test_pkg.py", "-v", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    scan = tests["test_scan_compiled"]
    assert scan["verdict"] == "accepted", (scan, proc.stdout[-3000:])
    assert "the project's compiled code (pkg/_json." in scan.get("note", "")
    assert tests["test_quote"]["verdict"] == "accepted"
    # without it, none is found: such a test stays low value as before
    (root / "pkg" / Path(_json.__file__).name).unlink()
    assert compiled_modules(root, ["pkg/__init__.py"]) == []
