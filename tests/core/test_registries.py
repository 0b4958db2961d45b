"""Registries that hold: a language and a writer added with one module and one registry line
each (the toy ones in `tests/core/toylang.py` and `tests/core/toy_writer.py`) are picked up
by `assay.api` and by every consumer of the registries: fences and test marks, settings
sections, `--writer`."""

from __future__ import annotations

import pytest

from assay import api
from assay.config import load_settings
from assay.errors import ConfigError
from assay.languages import LANGUAGES
from assay.llm.extract import extract, fence_for
from assay.model import Verdict
from assay.writers import WRITERS
from tests.core.toylang import TOY

FAST = "[tool.assay.stability]\nreruns = 1\nbudget_s = 0\n"


@pytest.fixture
def toylang(monkeypatch):
    monkeypatch.setitem(LANGUAGES, "toylang", TOY)  # the one registry line


@pytest.fixture
def toy_writer(monkeypatch):
    monkeypatch.setitem(WRITERS, "toy", "tests.core.toy_writer:ToyWriter")  # the one registry line


def test_verify_runs_a_registered_language_through_its_runner(toylang, project):
    root = project(
        {
            "tests/sum_test.toy": "test adds: 2 + 3 == 5\ntest subtracts: 5 - 3 == 2\n",
            "tests/wrong_test.toy": "test adds: 2 + 2 == 5\n",
        },
        FAST,
    )
    report = api.verify([root / "tests"], root=root, use_cache=False)
    files = {f.path: f for f in report.files}
    assert set(files) == {"tests/sum_test.toy", "tests/wrong_test.toy"}
    good, bad = files["tests/sum_test.toy"], files["tests/wrong_test.toy"]
    assert {g.gate: g.status.value for g in good.gates}["green"] == "pass"
    assert sorted(t.id for t in good.tests) == [
        "tests/sum_test.toy::adds",
        "tests/sum_test.toy::subtracts",
    ]
    assert bad.verdict is Verdict.REJECTED and bad.rejected_at == "green"
    assert "false: 2 + 2 == 5" in next(g.feedback for g in bad.gates if g.gate == "green")


def test_a_registered_language_gets_gate_1_feedback_from_its_runner(toylang, project):
    root = project({"tests/typo_test.toy": "test adds: 1 == 1\ntset oops: 1 == 1\n"}, FAST)
    report = api.verify([root / "tests/typo_test.toy"], root=root, use_cache=False)
    assert report.files[0].rejected_at == "compile"
    assert "not a test line: tset oops" in report.files[0].gates[0].feedback


def test_a_registered_language_has_its_fences_and_tool_section(toylang, project):
    assert fence_for("toylang") == "toy"
    answer = "Here:\n```toy\n# helpers\n```\n```toy\ntest adds: 1 + 1 == 2\n```\n"
    assert extract(answer, language="toylang").code == "test adds: 1 + 1 == 2\n"
    assert "not Toylang" in (
        extract("```go\nfunc TestX(t *testing.T) {}\n```", language="toylang").problem or ""
    )
    root = project({}, '[tool.assay.toylang]\ntest_args = ["--quiet"]\n')
    assert load_settings(root).tool("toylang").test_args == ["--quiet"]


def test_without_its_registry_line_a_language_section_is_an_unknown_setting(project):
    root = project({}, '[tool.assay.toylang]\ntest_args = ["--quiet"]\n')
    with pytest.raises(ConfigError, match="unknown setting 'toylang'"):
        load_settings(root)


def test_generate_uses_a_registered_writer(toy_writer, project):
    root = project(
        {"src/calc.py": "def add(a, b):\n    return a + b\n", "tests/__init__.py": ""}, FAST
    )
    report = api.generate(
        [str(root / "src/calc.py")],
        root=root,
        overrides={"generate.writer": "toy:hello"},
        use_cache=False,
    )
    assert report.writer == "toy:hello"
    [target] = report.targets
    assert target.outcome == "accepted", target.dropped
    assert target.kept_tests == ["tests/test_calc_generated.py::test_add"]
    written = (root / target.output).read_text()
    assert '"""Written by the toy writer (hello)."""' in written
    assert report.exit_code == 0


def test_an_unregistered_writer_is_a_config_error(project):
    root = project({"src/calc.py": "def add(a, b):\n    return a + b\n"}, FAST)
    with pytest.raises(ConfigError, match="writer 'toy:hello' is not provider:model"):
        api.generate(
            [str(root / "src/calc.py")], root=root, overrides={"generate.writer": "toy:hello"}
        )


def test_every_writer_is_registered():
    assert {"openai", "anthropic", "command", "replay", "offline"} <= set(WRITERS)
