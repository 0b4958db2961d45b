"""A test that kills nothing in gate 4's worker but runs the project in another process (its CLI
through `subprocess`, here from a helper method) is not `low_value`: its mutants are applied in the
worker's memory and the subprocess imports the original code. jsonpointer 3.12's 30
`CommandLineTests` were "low value: reaches no mutant"."""

from __future__ import annotations

import json
import textwrap

import pytest

from assay.gates.spawning import FORGETS, RELOAD, afresh, spawning_tests
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
    # a script of the project, no module: run by `runpy` in the test's process, afresh
    "bin/shout": """
        import sys


        def shout(text):
            return text.upper() + "!"


        if __name__ == "__main__":
            print(shout(" ".join(sys.argv[1:])))
        """,
    "tests/test_script.py": """
        import runpy

        from slug import slugify


        def test_words():
            assert slugify("A b") == "a-b"


        def test_script_function():
            script = runpy.run_path("bin/shout")
            assert script["shout"]("hey") == "HEY!"
        """,
}


@pytest.mark.slow
def test_a_test_that_runs_the_project_in_a_subprocess_is_not_low_value(project, tmp_path):
    root = project(
        files=FILES, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    out = tmp_path / "r.json"
    proc = run_cli(
        "verify", "tests/test_slug.py", "-v", "-f", "text", "-f", f"json={out}", cwd=root
    )
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


def test_a_test_of_a_project_script_run_by_runpy_is_not_low_value():
    """jsonpointer's `test_closes_json_inputs` calls a function of `bin/jsonpointer` that
    `runpy.run_path` ran: the project's code, in this process, but afresh from its source - not
    the functions gate 4 mutates - and a script is no module gate 4 mutates. Out of gate 4's
    scope, so said in a note; it was `low_value`."""
    source = textwrap.dedent(FILES["tests/test_script.py"])
    assert spawning_tests(source) == {"test_script_function": "calls runpy.run_path"}


@pytest.mark.slow
def test_a_runpy_script_test_gets_the_note_not_low_value(project, tmp_path):
    files = {k: v for k, v in FILES.items() if k != "tests/test_slug.py"}
    root = project(
        files=files, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    script = tests["test_script_function"]
    assert script["verdict"] == "accepted", (script, proc.stdout[-3000:])
    assert "gate 4 cannot judge it: it runs the project's code afresh from its source" in (
        script.get("note") or ""
    )


@pytest.mark.slow  # gate 4's wider run
def test_a_file_that_runs_the_project_only_in_processes_says_on_the_terminal_why_gate_4_skipped(
    project, tmp_path
):
    """ftfy 6.3.1's test_cli.py (runs the `ftfy` console script): `accepted 6/6` with a `–` under
    mutation, and nowhere on the terminal why: the reason was in the JSON only."""
    files = {
        "slug/__init__.py": FILES["slug/__init__.py"],
        "slug/__main__.py": FILES["slug/__main__.py"],
        "tests/test_cli.py": """
        import subprocess
        import sys


        def test_cli():
            out = subprocess.run(
                [sys.executable, "-m", "slug", "Hello", "World"], capture_output=True, text=True
            )
            assert out.stdout.strip() == "hello-world"
        """,
    }
    root = project(
        files=files, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    proc = run_cli("verify", "tests/test_cli.py", "-f", "text", cwd=root)
    text = " ".join(proc.stdout.split())
    assert (
        "tests/test_cli.py — mutation skipped: no target: the tests run no function of the "
        "project in their own process; they may run it in processes or interpreters they start"
        in text
    ), proc.stdout


def test_a_test_that_starts_the_process_through_a_helper_object_of_the_file_spawns():
    """num2words 0.5.14's test_cli.py: `self.cli = CliCaller()` in `setUp`, and each test calls
    `self.cli.run_cmd(...)`, a method of the file's helper class that runs `python bin/num2words`
    through `delegator.run`. Not seen as starting a process, gate 4 spent 36 s and said "measured
    nothing: no mutant in scope (the tests run no function of the project ...)"."""
    source = textwrap.dedent(
        """
        import unittest

        import delegator


        class CliCaller(object):
            def run_cmd(self, *args):
                return delegator.run(" ".join(["python", "bin/cli", *args]))


        class CliTestCase(unittest.TestCase):
            def setUp(self):
                self.cli = CliCaller()

            def test_cli_help(self):
                output = self.cli.run_cmd()
                self.assertEqual(output.return_code, 1)

            def test_other(self):
                self.assertEqual(len("ab"), 2)
        """
    )
    assert spawning_tests(source) == {"CliTestCase::test_cli_help": "calls delegator.run"}


@pytest.mark.slow
def test_a_file_importing_the_project_that_runs_it_in_processes_says_so_when_nothing_measured(
    project, tmp_path
):
    """num2words' test_cli.py imports `num2words` and runs its CLI in processes: gate 4 ran, no
    mutant was in scope, and the note said only "the tests run no function of the project gate 4
    mutates in their own calls; what they check is data or code it does not see"."""
    files = {
        "slug/__init__.py": FILES["slug/__init__.py"],
        "slug/__main__.py": FILES["slug/__main__.py"],
        "tests/test_cli.py": """
        import subprocess
        import sys

        import slug


        class Caller:
            def run_cmd(self, *args):
                return subprocess.run(
                    [sys.executable, "-m", "slug", *args], capture_output=True, text=True
                )


        def test_cli():
            assert Caller().run_cmd("Hello", "World").stdout.strip() == "hello-world"
        """,
    }
    root = project(
        files=files, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    proc = run_cli("verify", "tests/test_cli.py", "-f", "text", cwd=root)
    text = " ".join(proc.stdout.split())
    assert "measured nothing" in text, proc.stdout
    assert (
        "1 of its tests run code in a process they start (test_cli calls subprocess.run), out of "
        "gate 4's sight" in text
    ), proc.stdout


RELOADING = {
    # mypy_extensions' shape: a module `__getattr__` that warns, the test file importing the module
    "warn.py": """
        import warnings


        def double(x):
            return x * 2


        class _DEPRECATED_Old:
            pass


        def _warn_deprecation(name, module_globals):
            if (val := module_globals.get(f"_DEPRECATED_{name}")) is None:
                raise AttributeError(name)
            if name in {"Old"}:
                msg = f"'warn.{name}' is deprecated"
            else:
                assert False, name
            warnings.warn(msg, DeprecationWarning, stacklevel=3)
            return val


        def __getattr__(name):
            return _warn_deprecation(name, module_globals=globals())
        """,
    "tests/test_warn.py": """
        import sys
        import unittest

        from warn import double


        class Double(unittest.TestCase):
            def test_double(self):
                self.assertEqual(double(3), 6)


        class Deprecation(unittest.TestCase):
            def test_old_is_deprecated(self):
                del sys.modules["warn"]
                with self.assertWarnsRegex(DeprecationWarning, "'warn.Old' is deprecated"):
                    import warn

                    warn.Old


        def test_hidden_optional_dependency(monkeypatch):
            monkeypatch.delitem(sys.modules, "json", raising=False)
            assert sys.maxsize > 0
        """,
}


def test_a_test_that_imports_a_project_module_again_runs_it_afresh():
    """mypy_extensions 1.2.0's `test_no_return_deprecation`: `del sys.modules["mypy_extensions"]`,
    then `import mypy_extensions` under `assertWarnsRegex`: new functions, built from the source,
    none of them the ones gate 4 mutates. It was "low value: kills none of the 49 mutants of the
    code it runs". A key that names none of the file's imports leaves the project alone."""
    source = textwrap.dedent(
        """
        import importlib
        import sys
        from importlib import reload as again

        import pkg
        from pkg import mod


        def test_del():
            del sys.modules["pkg.mod"]

        def test_pop():
            sys.modules.pop("pkg", None)

        def test_reload():
            importlib.reload(mod)

        def test_reload_alias():
            again(pkg)

        def test_delitem(monkeypatch):
            monkeypatch.delitem(sys.modules, "pkg")

        def test_other_module(monkeypatch):
            monkeypatch.delitem(sys.modules, "yaml", raising=False)
            del sys.modules["json"]

        def test_plain():
            assert pkg.f() == 1
        """
    )
    found = spawning_tests(source)
    assert found == {
        "test_del": FORGETS,
        "test_pop": FORGETS,
        "test_reload": RELOAD,
        "test_reload_alias": RELOAD,
        "test_delitem": FORGETS,
    }
    assert all(afresh(how) for how in found.values())
    assert not afresh("calls subprocess.run")


@pytest.mark.slow
def test_a_test_that_imports_the_module_again_gets_the_note_not_low_value(project, tmp_path):
    root = project(
        files=RELOADING, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests/test_warn.py", "-f", f"json={out}", cwd=root)
    [f] = json.loads(out.read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    old = tests["Deprecation::test_old_is_deprecated"]
    assert old["verdict"] == "accepted", (old, proc.stdout[-3000:])
    assert "gate 4 cannot judge it: it runs the project's code afresh from its source" in (
        old.get("note") or ""
    )
    # hiding a module the file does not import is no new import of the project
    assert tests["test_hidden_optional_dependency"]["verdict"] == "low_value"
