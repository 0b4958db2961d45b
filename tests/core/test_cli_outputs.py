"""The CLI as a user meets it: the README's commands as written, output destinations, help,
version, width."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO, run_cli


def readme_tour() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("## A short tour", 1)[1].split("```", 2)[1]
    return [
        shlex.split(line.split("#", 1)[0])[1:]
        for line in block.splitlines()
        if line.startswith("assay ")
    ]


KEPT = ("test_pricing.py", "test_parser.py", "test_no_assert.py", "test_inventory_order.py")


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The demo project with four of its ten test files (the README's commands name only
    test_pricing.py and test_parser.py): every command runs as written, in a fraction of the time;
    the demo test covers the rest."""
    dest = tmp_path_factory.mktemp("readme") / "shop"
    shutil.copytree(
        REPO / "examples" / "shop", dest, ignore=shutil.ignore_patterns("__pycache__", ".assay")
    )
    for test in (dest / "tests").glob("test_*.py"):
        if test.name not in KEPT:
            test.unlink()
    return dest


@pytest.mark.slow  # every command of the README tour
def test_the_readme_tour_runs_as_written(shop):
    commands = readme_tour()
    assert len(commands) >= 9
    for args in commands:
        proc = run_cli(*args, cwd=shop)
        assert proc.returncode in (0, 1), (args, proc.stderr)
        assert "error" not in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        for spec in [a for a in args if "=" in a] + [
            args[i + 1] for i, a in enumerate(args) if a == "--junit-xml"
        ]:
            fmt, _, file = spec.rpartition("=")
            written = (shop / file).read_text(encoding="utf-8")
            assert written.strip(), (args, file)
            if fmt == "junit" or file.endswith(".xml"):
                assert written.startswith("<?xml"), (args, written[:100])
            if fmt in ("json", "sarif", "mutation-testing-elements"):
                assert written.lstrip().startswith("{"), (args, written[:100])
        if args[0] == "verify" and not any(a.startswith("-f") for a in args):
            assert "verdict" in proc.stdout  # the table went to the terminal


def test_one_output_goes_to_the_one_data_format_and_ambiguity_is_one_line(shop):
    junit = shop / "only.xml"
    proc = run_cli(
        "verify", "tests/test_pricing.py", "-f", "text", "-f", "junit", "-o", str(junit), cwd=shop
    )
    assert (
        proc.returncode == 0 and junit.read_text().startswith("<?xml") and "verdict" in proc.stdout
    )
    # a data format on stdout stays parseable beside one written to a file
    proc = run_cli("verify", "tests/test_pricing.py", "-f", "json", "-f", "junit=j.xml", cwd=shop)
    assert json.loads(proc.stdout)["files"] and "junit report written" in proc.stderr
    for args in (
        ["-f", "json", "-f", "junit"],
        ["-f", "json", "-f", "junit", "-o", "x"],
        ["-f", "yaml"],
    ):
        bad = run_cli("verify", "tests/test_pricing.py", *args, cwd=shop)
        assert (
            bad.returncode == 2
            and bad.stderr.startswith("assay: error:")
            and len(bad.stderr.splitlines()) == 1
        )


def test_version_and_help_without_type_labels():
    version = run_cli("--version")
    assert version.returncode == 0 and re.fullmatch(r"assay \S+\n", version.stdout)
    for command in ("verify", "mutate", "smells", "demo"):
        text = run_cli(command, "--help").stdout
        assert "<bool>" not in text and "<list[" not in text and "Usage:" in text


def test_smells_text_shows_level_class_and_a_summary(project):
    root = project(
        {
            "src/pkg/__init__.py": "",
            "src/pkg/core.py": "def f(x):\n    return x * 2\n",
            "tests/test_cls.py": "import unittest\nfrom pkg.core import f\n\n"
            "class TestF(unittest.TestCase):\n    def test_runs(self):\n        f(2)\n",
        }
    )
    proc = run_cli("smells", "tests", cwd=root)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("tests/test_cls.py:5:5 AS001 [reject] TestF::test_runs: ")
    assert lines[-1] == "1 finding in 1 file (1 reject); exit 1: reject-level findings"


def test_at_80_columns_no_verdict_is_cut(shop):
    proc = run_cli("verify", "tests", env={**__import__("os").environ, "COLUMNS": "80"}, cwd=shop)
    table = [line for line in proc.stdout.splitlines() if line.startswith("│")]
    assert table and all(len(line) <= 80 for line in table)
    verdicts = {"accepted", "rejected", "flaky", "low value", "unvalidated"}
    shown = {v for line in table for v in verdicts if v in line}
    assert shown == {"accepted", "rejected", "flaky"}
    assert not any("…" in line for line in table)


CALC = {
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}


def test_a_report_file_that_cannot_be_written_stops_every_command_before_it_starts(project):
    root = project(CALC)
    gone = "/nonexistent/report.json"
    for args in (
        ["verify", "tests", "-f", f"json={gone}"],
        ["verify", "tests", "-f", f"json={root}"],  # a directory
        ["mutate", "src/calc.py", "--tests", "tests", "-f", f"json={gone}"],
        ["smells", "tests", "-f", f"sarif={gone}"],
        ["targets", "-f", f"json={gone}"],
        ["generate", "src/calc.py", "-f", f"json={gone}"],
        ["prism", "check", ".", "-o", gone],
    ):
        proc = run_cli(*args, cwd=root)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1, (args, proc.stderr)
        assert proc.stderr.startswith("assay: error: cannot write"), (args, proc.stderr)


def test_targets_write_each_format_where_asked(project, tmp_path):
    root = project(CALC)
    proc = run_cli("targets", "-f", f"json={tmp_path / 't.json'}", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("assay targets — ")  # the text view stays on the terminal
    assert '"schema": "assay.targets/1"' in (tmp_path / "t.json").read_text()
    proc = run_cli("targets", "-f", "json", "-o", str(tmp_path / "o.json"), cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o.json").read_text() == (tmp_path / "t.json").read_text()


def test_a_command_imports_only_its_own_module():
    """`assay --version` and `assay smells` do not import the verify pipeline (with every command
    loaded, --version took 0.8 s of CPU, now 0.15 s)."""
    probe = (
        "import sys\n"
        "from assay.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('assay.api', 'assay.cli.verify') if m in sys.modules))\n"
    )
    for args, loaded in ((["--version"], "[]"), (["smells", "--help"], "['assay.api']")):
        proc = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60
        )
        assert proc.stdout.splitlines()[-1] == loaded, proc.stdout + proc.stderr


def test_verify_imports_no_writer_and_no_template_engine():
    """`assay verify` starts without the offline writer's code or Jinja2 (prompts, the prism HTML
    page), which only `generate`, `prism` and the opt-in review gate use: 0.57 -> 0.44 CPU s for
    `import assay.cli.verify`, paid at every start."""
    probe = (
        "import sys\n"
        "from assay.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('jinja2', 'assay.writers.offline') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "verify", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Usage: " in proc.stdout and proc.stdout.splitlines()[-1] == "[]", proc.stderr


def test_verify_starts_without_other_commands_code_or_a_plugin_scan():
    """`assay verify` loads neither prism's, the sprint's, the diff scope's nor the cluster's code,
    nor the reporters of formats it does not write, and pydantic does not scan every installed
    distribution for plugins when assay's settings classes are made: `import assay.cli.verify`
    0.37 -> 0.33 CPU s, `verify --help` 0.40 -> 0.36 s."""
    probe = (
        "import sys\n"
        "from assay.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "from pydantic.plugin import _loader\n"
        "names = ('assay.prism', 'assay.sprint', 'assay.diff', 'assay.shipped',"
        " 'assay.report.junit', 'assay.mutation', 'assay.llm', 'assay.smells', 'assay.writers')\n"
        "print(sorted(m for m in names if m in sys.modules), _loader._plugins)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "verify", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Usage: " in proc.stdout and proc.stdout.splitlines()[-1] == "[] None", proc.stderr


def test_gates_1_to_3_load_no_later_gates_code(tmp_path):
    """A verify of gates 1-3 (what a Rust, Go or JS file costs against its native runner) builds
    its gates and pipeline without gate 4's mutation engines and workers on standby, gate 5's
    smell rules nor gate 6's LLM clients: every gate was imported, 0.12-0.16 s of CPU at each
    start (`import assay.cli.verify` 0.47 -> 0.34 s)."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    probe = (
        "import sys\n"
        "from assay.config import Settings\n"
        "from assay.pipeline import Verifier\n"
        "from pathlib import Path\n"
        "from assay.project import Project\n"
        "settings = Settings(gates=['compile', 'green', 'stability'], cache=False)\n"
        "Verifier(Project.load(Path(sys.argv[1])), settings).close()\n"
        "names = ('assay.mutation', 'assay.llm', 'assay.smells', 'assay.gates.mutation')\n"
        "print(sorted(m for m in names if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.splitlines()[-1:] == ["[]"], proc.stdout + proc.stderr
