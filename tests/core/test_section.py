"""The settings' own validation (`assay.section`): what a config file or a caller may give, and
what each mistake says."""

from __future__ import annotations

import pytest

from assay.config import MutationConfig, Settings, ToolConfig, settings_from_dict
from assay.errors import ConfigError
from assay.section import Invalid


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"sandbox": {"timeout_s": float("inf")}}, "'sandbox.timeout_s': Input should be a finite"),
        ({"jobs": True}, "'jobs': Input should be a valid integer"),
        ({"sandbox": {"memory_mb": 10.5}}, "'sandbox.memory_mb': Input should be a valid integer"),
        ({"mutation": {"thresholds": {"fast": 1}}}, "'mutation.thresholds.fast': Input should be"),
        ({"llm": {"prices": {"a:b": {"input": -1}}}}, "'llm.prices.a:b.input': Input should be"),
        ({"python": {"pytest_args": ["-q", 3]}}, "'python.pytest_args.1': Input should be a valid"),
        ({"gates": "compile"}, "'gates': Input should be a valid list"),
        (
            {"mutation": {"timeout_s": 1, "timeout_base_s": 2}},
            "unknown setting 'mutation.timeout_b",
        ),
    ],
)
def test_a_value_that_does_not_fit_names_its_key(data, message):
    with pytest.raises(ConfigError, match="^assay.toml: .*" + message.replace(".", r"\.")):
        settings_from_dict(data, "assay.toml")


def test_numbers_are_read_as_before_and_an_old_key_still_works():
    settings = settings_from_dict(
        {
            "jobs": "2",
            "sandbox": {"timeout_s": 5, "memory_mb": 512.0},
            "mutation": {"timeout_base_s": 1},
        }
    )
    assert settings.jobs == 2 and settings.sandbox.memory_mb == 512
    assert isinstance(settings.sandbox.timeout_s, float) and settings.mutation.timeout_s == 1.0
    assert settings.mutation.thresholds == {"pure": 60.0, "service": 50.0, "io": 40.0}


def test_an_assignment_is_validated_and_counts_as_given():
    config = MutationConfig(workers=2)
    assert config.model_fields_set == {"workers"}
    with pytest.raises(Invalid, match="greater than or equal to 0"):
        config.sample = -1
    with pytest.raises(Invalid, match="no attribute"):
        config.samples = 3  # type: ignore[attr-defined]
    config.sample = 7
    copied = config.model_copy(update={"prove": 0})
    assert copied.model_fields_set == {"workers", "sample", "prove"}
    assert config.model_fields_set == {"workers", "sample"} and config.prove == 20


def test_defaults_are_not_shared_between_instances():
    first, second = ToolConfig(), ToolConfig()
    first.test_args.append("-q")
    assert second.test_args == [] and Settings().mutation.deselect == []
