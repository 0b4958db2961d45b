"""Settings from `[tool.assay]` in pyproject.toml or from assay.toml, validated by
`assay.section`.

Unknown keys are errors: a typo in a gate setting must not silently fall back to a default. The base
of the layers: one module per section here, importing nothing from the services that read them;
names that services define (languages, rules, operators) are checked against `assay.config.names`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from assay.config import names
from assay.config.generate import GenerateConfig, ReviewConfig
from assay.config.llm import LLMConfig, Price
from assay.config.mutation import CodeClass, MutationConfig
from assay.config.run import PythonConfig, SandboxConfig, StabilityConfig, ToolConfig
from assay.config.smells import SmellsConfig
from assay.errors import ConfigError
from assay.section import Invalid, Section, setting

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "CodeClass",
    "GenerateConfig",
    "LLMConfig",
    "MutationConfig",
    "Price",
    "PythonConfig",
    "ReviewConfig",
    "SandboxConfig",
    "Settings",
    "SmellsConfig",
    "StabilityConfig",
    "ToolConfig",
    "apply_overrides",
    "load_settings",
    "settings_from_dict",
    "tomllib",
]

# the alias of `Settings.tools`: no TOML key can reach it by that name by accident
TOOLS = "<tool sections>"


class Settings(Section):
    gates: list[str] | None = setting(
        default=None, description="gates to run, in order; default: every available gate"
    )
    cache: bool = True
    jobs: int = setting(default=0, ge=0, description="files verified at once; 0 = number of cores")
    scheduler: str | None = setting(
        default=None, description="Dask scheduler tcp://HOST:PORT: run on its workers"
    )
    sandbox: SandboxConfig = setting(factory=SandboxConfig)
    stability: StabilityConfig = setting(factory=StabilityConfig)
    python: PythonConfig = setting(factory=PythonConfig)
    mutation: MutationConfig = setting(factory=MutationConfig)
    smells: SmellsConfig = setting(factory=SmellsConfig)
    review: ReviewConfig = setting(factory=ReviewConfig)
    generate: GenerateConfig = setting(factory=GenerateConfig)
    llm: LLMConfig = setting(factory=LLMConfig)
    # Compiled and JavaScript languages (docs/languages.md)
    compile_validation: bool = setting(
        default=True,
        description="gate 1 runs the compiler; off: compiled languages "
        "compile with the run at gate 2",
    )
    max_compile_retries: int = setting(
        default=3,
        ge=0,
        le=10,
        description="repair attempts after a compile reject (the generate loop)",
    )
    require_toolchain: bool = setting(
        default=False, description="a missing toolchain is an error (exit 2), not unvalidated"
    )
    offline: bool = setting(
        default=False,
        description="no prepare step: dependencies are not fetched before candidates run "
        "(docs/languages.md#the-prepare-step)",
    )
    # `[tool.assay.java]`, `[tool.assay.go]` ...: one per language whose `Language.tool_section`
    # is set
    tools: dict[str, ToolConfig] = setting(default={}, key=TOOLS)

    @classmethod
    def arranged(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Top-level keys named after a registered language with a tool section are
        its `ToolConfig`."""
        sections = set(names.known(names.TOOL_SECTION) or ()) & set(data)
        if not sections:
            return data
        rest = {k: v for k, v in data.items() if k not in sections}
        rest[TOOLS] = {**rest.get(TOOLS, {}), **{k: data[k] for k in sections}}
        return rest

    def tool(self, language: str) -> ToolConfig:
        """The `[tool.assay.<language>]` section (its defaults when the config has none)."""
        return self.tools.get(language) or ToolConfig()

    def plain(self) -> dict[str, Any]:
        """JSON-ready data that `settings_from_dict` turns back into these settings (on a
        Dask worker)."""
        return self.model_dump(mode="json", by_alias=True)

    def fingerprint(self) -> str:
        """Hash of everything that can change a verdict (part of the cache key)."""
        return hashlib.sha256(
            json.dumps(self.model_dump(mode="json"), sort_keys=True).encode()
        ).hexdigest()


def _where(loc: tuple[int | str, ...]) -> str:
    """An error's location as the user wrote it (a tool section sits at the top level)."""
    parts = [str(p) for p in loc]
    if parts[:1] == [TOOLS]:
        parts = parts[1:]
    return ".".join(parts) or "<root>"


def _home(key: str) -> str:
    """Where a top-level key that is a setting of one table belongs (`interpreter` written under
    `[tool.assay]`, as a new user did: it is `[tool.assay.python]`'s)."""
    tables = [
        name
        for name, hint in Settings.hints().items()
        if "." not in key
        and isinstance(hint, type)
        and issubclass(hint, Section)
        and key in hint.model_fields
    ]
    if len(tables) != 1:
        return ""
    table = tables[0]
    return (
        f": it belongs in the `{table}` table (`[tool.assay.{table}]` in pyproject.toml, "
        f"`[{table}]` in assay.toml)"
    )


def _describe(err: Invalid, source: str) -> str:
    where = _where(err.loc)
    if err.unknown:
        return f"{source}: unknown setting '{where}'{_home(where)}"
    return f"{source}: bad value for '{where}': {err.message}"


def settings_from_dict(data: dict[str, Any], source: str = "config") -> Settings:
    try:
        return Settings.model_validate(data)
    except Invalid as err:
        raise ConfigError(_describe(err, source)) from None


def load_settings(root: Path, config_file: Path | None = None) -> Settings:
    """Read assay.toml (top-level keys) or pyproject's [tool.assay]; defaults when
    neither exists."""
    candidates = [config_file] if config_file else [root / "assay.toml", root / "pyproject.toml"]
    for path in candidates:
        if path is None or not path.is_file():
            if config_file is not None:
                raise ConfigError(f"config file not found: {config_file}")
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigError(f"{path.name}: not valid TOML: {err}") from None
        if path.name == "pyproject.toml":
            data = data.get("tool", {}).get("assay")
            if data is None:
                continue
            return _anchored(settings_from_dict(data, f"{path.name} [tool.assay]"), path.parent)
        found = settings_from_dict(data.get("tool", {}).get("assay", data), path.name)
        return _anchored(found, path.parent)
    return Settings()


def _anchored(settings: Settings, base: Path) -> Settings:
    """A relative path in a config file is relative to that file, not to where a run happens (tests
    run in a scratch copy, which has no `.venv/`). Not resolved: a venv's python is a symlink, and
    following it would leave the venv."""
    interpreter = settings.python.interpreter
    if interpreter and "/" in interpreter and not Path(interpreter).is_absolute():
        settings.python.interpreter = os.path.normpath(base.absolute() / interpreter)
    return settings


def _field(settings: Settings, dotted: str) -> tuple[Section, str]:
    """The section holding the field a dotted key names, and the field's name; a ConfigError when
    the key names no field (a typo must not reach an AttributeError)."""
    *path, name = dotted.split(".")
    section: Section = settings
    for part in path:
        if section is settings and part in (names.known(names.TOOL_SECTION) or ()):
            section = settings.tools.setdefault(part, ToolConfig())
            continue
        child = getattr(section, part) if part in type(section).model_fields else None
        if not isinstance(child, Section):
            raise ConfigError(f"command line: unknown setting '{dotted}'")
        section = child
    if name not in type(section).model_fields or isinstance(getattr(section, name), Section):
        raise ConfigError(f"command line: unknown setting '{dotted}'")
    return section, name


def apply_overrides(settings: Settings, overrides: dict[str, Any] | None) -> Settings:
    """Set dotted keys (`jobs`, `sandbox.timeout_s`, `mutation.workers`, `java.runner`) on loaded
    settings, each a field of a section, validated like the config file (an unknown key or a bad
    value is a ConfigError); None values are left alone."""
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        section, name = _field(settings, dotted)
        try:
            setattr(section, name, value)
        except Invalid as err:
            raise ConfigError(
                _describe(err, "command line").replace(f"'{name}'", f"'{dotted}'")
            ) from None
    return settings
