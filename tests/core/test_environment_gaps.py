"""Environment gaps (issue 25, point 2) and caches that know the environment (point 11).

A module the project needs but the test interpreter lacks - imported by the test, or by a subprocess
the test starts - leaves the tests it breaks `unvalidated`, the file too, named on the terminal,
counted in every summary, exit code 1. Verdicts are cached under the interpreter's installed set, so
installing the module and running again judges again; `--no-cache` re-runs gate 4's mutants too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
import venv
import xml.etree.ElementTree as ET

import pytest

from assay.api import verify
from assay.config import Settings
from assay.dependencies import Dependencies, declared
from assay.languages.python import PYTHON
from assay.model import GateStatus, Verdict
from assay.store import Store
from tests.conftest import commit_all, run_cli

SLUG = {
    # a flat layout: `python -m slug` finds the package from the working directory
    "slug/__init__.py": """
        def slugify(text):
            return "-".join(text.lower().split())
        """,
    "slug/__main__.py": """
        import sys

        import fakedep_missing  # the CLI needs it; the library does not

        from slug import slugify

        print(slugify(fakedep_missing.fold(" ".join(sys.argv[1:]))))
        """,
    "tests/test_slug.py": """
        import subprocess
        import sys

        import pytest

        from slug import slugify


        def test_words():
            assert slugify("Hello World") == "hello-world"


        def test_cli_checked():
            out = subprocess.run(
                [sys.executable, "-m", "slug", "A b"], check=True, capture_output=True, text=True
            )
            assert out.stdout == "a-b\\n"


        def test_cli_returncode():
            proc = subprocess.run([sys.executable, "-m", "slug", "A"], capture_output=True)
            assert proc.returncode == 0


        def test_fold():
            fakedep = pytest.importorskip("fakedep_missing")
            assert fakedep.fold("A") == "A"
        """,
    "tests/test_own_fault.py": """
        import subprocess
        import sys

        from slug import slugify


        def test_words():
            assert slugify("a b") == "a-b"


        def test_hides_an_installed_dependency():
            raise ModuleNotFoundError("No module named 'pytest'")


        def test_made_up_module_in_a_subprocess():
            subprocess.run([sys.executable, "-c", "import madeup_xyz"], check=True)
        """,
}
DEPENDS = (
    'dependencies = ["fakedep-missing>=1", "pytest"]\n'
    "[tool.assay]\ngates = ['compile', 'green', 'smells']\n"
)


GATES_1_2 = "[tool.assay]\ngates = ['compile', 'green']\n"


def _one_unvalidated_file(root, tmp_path):
    """`assay verify tests` at gates 1-2 of a project of one test file, which must come out
    `unvalidated` with exit code 1: the CLI's run and the file's tests by name."""
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", "text", "-f", f"json={out}", cwd=root)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    [f] = json.loads(out.read_text())["files"]
    assert f["verdict"] == "unvalidated", f
    return proc, {t["id"].split("::")[1]: t for t in f["tests"]}


def test_a_module_missing_in_a_subprocess_is_unvalidated_named_and_counted(project, tmp_path):
    root = project(SLUG, DEPENDS)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = run_cli(
        "verify",
        "tests",
        "-f",
        "text",
        "-f",
        f"json={out_dir / 'r.json'}",
        "-f",
        f"markdown={out_dir / 'r.md'}",
        "-f",
        f"junit={out_dir / 'r.xml'}",
        cwd=root,
    )
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads((out_dir / "r.json").read_text())
    files = {f["path"]: f for f in data["files"]}
    slug, own = files["tests/test_slug.py"], files["tests/test_own_fault.py"]
    tests = {t["id"].split("::")[1]: t for t in slug["tests"]}
    # the test of the library is judged; the two CLI tests are not, for the module's absence
    assert slug["verdict"] == "unvalidated", slug
    assert tests["test_words"]["verdict"] == "accepted"
    for name in ("test_cli_checked", "test_cli_returncode", "test_fold"):
        assert tests[name]["verdict"] == "unvalidated"
        assert "module 'fakedep_missing' is not installed" in tests[name]["reason"]
    # an installed module "missing", or one the project never mentions: the test's own fault
    assert (own["verdict"], own["rejected_at"]) == ("rejected", "green")
    own_tests = {t["id"].split("::")[1]: t["verdict"] for t in own["tests"]}
    assert own_tests["test_hides_an_installed_dependency"] == "rejected"
    assert own_tests["test_made_up_module_in_a_subprocess"] == "rejected"

    summary = data["summary"]
    # the fourth: the rejected file's passing test, not judged past green
    assert (summary["unvalidated"], summary["unvalidated_tests"]) == (1, 4)
    [gap] = summary["environment"]
    assert (gap["missing"], gap["tests"], gap["files"]) == ("no module 'fakedep_missing'", 3, 1)
    text = proc.stdout
    assert "2 files: 0 accepted, 1 rejected, 0 flaky, 0 low value, 1 unvalidated; tests:" in text
    assert "4 unvalidated" in text.split("; tests:", 1)[1].splitlines()[0]
    line = next(ln for ln in text.splitlines() if ln.startswith("environment:"))
    assert re.search(r"no module 'fakedep_missing' in \S*python\S* \(3 tests of 1 file", line)
    markdown = (out_dir / "r.md").read_text()
    assert (
        "1 unvalidated; tests:" in markdown
        and "4 unvalidated" in markdown
        and "no module 'fakedep_missing'" in markdown
    )
    suites = ET.parse(out_dir / "r.xml").getroot()
    assert sum(int(s.get("skipped", "0")) for s in suites) == summary["unvalidated_tests"]


def test_dependencies_declared_only_in_setup_py_are_known_and_named(tmp_path):
    (tmp_path / "setup.py").write_text(  # as python-slugify writes it
        "from setuptools import setup\n"
        "install_requires = ['text-unidecode>=1.3']\n"
        "setup(name='slugify-like', install_requires=install_requires,\n"
        "      extras_require={'unidecode': ['Unidecode>=1.1.1']}, tests_require=['pytest'])\n"
    )
    assert {"text_unidecode", "unidecode", "pytest"} <= declared(tmp_path)
    # slugify tries `unidecode`, then its declared fallback: the import that ended the test is named
    chained = (
        "ModuleNotFoundError: No module named 'unidecode'\n\nDuring handling of the above "
        "exception, another exception occurred:\nModuleNotFoundError: No module named "
        "'text_unidecode'"
    )
    gap = Dependencies(tmp_path, [], set()).gap([chained])
    assert gap is not None and gap.label == "no module 'text_unidecode'"


def test_a_missing_dotted_module_is_named_as_imported_with_its_distribution(tmp_path):
    """`from ruamel.yaml import YAML` without ruamel.yaml installed: Python says "No module named
    'ruamel'" (a namespace package); the gap names `ruamel.yaml`, and the distribution declared."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "boxlike"\ndependencies = ["zzns.yamlish>=1"]\n'
    )
    (tmp_path / "conv.py").write_text("def load():\n    from zzns.yamlish import YAML\n")
    failed = subprocess.run(
        [sys.executable, "-c", "import conv; conv.load()"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "No module named 'zzns'" in failed.stderr  # Python's own words name the first part
    gap = Dependencies(tmp_path, ["conv.py"], set()).gap([failed.stderr])
    assert gap is not None and gap.label == "no module 'zzns.yamlish'"
    assert "pip install zzns.yamlish" in gap.reason
    # a module named whole keeps its name; the distribution is the declared one that installs it
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["PyYAML"]\n')
    gap = Dependencies(tmp_path, [], set()).gap(["ModuleNotFoundError: No module named 'yaml'"])
    assert gap is not None and gap.label == "no module 'yaml'"
    assert "pip install pyyaml" in gap.reason


def test_a_module_only_the_committed_tests_import_names_the_distribution_to_install(tmp_path):
    """dpath's tests import `nose2.tools.such`, which the project declares nowhere: the line named
    the module and no distribution, while the user must `pip install nose2`. The name is the
    top-level module Python could not import; where the two are known to differ, the known one;
    a namespace package by its first two parts."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "paths"\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_old.py").write_text(
        "from nosey.tools.such import helper\nimport yaml\nfrom ruamel.yaml import YAML\n"
    )
    commit_all(tmp_path)
    deps = Dependencies(tmp_path, [], set())
    trace = "  from nosey.tools.such import helper\nModuleNotFoundError: No module named 'nosey'"
    gap = deps.gap([trace])
    assert gap is not None and gap.label == "no module 'nosey.tools.such'"
    assert gap.reason.endswith("(the project uses it; pip install nosey)"), gap.reason
    gap = deps.gap(["ModuleNotFoundError: No module named 'yaml'"])
    assert gap is not None and "pip install pyyaml" in gap.reason
    trace = "  from ruamel.yaml import YAML\nModuleNotFoundError: No module named 'ruamel'"
    gap = deps.gap([trace])
    assert gap is not None and gap.reason.endswith("; pip install ruamel.yaml)"), gap.reason


CALC = {
    "src/calc.py": """
        def clamp(x, low, high):
            if x < low:
                return low
            if x > high:
                return high
            return x
        """,
    "tests/test_calc.py": """
        from calc import clamp


        def test_clamp():
            assert clamp(5, 0, 3) == 3
            assert clamp(-1, 0, 3) == 0
            assert clamp(2, 0, 3) == 2


        def test_pretty():
            import fakedep_missing

            assert fakedep_missing.fold("x") == "x"
        """,
}
VENV_CONFIG = (
    'dependencies = ["fakedep-missing"]\n'
    '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
    "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    '[tool.assay.python]\ninterpreter = ".venv/bin/python"\n'
)


def _mutants_cached(report) -> int:
    [f] = report.files
    return next(g for g in f.gates if g.gate == "mutation").details["cached_mutants"]


def test_installing_the_missing_module_judges_again_and_no_cache_reruns_mutants(project):
    root = project(CALC, VENV_CONFIG)
    venv.EnvBuilder(with_pip=False).create(root / ".venv")
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # pytest, from here

    first = verify([root / "tests"], root=root)
    assert first.files[0].verdict is Verdict.UNVALIDATED and first.exit_code == 1
    # the other test went on through gate 4, measured
    statuses = {g.gate: g.status for g in first.files[0].gates}
    assert statuses == {
        "compile": GateStatus.PASS,
        "green": GateStatus.WARN,
        "mutation": GateStatus.PASS,
    }
    with Store(root) as store:  # unvalidated is never kept
        assert (
            store._db.execute("SELECT COUNT(*) FROM entries WHERE namespace='verify'").fetchone()[0]
            == 0
        )

    # `pip install fakedep-missing`, by hand
    settings = Settings()
    settings.python.interpreter = str(root / ".venv" / "bin" / "python")
    before = PYTHON.toolchain_id(settings)
    (site / "fakedep_missing.py").write_text("def fold(text):\n    return text\n")
    (site / "fakedep_missing-1.0.dist-info").mkdir()
    (site / "fakedep_missing-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fakedep-missing\nVersion: 1.0\n"
    )
    assert PYTHON.toolchain_id(settings) != before  # part of every verdict's cache key
    installed = verify([root / "tests"], root=root)
    [f] = installed.files
    assert (f.verdict, f.cached, installed.exit_code) == (Verdict.ACCEPTED, False, 0), f
    # the mutants ran again under the new installed set
    assert _mutants_cached(installed) == 0

    assert verify([root / "tests"], root=root).files[0].cached  # nothing changed: from the cache
    fresh = verify([root / "tests"], root=root, use_cache=False)
    assert not fresh.files[0].cached and _mutants_cached(fresh) == 0


def _absent_stdlib() -> str:
    """A standard-library module this interpreter lacks: `_dbm` on builds without ndbm (pyenv's
    default on Debian), a Windows-only one on Linux otherwise."""
    import importlib.util

    for name in ("_dbm", "_gdbm", "_tkinter", "_lzma", "winreg", "_winapi"):
        if importlib.util.find_spec(name) is None:
            return name
    raise AssertionError("every candidate module is present")


def test_a_standard_library_module_the_interpreter_was_built_without_is_an_environment_gap(
    project, tmp_path
):
    """six's `test_move_items[dbm_ndbm]` fails with "No module named '_dbm'" on a Python built
    without ndbm: the interpreter is incomplete; the test is not wrong."""
    absent = _absent_stdlib()
    files = {
        "kv.py": """
            def put(store, key, value):
                return {**store, key: value}
            """,
        "tests/test_kv.py": f"""
            import importlib

            from kv import put


            def test_put():
                assert put({{}}, "a", 1) == {{"a": 1}}


            def test_native_backend():
                backend = importlib.import_module("{absent}")
                assert backend is not None
            """,
    }
    proc, tests = _one_unvalidated_file(project(files, GATES_1_2), tmp_path)
    assert tests["test_put"]["verdict"] == "accepted"
    backend = tests["test_native_backend"]
    assert backend["verdict"] == "unvalidated"
    assert f"module '{absent}' of the standard library is missing" in backend["reason"]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("environment:"))
    assert f"no standard-library module '{absent}'" in line and "use a Python built with it" in line


def test_a_locale_the_system_lacks_is_an_environment_gap(project, tmp_path):
    """natsort 8.4.0: a conftest fixture sets `en_US.UTF-8` on a system that generated only C and
    C.UTF-8; 9 of its 17 files were `rejected` at green for `locale.Error: unsupported locale
    setting`. The system lacks a locale; the tests are not wrong."""
    files = {
        "fmt.py": """
            import locale


            def grouped(n):
                return locale.format_string("%d", n, grouping=True)
            """,
        "tests/test_fmt.py": """
            import locale

            import pytest

            from fmt import grouped


            @pytest.fixture
            def zz_locale():
                locale.setlocale(locale.LC_ALL, "zz_QQ.UTF-8")
                yield
                locale.setlocale(locale.LC_ALL, "")


            def test_plain():
                assert grouped(7) == "7"


            def test_grouped(zz_locale):
                assert grouped(1234) == "1,234"
            """,
    }
    proc, tests = _one_unvalidated_file(project(files, GATES_1_2), tmp_path)
    assert tests["test_plain"]["verdict"] == "accepted"
    assert tests["test_grouped"]["verdict"] == "unvalidated"
    assert "locale 'zz_QQ.UTF-8' is not installed on the system" in tests["test_grouped"]["reason"]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("environment:"))
    assert "no locale 'zz_QQ.UTF-8' on this system (1 test of 1 file unvalidated" in line
    # the gate's own words: a locale is the system's to generate, not a package to install
    [f] = json.loads((tmp_path / "r.json").read_text())["files"]
    green = next(g for g in f["gates"] if g["gate"] == "green")["feedback"]
    assert green.startswith("UNVALIDATED: Gate 2 — MISSING SYSTEM LOCALE"), green
    assert "generate 'zz_QQ.UTF-8' on this system (locale-gen" in green
    assert "Not judged: install" not in green


@pytest.mark.slow
def test_a_low_score_without_the_tests_the_environment_kept_from_running_is_unvalidated(project):
    """natsort's test_parse_string_function.py: its locale tests did not run, and gate 4 rejected
    the file for survivors those tests kill. Without them the score says nothing of the file."""
    root = project(
        {
            "sign.py": """
                def classify(n):
                    if n < 0:
                        return "negative"
                    if n == 0:
                        return "zero"
                    return "positive"
                """,
            "tests/test_sign.py": """
                from sign import classify


                def test_runs():
                    assert classify(-3)
                    assert classify(0)
                    assert classify(4)


                def test_exact():
                    import fakedep_missing

                    assert classify(-3) == fakedep_missing.NEGATIVE
                """,
        },
        'dependencies = ["fakedep-missing>=1"]\n'
        "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n",
    )
    f = verify([root / "tests/test_sign.py"], root=root, use_cache=False).files[0]
    mutation = f.gates[-1]
    assert f.verdict is Verdict.UNVALIDATED, [g.feedback for g in f.gates]
    assert mutation.gate == "mutation" and mutation.status is GateStatus.SKIP
    assert mutation.feedback.startswith("UNVALIDATED: Gate 4 — SCORE NOT JUDGED (")
    assert "1 of the file's tests did not run (no module 'fakedep_missing')" in mutation.feedback
    assert "sign.py, line" in mutation.feedback  # the survivors are still shown


def test_a_test_that_swallows_the_import_error_of_a_missing_module_is_unvalidated(project):
    """texttable's `test_cjkwarp`: `try: import cjkwrap ... except ImportError: True`. Without the
    module (its tox.ini installs it) the test passed having checked nothing, and gate 4 called it
    low value ("reaches no mutant"): an environment gap, hidden by the test. A guarded import of a
    module the project does not know stays the test's own business."""
    root = project(
        {
            "wrap.py": "def wrap(text):\n    return text.split()\n",
            "tests/test_wrap.py": """
                from wrap import wrap


                def test_wrap():
                    assert wrap("a b") == ["a", "b"]


                def test_wide_wrap():
                    try:
                        import fakedep_missing

                        assert wrap("a b") == fakedep_missing.wrap("a b")
                    except ImportError:
                        pass


                def test_optional_speedup():
                    try:
                        import not_the_projects_module
                    except ImportError:
                        not_the_projects_module = None
                    assert wrap("a") == ["a"]
                """,
        },
        'dependencies = ["fakedep-missing>=1"]\n' + GATES_1_2,
    )
    f = verify([root / "tests/test_wrap.py"], root=root, use_cache=False).files[0]
    verdicts = {t.id.split("::")[1]: (t.verdict, t.reason) for t in f.tests}
    assert f.verdict is Verdict.UNVALIDATED, verdicts
    verdict, reason = verdicts["test_wide_wrap"]
    assert verdict is Verdict.UNVALIDATED
    assert reason.startswith("module 'fakedep_missing' is not installed"), reason
    assert reason.endswith("the test catches the ImportError and checks nothing without it")
    assert verdicts["test_wrap"][0] is Verdict.ACCEPTED
    assert verdicts["test_optional_speedup"][0] is Verdict.ACCEPTED


TEST_ADD = """
    from calc import add


    def test_add():
        assert add(1, 2) == 3
    """


def test_a_pytest_plugin_the_config_needs_is_named_when_pytest_stops_before_any_test(project):
    """blinker 1.9: `filterwarnings = ["error"]` and `asyncio_mode = "auto"` without pytest-asyncio
    turn pytest's "Unknown config option" warning into an internal error before any test runs; the
    file read "NO TEST PASSED: Every test was skipped, xfail, or lacks an installed dependency",
    naming none. The option and the plugin to install are named now."""
    root = project(
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": """
                from calc import add


                def test_add():
                    assert add(1, 2) == 3
                """,
        },
        '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\nasyncio_mode = "auto"\n'
        + GATES_1_2,
    )
    f = verify([root / "tests"], root=root, use_cache=False).files[0]
    gate = f.gates[-1]  # gate 1's process stops as gate 2's would
    assert (f.verdict, gate.gate) == (Verdict.UNVALIDATED, "compile"), gate.feedback
    assert "sets `asyncio_mode`, an option of the plugin pytest-asyncio" in gate.feedback
    assert "pip install pytest-asyncio" in gate.feedback
    assert {t.verdict for t in f.tests} <= {Verdict.UNVALIDATED}
    proc = run_cli("verify", "tests", "--no-cache", cwd=root)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("environment: "))
    assert "pip install pytest-asyncio in " in line and "the build environment" not in line


def test_an_unknown_option_no_plugin_table_knows_is_named_too():
    from assay.languages.pytest_results import internal_error

    said = internal_error(
        '    warnings.warn(f"Unknown config option: {key}\\n")\n'
        "INTERNALERROR> pytest.PytestConfigWarning: Unknown config option: zz_opt\n"
    )
    assert "sets `zz_opt`, which no installed plugin knows" in said
    assert internal_error("INTERNALERROR> x\nINTERNALERROR> boom").endswith("ran: boom")


def test_pytest_stopping_at_configuration_is_not_a_file_without_tests(project):
    """blinker 1.9 with today's pytest-asyncio: its configure-time deprecation warning, made an
    error by `filterwarnings = ["error"]`, stopped pytest before collection; every file read
    "rejected at compile: no tests collected (no test_* functions or Test* classes)". async_lru
    2.4.0's warning is two lines, the first naming the option to set: all of it is said."""
    root = project(
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "conftest.py": """
                import pytest


                def pytest_configure(config):
                    warning = pytest.PytestDeprecationWarning(
                        'The option "loop_scope" is unset.\\nSet it to "function".'
                    )
                    config.issue_config_time_warning(warning, stacklevel=2)
                """,
            "tests/test_calc.py": """
                from calc import add


                def test_add():
                    assert add(1, 2) == 3
                """,
        },
        '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n' + GATES_1_2,
    )
    f = verify([root / "tests"], root=root, use_cache=False).files[0]
    assert (f.verdict, f.rejected_at) == (Verdict.UNVALIDATED, "compile"), f.gates[0].feedback
    said = f.gates[0].feedback
    # the whole message: async_lru 2.4.0's said only its last line, not the option to set
    assert (
        'before any test ran: pytest.PytestDeprecationWarning: The option "loop_scope" is unset. '
        'Set it to "function".'
    ) in said
    assert "`filterwarnings = error` makes an error" in said


def test_options_of_missing_pytest_plugins_in_addopts_name_the_plugins(project):
    """url-normalize 3.1: its addopts pass `--cov=...` and `--disable-socket`, options of
    pytest-cov and pytest-socket (its `dev` extra); the line said only "unrecognized arguments:
    check pytest_args ... and the addopts". It names the plugins to install now."""
    root = project(
        {"calc.py": "def add(a, b):\n    return a + b\n", "tests/test_calc.py": TEST_ADD},
        '[tool.pytest.ini_options]\naddopts = "--disable-socket --reruns=2 --zz-unknown"\n'
        + GATES_1_2,
    )
    proc = run_cli("verify", "tests", "--no-cache", cwd=root)
    assert proc.returncode == 2, proc.stdout[-2000:]
    line = proc.stderr.strip().splitlines()[-1]
    assert "options of pytest-socket, pytest-rerunfailures, not installed" in line, line
    assert "(pip install pytest-socket pytest-rerunfailures)" in line


HELLO = {
    "src/hello/__init__.py": """
        def greet(name):
            return f"hello {name}"
        """,
    "tests/test_script.py": """
        import subprocess

        from hello import greet


        def test_greet():
            assert greet("a") == "hello a"


        def test_console_script():
            out = subprocess.run(["hello-cli"], capture_output=True, text=True, check=True)
            assert out.stdout == "hello cli\\n"
        """,
}


def test_the_interpreters_venv_scripts_are_on_path_as_its_activation_puts_them(project):
    """glom's `test_main` runs `glom`, the console script `pip install -e .` put in the venv's
    bin: with the README's relative interpreter and no activated venv it was `rejected at green`
    (FileNotFoundError). The configured venv's scripts come first on PATH, as activating it does."""
    root = project(
        HELLO,
        "[tool.pytest.ini_options]\npythonpath = ['src']\n"
        "[tool.assay]\ngates = ['compile', 'green']\n"
        '[tool.assay.python]\ninterpreter = ".venv/bin/python"\n',
    )
    venv.EnvBuilder(with_pip=False).create(root / ".venv")
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # pytest, from here
    script = root / ".venv" / "bin" / "hello-cli"  # as pip writes a console script
    script.write_text("#!/bin/sh\necho hello cli\n")
    script.chmod(0o755)
    [f] = verify([root / "tests"], root=root).files
    assert f.verdict is Verdict.ACCEPTED, [g.feedback for g in f.gates]


def test_a_program_the_project_starts_that_is_not_on_path_is_an_environment_gap(project, tmp_path):
    """cachelib's redis tests start `redis-server`; where it is not installed, `subprocess` raises
    FileNotFoundError for the bare name: the system lacks a program, the test is not wrong (it was
    "rejected at green: fix expected values"). A file the test expects and does not find stays
    the test's failure."""
    files = {
        "tool.py": """
            import subprocess


            def server_version(program):
                out = subprocess.run([program, "--version"], capture_output=True, text=True)
                return out.stdout.split()[-1]


            def double(x):
                return x * 2
            """,
        "tests/test_tool.py": """
            from tool import double, server_version


            def test_double():
                assert double(3) == 6


            def test_server_version():
                assert server_version("assay-no-such-server") == "7.2"
            """,
    }
    proc, tests = _one_unvalidated_file(project(files, GATES_1_2), tmp_path)
    assert tests["test_double"]["verdict"] == "accepted"
    assert tests["test_server_version"]["verdict"] == "unvalidated"
    assert (
        "program 'assay-no-such-server' is not installed" in tests["test_server_version"]["reason"]
    )
    assert "environment: no program 'assay-no-such-server' on this system" in proc.stdout
    assert "MISSING PROGRAM" in proc.stdout

    files["tests/test_tool.py"] += """

            def test_reads_its_data():
                assert open("data.json").read() == "{}"
            """
    out = tmp_path / "data.json"
    proc = run_cli("verify", "tests", "-f", f"json={out}", cwd=project(files, GATES_1_2))
    [f] = json.loads(out.read_text())["files"]
    assert f["verdict"] == "rejected", f
    verdicts = {t["id"].split("::")[1]: t["verdict"] for t in f["tests"]}
    assert verdicts["test_reads_its_data"] == "rejected"


def test_a_module_the_projects_committed_tests_import_is_an_environment_gap(project):
    """dpath's sdist declares neither `nose2` nor `hypothesis`, which its tests import: a new user
    who has not installed them read "COMPILE ERROR ... check imports" on the author's own tests. A
    module the project's committed tests import is the project's; one that only a new or changed
    file imports is still the test's own fault."""
    root = project(
        {
            "src/calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_old.py": """
                from nosey_madeup.tools import helper

                from calc import add


                def test_add():
                    assert add(1, 2) == 3
                """,
        },
        "[tool.pytest.ini_options]\npythonpath = ['src']\n" + GATES_1_2,
    )
    commit_all(root)
    (root / "tests" / "test_new.py").write_text(
        "import other_madeup\n\n\ndef test_x():\n    assert other_madeup.x == 1\n"
    )
    report = verify([root / "tests"], root=root)
    by = {f.path: f for f in report.files}
    old, new = by["tests/test_old.py"], by["tests/test_new.py"]
    assert (old.verdict, old.rejected_at) == (Verdict.UNVALIDATED, "compile"), old
    assert "module 'nosey_madeup.tools' is not installed" in old.gates[0].feedback
    assert (new.verdict, new.rejected_at) == (Verdict.REJECTED, "compile"), new
    # the same import added to the committed file, uncommitted: the file is the writer's now
    with (root / "tests" / "test_old.py").open("a") as fh:
        fh.write("\n\ndef test_more():\n    import other_madeup\n")
    changed = verify([root / "tests/test_old.py"], root=root, use_cache=False).files[0]
    assert (changed.verdict, changed.rejected_at) == (Verdict.REJECTED, "compile"), changed


def test_a_skip_whose_reason_names_a_missing_module_is_an_environment_gap(project, tmp_path):
    """schedule 1.2.2 skips 41 of its 81 tests with `skipUnless(pytz, "pytz unavailable")` when its
    `timezone` extra is not installed: the file was `accepted`, exit 0, the module never named.
    A skip whose reason names a module the project declares and the test interpreter lacks leaves
    those tests unjudged for the environment, like `importorskip`; a skip for any other reason
    (a platform, a feature) stays the author's own."""
    root = project(
        {
            "src/calc.py": "try:\n    import newlib_madeup\nexcept ImportError:\n    pass\n\n\n"
            "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": """
                import sys
                import unittest

                try:
                    import fakedep_missing
                except ImportError:
                    fakedep_missing = None

                from calc import add


                class CalcTests(unittest.TestCase):
                    def test_add(self):
                        self.assertEqual(add(1, 2), 3)

                    @unittest.skipUnless(fakedep_missing, "fakedep_missing unavailable")
                    def test_tz(self):
                        self.assertEqual(add(fakedep_missing.one, 1), 2)

                    @unittest.skipIf(sys.platform.startswith("linux"), "not on linux")
                    def test_platform(self):
                        self.assertEqual(add(2, 2), 4)

                    @unittest.skipIf(sys.version_info < (3, 99), "newlib_madeup is new in 3.99")
                    def test_newer_python(self):
                        self.assertEqual(add(3, 3), 6)
                """,
        },
        "[project.optional-dependencies]\ntz = ['fakedep-missing']\n"
        "[tool.pytest.ini_options]\npythonpath = ['src']\n" + GATES_1_2,
    )
    proc, _ = _one_unvalidated_file(root, tmp_path)
    [f] = json.loads((tmp_path / "r.json").read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    assert tests["CalcTests::test_add"]["verdict"] == "accepted"
    tz = tests["CalcTests::test_tz"]
    assert tz["verdict"] == "unvalidated"
    assert "module 'fakedep_missing' is not installed" in tz["reason"], tz
    assert tests["CalcTests::test_platform"]["reason"] == "skipped: not on linux"
    # toolz 1.2: `annotationlib is new in Python 3.14`, a module its code only tries to import
    newer = tests["CalcTests::test_newer_python"]
    assert newer["reason"] == "skipped: newlib_madeup is new in 3.99", newer
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("environment:"))
    assert "no module 'fakedep_missing'" in line and "(1 test of 1 file" in line, line


def test_a_failure_saying_it_cannot_import_a_declared_missing_module_is_an_environment_gap(
    project, tmp_path
):
    """textdistance 4.6.3's `test_external.py` compares each algorithm with the libraries of its
    `extras` (jellyfish, Levenshtein, ...), which the project looks up with `import_module` in a
    `try`; without them the test raises `RuntimeError('cannot import jellyfish.jaro_similarity')`,
    and all 30 tests were `rejected at green`, "Fix expected values or setup". A failure that says
    it cannot import a module the project declares, which the test interpreter lacks, is the
    environment's gap; Python's own "cannot import name 'x' from 'mod'" (a name the module lacks)
    and a module the project does not know stay the test's failures."""
    root = project(
        {
            "src/calc.py": """
                from importlib import import_module


                def external(name):
                    try:
                        return import_module(name)
                    except ImportError:
                        return None


                def add(a, b):
                    return a + b
                """,
            "tests/test_calc.py": """
                from calc import add, external


                def test_add():
                    assert add(1, 2) == 3


                def test_against_the_extra():
                    lib = external("fakedep_missing")
                    if lib is None:
                        raise RuntimeError("cannot import fakedep_missing.fold")
                    assert lib.fold(add(1, 1)) == 2


                def test_against_an_unknown_module():
                    if external("madeup_unknown_xyz") is None:
                        raise RuntimeError("cannot import madeup_unknown_xyz.fold")


                def test_a_name_the_module_lacks():
                    raise ImportError("cannot import name 'fold' from 'calc'")
                """,
        },
        "[project.optional-dependencies]\nextras = ['fakedep-missing']\n"
        "[tool.pytest.ini_options]\npythonpath = ['src']\n" + GATES_1_2,
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", "text", "-f", f"json={out}", cwd=root)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    [f] = json.loads(out.read_text())["files"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    extra = tests["test_against_the_extra"]
    assert extra["verdict"] == "unvalidated", extra
    assert "module 'fakedep_missing' is not installed" in extra["reason"], extra
    assert "pip install fakedep_missing" in extra["reason"], extra
    assert tests["test_against_an_unknown_module"]["verdict"] == "rejected"
    assert tests["test_a_name_the_module_lacks"]["verdict"] == "rejected"
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("environment:"))
    assert "no module 'fakedep_missing'" in line and "(1 test of 1 file" in line, line


def test_a_distribution_named_like_a_file_installs_the_module_without_the_suffix(tmp_path):
    """num2words declares `delegator.py` for its CLI tests, which `import delegator`; without it
    the line said "pip install delegator", another project on PyPI. A distribution named
    `NAME.py` (`delegator.py`, `boolean.py`) installs the module NAME: the declared one is named."""
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='words', install_requires=['docopt'], tests_require=['delegatorish.py'])\n"
    )
    deps = Dependencies(tmp_path, [], set())
    gap = deps.gap(["ModuleNotFoundError: No module named 'delegatorish'"])
    assert gap is not None and gap.label == "no module 'delegatorish'"
    assert gap.reason.endswith("(the project uses it; pip install delegatorish_py)"), gap.reason
