"""Profiles: AS003 rejects generated tests and warns on a project's own suite; "auto" tells them
apart by the `assay_generated` mark."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from assay.config import settings_from_dict, tomllib
from assay.errors import ConfigError
from assay.smells import RULES, SmellsConfig, analyze, level_of
from assay.smells.docs import render

ROULETTE = "".join(f"    assert add({i}, 1) == {i + 1}\n" for i in range(6))


def levels(source: str, **config) -> dict[str, str]:
    """test name -> level of its AS003 finding."""
    found = analyze(textwrap.dedent(source), "tests/test_x.py", config=SmellsConfig(**config))
    return {f.test: f.level for f in found if f.rule == "AS003"}


@pytest.mark.parametrize("profile, level", [("generated", "reject"), ("suite", "warn")])
def test_explicit_profile_sets_the_level_of_AS003(profile, level):
    assert levels(f"def test_walk():\n{ROULETTE}", profile=profile) == {"test_walk": level}


def test_auto_judges_marked_tests_as_generated_and_the_others_as_suite():
    source = f"""
import pytest
from pytest import mark

@pytest.mark.assay_generated
def test_marked():
{ROULETTE}
@mark.assay_generated(tool="assay")
def test_marked_through_an_import():
{ROULETTE}
def test_hand_written():
{ROULETTE}
class TestGenerated:
    pytestmark = [pytest.mark.assay_generated]

    def test_in_marked_class(self):
    {ROULETTE.replace(chr(10), chr(10) + "    ")}
"""
    assert levels(source) == {
        "test_marked": "reject",
        "test_marked_through_an_import": "reject",
        "test_hand_written": "warn",
        "TestGenerated::test_in_marked_class": "reject",
    }


def test_module_pytestmark_marks_every_test():
    source = (
        f"import pytest\npytestmark = [pytest.mark.slow, pytest.mark.assay_generated]\n"
        f"def test_a():\n{ROULETTE}\ndef test_b():\n{ROULETTE}"
    )
    assert levels(source) == {"test_a": "reject", "test_b": "reject"}
    assert levels(source, profile="suite") == {"test_a": "warn", "test_b": "warn"}


def test_other_marks_do_not_make_a_test_generated():
    source = (
        f"import pytest\n@pytest.mark.generated\n@pytest.mark.parametrize('x', "
        f"[1])\ndef test_a(x):\n{ROULETTE}"
    )
    assert levels(source) == {"test_a": "warn"}


def test_a_per_rule_level_wins_over_the_profile():
    source = f"def test_walk():\n{ROULETTE}"
    assert levels(source, profile="suite", levels={"AS003": "reject"}) == {"test_walk": "reject"}
    assert levels(source, profile="generated", levels={"AS003": "off"}) == {}


def test_rules_without_profile_levels_are_the_same_in_both():
    source = "def test_runs():\n    total([1])\n"
    for profile in ("generated", "suite", "auto"):
        found = analyze(source, "t.py", config=SmellsConfig(profile=profile))
        assert [(f.rule, f.level) for f in found] == [("AS001", "reject")]


def test_profile_is_read_from_the_settings_and_checked():
    assert settings_from_dict({"smells": {"profile": "suite"}}).smells.profile == "suite"
    assert settings_from_dict({}).smells.profile == "auto"
    with pytest.raises(ConfigError, match="smells.profile"):
        settings_from_dict({"smells": {"profile": "strict"}})


def test_level_of_without_a_test_is_the_level_of_an_unmarked_test():
    rule = RULES["AS003"]
    assert level_of(rule, SmellsConfig()) == "warn"
    assert level_of(rule, SmellsConfig(), generated=True) == "reject"
    assert level_of(rule, SmellsConfig(profile="generated")) == "reject"


def test_docs_state_both_levels_of_AS003():
    assert "| assertion-roulette | reject (generated) / warn (suite) |" in render()


def test_the_smells_example_in_the_configuration_docs_is_valid():
    doc = (Path(__file__).parents[2] / "docs/configuration.md").read_text()
    block = re.search(r"## Smells.*?```toml\n(.*?)```", doc, re.S).group(1)
    smells = settings_from_dict(tomllib.loads(block)["tool"]["assay"]).smells
    assert (smells.profile, smells.levels) == ("auto", {"AS016": "off"})
