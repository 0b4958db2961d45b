"""How tests run: `[tool.assay.sandbox]`, `[tool.assay.stability]`, `[tool.assay.python]`, and the
per-language tool sections (`[tool.assay.java]` ...)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from assay.section import Section


class SandboxConfig(Section):
    timeout_s: float = Field(60.0, gt=0, description="wall timeout of one test run")
    memory_mb: int = Field(4096, ge=64, description="address-space limit of each sandboxed process")
    max_processes: int = Field(
        256, ge=8, description="pids.max of the run's cgroup, where cgroups allow it"
    )
    file_size_mb: int = Field(512, ge=1, description="largest file a test may write")
    network: bool = Field(False, description="allow network access (cut by default where possible)")
    backend: Literal["auto", "builtin", "bwrap"] = Field(
        "auto",
        description="who builds the test's view: bubblewrap where `bwrap` is present and works "
        "(auto, bwrap), else the built-in profile; ASSAY_SANDBOX_BACKEND overrides",
    )
    env: list[str] = Field(
        default_factory=list,
        description="variables (names or fnmatch patterns) passed to tests besides PATH, LANG, "
        "LC_*, TZ and the toolchain's own; credential-shaped values are withheld all the same",
    )


class StabilityConfig(Section):
    reruns: int = Field(3, ge=0, le=50)
    reruns_risky: int = Field(
        5, ge=0, le=50, description="reruns for integration/network/fs/subprocess tests"
    )
    budget_s: float = Field(
        0.5,
        ge=0,
        description="fast files get more reruns: as many as fit in this many seconds (at most 50)",
    )
    random_order: bool = True
    isolation: bool = True
    seed: int = 20260601


class PythonConfig(Section):
    interpreter: str | None = Field(
        None, description="python that runs the tests; default: assay's own"
    )
    pytest_args: list[str] = Field(
        default_factory=list, description="extra arguments for every pytest run"
    )


class ToolConfig(Section):
    """`[tool.assay.<language>]`: overrides of the commands assay runs for one
    language (docs/languages.md)."""

    runner: Annotated[
        Literal["maven", "gradle", "javac", "vitest", "jest", "mocha", "node"] | None,
        Field(
            description="build tool or test runner to use; "
            "default: found from the project's build files"
        ),
    ] = None
    compile_command: Annotated[
        list[str] | None,
        Field(
            description="argv run in the module's directory for "
            'gate 1 instead of the default (e.g. ["gradle", '
            '"-q", "--offline", "compileTestJava"]); its errors are read the same way'
        ),
    ] = None
    test_args: Annotated[list[str], Field(description="extra arguments for every test run")] = []
