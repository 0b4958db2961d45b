"""Settings from `[tool.assay]` in pyproject.toml or from assay.toml, validated by pydantic.

Unknown keys are errors: a typo in a gate setting must not silently fall back to a default.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from assay.errors import ConfigError
from assay.llm.config import LLMConfig
from assay.mutation.config import MutationConfig
from assay.section import Section
from assay.smells.config import SmellsConfig
from assay.writers.config import GenerateConfig, ReviewConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class SandboxConfig(Section):
    timeout_s: float = Field(60.0, gt=0, description="wall timeout of one test run")
    memory_mb: int = Field(4096, ge=64, description="address-space limit of each sandboxed process")
    max_processes: int = Field(256, ge=8, description="pids.max of the run's cgroup, where cgroups allow it")
    file_size_mb: int = Field(512, ge=1, description="largest file a test may write")
    network: bool = Field(False, description="allow network access (cut by default where possible)")


class StabilityConfig(Section):
    reruns: int = Field(3, ge=0, le=50)
    reruns_risky: int = Field(5, ge=0, le=50, description="reruns for integration/network/fs/subprocess tests")
    random_order: bool = True
    isolation: bool = True
    seed: int = 20260601


class PythonConfig(Section):
    interpreter: str | None = Field(None, description="python that runs the tests; default: assay's own")
    pytest_args: list[str] = Field(default_factory=list, description="extra arguments for every pytest run")


class ToolConfig(Section):
    """`[tool.assay.<language>]`: overrides of the commands assay runs for one language (docs/languages.md)."""

    runner: Annotated[Literal["maven", "gradle", "javac", "vitest", "jest", "node"] | None, Field(
        description="build tool or test runner to use; default: found from the project's build files")] = None
    compile_command: Annotated[list[str] | None, Field(
        description="argv run in the module's directory for gate 1 instead of the default (e.g. [\"gradle\", "
                    "\"-q\", \"--offline\", \"compileTestJava\"]); its errors are read the same way")] = None
    test_args: Annotated[list[str], Field(description="extra arguments for every test run")] = []


def _tool() -> ToolConfig:
    return ToolConfig()


class Settings(Section):
    gates: list[str] | None = Field(None, description="gates to run, in order; default: every available gate")
    cache: bool = True
    jobs: int = Field(0, ge=0, description="files verified at once; 0 = number of cores")
    scheduler: str | None = Field(None, description="Dask scheduler tcp://HOST:PORT: run on its workers")
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    stability: StabilityConfig = Field(default_factory=StabilityConfig)
    python: PythonConfig = Field(default_factory=PythonConfig)
    mutation: MutationConfig = Field(default_factory=MutationConfig)
    smells: SmellsConfig = Field(default_factory=SmellsConfig)
    review: ReviewConfig = Field(default_factory=ReviewConfig)
    generate: GenerateConfig = Field(default_factory=GenerateConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    # Compiled and JavaScript languages (docs/languages.md)
    compile_validation: Annotated[bool, Field(description="gate 1 runs the compiler; off: compiled languages "
                                                          "compile with the run at gate 2")] = True
    max_compile_retries: Annotated[int, Field(ge=0, le=10, description="repair attempts after a compile reject "
                                                                       "(the generate loop)")] = 3
    require_toolchain: Annotated[bool, Field(description="a missing toolchain is an error (exit 2), not "
                                                         "unvalidated")] = False
    java: ToolConfig = Field(default_factory=_tool)
    go: ToolConfig = Field(default_factory=_tool)
    rust: ToolConfig = Field(default_factory=_tool)
    typescript: ToolConfig = Field(default_factory=_tool)
    javascript: ToolConfig = Field(default_factory=_tool)
    csharp: ToolConfig = Field(default_factory=_tool)

    def fingerprint(self) -> str:
        """Hash of everything that can change a verdict (part of the cache key)."""
        return hashlib.sha256(json.dumps(self.model_dump(mode="json"), sort_keys=True).encode()).hexdigest()


def _describe(err: ValidationError, source: str) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "<root>"
    if first["type"] == "extra_forbidden":
        return f"{source}: unknown setting '{where}'"
    return f"{source}: bad value for '{where}': {first['msg']}"


def settings_from_dict(data: dict[str, Any], source: str = "config") -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_describe(err, source)) from None


def load_settings(root: Path, config_file: Path | None = None) -> Settings:
    """Read assay.toml (top-level keys) or pyproject's [tool.assay]; defaults when neither exists."""
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
            return settings_from_dict(data, f"{path.name} [tool.assay]")
        return settings_from_dict(data.get("tool", {}).get("assay", data), path.name)
    return Settings()


def apply_overrides(settings: Settings, overrides: dict[str, Any] | None) -> Settings:
    """Set dotted keys (`jobs`, `sandbox.timeout_s`, `mutation.workers`) on loaded settings, validated like the
    config file (a bad value is a ConfigError); None values are left alone."""
    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        *path, name = dotted.split(".")
        section: Any = settings
        for part in path:
            section = getattr(section, part)
        try:
            setattr(section, name, value)
        except ValidationError as err:
            raise ConfigError(_describe(err, "command line").replace(f"'{name}'", f"'{dotted}'")) from None
    return settings
