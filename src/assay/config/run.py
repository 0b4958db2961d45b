"""How tests run: `[tool.assay.sandbox]`, `[tool.assay.stability]`, `[tool.assay.python]`, and the
per-language tool sections (`[tool.assay.java]` ...)."""

from __future__ import annotations

from typing import Literal

from assay.section import Section, setting


class SandboxConfig(Section):
    timeout_s: float = setting(default=60.0, gt=0, description="wall timeout of one test run")
    memory_mb: int = setting(
        default=4096, ge=64, description="address-space limit of each sandboxed process"
    )
    max_processes: int = setting(
        default=256, ge=8, description="pids.max of the run's cgroup, where cgroups allow it"
    )
    file_size_mb: int = setting(default=512, ge=1, description="largest file a test may write")
    network: bool = setting(
        default=False, description="allow network access (cut by default where possible)"
    )
    backend: Literal["auto", "builtin", "bwrap"] = setting(
        default="auto",
        description="who builds the test's view: bubblewrap where `bwrap` is present and works "
        "(auto, bwrap), else the built-in profile; ASSAY_SANDBOX_BACKEND overrides",
    )
    env: list[str] = setting(
        default=[],
        description="variables (names or fnmatch patterns) passed to tests besides PATH, LANG, "
        "LC_*, TZ and the toolchain's own; credential-shaped values are withheld all the same",
    )


class StabilityConfig(Section):
    reruns: int = setting(default=3, ge=0, le=50)
    reruns_risky: int = setting(
        default=5, ge=0, le=50, description="reruns for integration/network/fs/subprocess tests"
    )
    budget_s: float = setting(
        default=0.5,
        ge=0,
        description="fast files get more reruns: as many as fit in this many seconds (at most 50)",
    )
    random_order: bool = True
    isolation: bool = True
    seed: int = 20260601


class PythonConfig(Section):
    interpreter: str | None = setting(
        default=None, description="python that runs the tests; default: assay's own"
    )
    pytest_args: list[str] = setting(default=[], description="extra arguments for every pytest run")


class ToolConfig(Section):
    """`[tool.assay.<language>]`: overrides of the commands assay runs for one
    language (docs/languages.md)."""

    runner: Literal["maven", "gradle", "javac", "vitest", "jest", "mocha", "node"] | None = setting(
        default=None,
        description="build tool or test runner to use; "
        "default: found from the project's build files",
    )
    compile_command: list[str] | None = setting(
        default=None,
        description="argv run in the module's directory for gate 1 instead of the default (e.g. "
        '["gradle", "-q", "--offline", "compileTestJava"]); its errors are read the same way',
    )
    test_args: list[str] = setting(default=[], description="extra arguments for every test run")
