"""Settings overrides: each command-line flag maps to a typed settings field, and a key that names
no field is a ConfigError (one line, exit 2), never an AttributeError."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from assay import api
from assay.config import Settings, apply_overrides
from assay.errors import ConfigError
from tests.conftest import REPO, run_cli


def _cli_override_keys() -> list[tuple[str, str]]:
    """(cli module, dotted key) of every `overrides` dict the CLI hands to the library."""
    found = []
    for path in sorted((REPO / "src" / "assay" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            keyword = isinstance(node, ast.keyword) and node.arg == "overrides"
            assign = isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "overrides" for t in node.targets
            )
            value = node.value if keyword or assign else None  # type: ignore[attr-defined]
            if isinstance(value, ast.Dict):
                found += [(path.name, k.value) for k in value.keys if isinstance(k, ast.Constant)]
    return found


def test_every_command_line_flag_maps_to_a_settings_field():
    keys = _cli_override_keys()
    assert {m for m, _ in keys} >= {"generate.py", "mutate.py", "smells.py", "verify.py"}
    for _, key in keys:
        section = Settings()
        *path, name = key.split(".")
        for part in path:
            section = getattr(section, part)
        assert name in type(section).model_fields, key


@pytest.mark.parametrize(
    "key", ["sandbox.timeout", "jobs.workers", "sandbox", "nope.timeout_s", "mutation"]
)
def test_an_override_that_names_no_field_is_a_config_error(key):
    with pytest.raises(ConfigError, match=f"^command line: unknown setting '{key}'$"):
        apply_overrides(Settings(), {key: 1})


def test_an_override_of_a_tool_section_sets_that_languages_section():
    settings = apply_overrides(Settings(), {"java.runner": "gradle", "sandbox.timeout_s": 9})
    assert settings.tool("java").runner == "gradle" and settings.sandbox.timeout_s == 9
    with pytest.raises(ConfigError, match="bad value for 'java.runner'"):
        apply_overrides(Settings(), {"java.runner": "ant"})


def test_the_library_refuses_a_mistyped_override(project):
    root = project({"tests/test_a.py": "def test_a():\n    assert 1 + 1 == 2\n"})
    with pytest.raises(ConfigError, match="unknown setting 'sandbox.timeout'"):
        api.verify([root / "tests"], root=root, overrides={"sandbox.timeout": 5})


def test_the_cli_says_a_bad_flag_value_in_one_line(project):
    root = project({"tests/test_a.py": "def test_a():\n    assert 1 + 1 == 2\n"})
    proc = run_cli("verify", str(Path(root) / "tests"), "--timeout", "-1", cwd=root)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "assay: error: command line: bad value for 'sandbox.timeout_s': "
        "Input should be greater than 0"
    ]
    assert "Traceback" not in proc.stderr


def test_settings_travel_to_a_worker_and_back_with_their_tool_sections():
    import assay.languages  # noqa: F401  (registers the languages' tool sections)
    from assay.config import settings_from_dict

    settings = settings_from_dict(
        {"jobs": 3, "java": {"test_args": ["-Dx=1"]}, "sandbox": {"timeout_s": 7}}
    )
    again = settings_from_dict(settings.plain(), "the parent's settings")
    assert again == settings
    assert again.tool("java").test_args == ["-Dx=1"]
