"""Choosing the sandbox's backend: bwrap where it runs, the built-in view otherwise, named either
way; the environment variable over the config; a bad name is a config error (one line, exit 2)."""

from __future__ import annotations

import pytest

from assay.errors import ConfigError
from assay.sandbox import bwrap


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A PATH without bwrap, and the probe asked again (it is cached per process)."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(bwrap.ENV_VAR, raising=False)
    bwrap.usable.cache_clear()
    yield
    bwrap.usable.cache_clear()


def test_bwrap_asked_for_where_it_is_missing_runs_built_in_and_says_why(no_bwrap):
    asked = bwrap.choose("bwrap")
    assert asked == bwrap.Backend("builtin", "bwrap is not installed")
    assert bwrap.label(asked) == "built-in (bwrap asked for, but bwrap is not installed)"
    assert bwrap.label(bwrap.choose("auto")) == "built-in"  # auto: nothing to explain


def test_the_environment_variable_wins_and_a_bad_name_is_a_config_error(no_bwrap, monkeypatch):
    monkeypatch.setenv(bwrap.ENV_VAR, "builtin")
    assert bwrap.choose("bwrap") == bwrap.Backend("builtin")
    monkeypatch.setenv(bwrap.ENV_VAR, "docker")
    with pytest.raises(ConfigError, match="expected auto, builtin or bwrap"):
        bwrap.choose("auto")
