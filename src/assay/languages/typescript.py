"""TypeScript: type-checked with the project's `tsc`, run with its vitest or jest (see `node.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from assay.execution.sandbox import Profile, Sandbox
from assay.languages.base import Language, Toolchain
from assay.languages.node import NodeRunner, node_module_dirs
from assay.languages.tooling import module_files, nearest

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

NODE_INSTALL = "install Node.js 20 or newer (https://nodejs.org, or apt install nodejs npm)"
NODE_PROFILE = Profile(name="node", memory="cgroup", max_processes=1024,
                       env={"CI": "1", "NO_COLOR": "1", "FORCE_COLOR": "0", "NODE_OPTIONS": "",
                            "npm_config_offline": "true", "npm_config_cache": "{cache}/npm"})


@lru_cache(maxsize=8)
def _profile(root: Path) -> Profile:
    return Profile(**{**NODE_PROFILE.__dict__, "links": node_module_dirs(root)})


@dataclass(frozen=True)
class NodeLanguage(Language):
    """A language run by Node: its runner and a profile that links the project's `node_modules` read-only."""

    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> NodeRunner:
        return NodeRunner(self.name, sandbox, project, settings, self.profile_for(project))

    def profile_for(self, project: Project) -> Profile:
        return _profile(project.root)

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        module = nearest(project.root, rel, ("package.json",)) or "."
        return module_files(project.root, module, (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx"),
                            ("package.json", "package-lock.json", "tsconfig.json", "vitest.config.ts",
                             "vitest.config.js", "jest.config.js", "jest.config.ts"))


TYPESCRIPT = NodeLanguage(
    name="typescript", title="TypeScript", extensions=(".ts", ".tsx", ".mts", ".cts"),
    build_files=("tsconfig.json", "package.json"),
    test_globs=("*.test.ts", "*.spec.ts", "*.test.tsx", "*.spec.tsx", "*.test.mts", "*.spec.mts"),
    toolchain=(Toolchain("node", NODE_INSTALL),), profile=NODE_PROFILE,
)
