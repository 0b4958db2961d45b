"""A test that kills nothing in gate 4's worker but runs the project in another process (its CLI
through `subprocess`, here from a helper method) is not `low_value`: its mutants are applied in the
worker's memory and the subprocess imports the original code. jsonpointer 3.12's 30
`CommandLineTests` were "low value: reaches no mutant"."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

FILES = {
    "slug/__init__.py": """
        def slugify(text):
            return "-".join(text.lower().split())
        """,
    "slug/__main__.py": """
        import sys

        from slug import slugify

        print(slugify(" ".join(sys.argv[1:])))
        """,
    "tests/test_slug.py": """
        import subprocess
        import sys
        import unittest

        from slug import slugify


        def test_words():
            assert slugify("Hello World") == "hello-world"


        class CommandLine(unittest.TestCase):
            def _run(self, *args):
                return subprocess.run(
                    [sys.executable, "-m", "slug", *args], capture_output=True, text=True
                )

            def test_cli(self):
                self.assertEqual(self._run("A", "b").stdout, "a-b\\n")


        def test_constant_only():
            assert sys.maxsize > 0
        """,
}


@pytest.mark.slow
def test_a_test_that_runs_the_project_in_a_subprocess_is_not_low_value(project, tmp_path):
    root = project(
        files=FILES, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-v", "-f", "text", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    cli = tests["CommandLine::test_cli"]
    assert cli["verdict"] == "accepted", (cli, proc.stdout[-3000:])
    assert "gate 4 cannot judge it: it runs code in another process (calls subprocess.run)" in (
        cli.get("note") or ""
    )
    # a test that starts nothing and reaches nothing stays low value
    assert tests["test_constant_only"]["verdict"] == "low_value"
    assert tests["test_words"]["verdict"] == "accepted"
