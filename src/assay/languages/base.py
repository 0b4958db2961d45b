"""What assay knows about one language: how to recognise its files, which toolchain it needs, how to
run its tests (a Runner), and what a test file tests. One subclass per language module, one line in
the registry."""

from __future__ import annotations

import fnmatch
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, ClassVar

from assay.execution.runner import Runner
from assay.sandbox import PYTHON, Profile, Sandbox

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project


@dataclass(frozen=True)
class Toolchain:
    """A command the language needs on PATH, and how a user gets it (said in the
    one-line `unvalidated`)."""

    command: str
    install: str


@dataclass(frozen=True)
class WritePlan:
    """Where `assay generate` puts a new test file for a source file of this language, and what
    the writer must be told to write one that builds: the test framework and how the test reaches
    the code."""

    # project-relative; never an existing file (the caller tries n = 1, 2, ... until one is free)
    path: str
    framework: str  # "JUnit 5 (org.junit.jupiter.api)", "vitest", ...
    # how the test file reaches the code under test (package clause, crate path, relative import)
    imports: str
    comment: str = "//"  # line comment, for the header of the written file


@dataclass(frozen=True)
class SmellsFacts:
    """What the tree-sitter smells rules (AP000-AP006, `smells/polyglot/`) need of a language's
    test files."""

    grammar: str  # "module:function" of its tree-sitter grammar wheel: "tree_sitter_java:language"
    calls: tuple[str, ...]  # syntax node types of a call: ("method_invocation",)
    # module in smells/polyglot/ with its test cases and assertion style (`FAMILY`): "java", "js"
    rules: str
    sleep: str  # regex of the callee of a fixed sleep (AP003)
    mocks: str  # regex of the callee that makes a mock (AP005)
    # (file suffix, grammar) where a suffix has its own: (".tsx", ...)
    variants: tuple[tuple[str, str], ...] = ()

    def grammar_for(self, path: str) -> str:
        return next((g for suffix, g in self.variants if path.endswith(suffix)), self.grammar)


@dataclass(frozen=True)
class Language:
    # so that a language module builds its facts from `Language`
    Smells: ClassVar[type[SmellsFacts]] = SmellsFacts

    name: str
    title: str  # as users write it: "Python", "Go"
    extensions: tuple[str, ...]  # of source and test files, with the dot
    # file names that mark a project of this language (pom.xml, go.mod ...)
    build_files: tuple[str, ...] = ()
    test_globs: tuple[str, ...] = ()  # fnmatch patterns on the project-relative path of test files
    toolchain: tuple[Toolchain, ...] = ()
    profile: Profile = PYTHON
    # statically compiled: `compile_validation = false` may leave gate 1 to the run
    compiled: bool = False
    # has a `[tool.assay.<name>]` section (config.ToolConfig); Python has its own
    tool_section: bool = True
    # code block tags taken as this language in a model's answer; the first is asked
    fences: tuple[str, ...] = ()
    # regex (multiline) of a test in a file: the block with tests wins over one without
    test_mark: str = ""
    smells: SmellsFacts | None = None  # None: gate 5 skips its files (no tree-sitter rules)
    # bundled example project (`examples/<name>`) that `assay demo --language` verifies
    example: str = ""
    example_tests: str = "."  # where in the example its tests are

    def owns(self, rel: str) -> bool:
        """Whether a file of this extension belongs to this language."""
        return PurePosixPath(rel).suffix in self.extensions

    def is_test_file(self, rel: str) -> bool:
        name = PurePosixPath(rel).name
        return self.owns(rel) and any(
            fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) for g in self.test_globs
        )

    def runner_spec(self, root: Path, path: Path) -> bool | None:
        """Whether the project's test runner takes `path` as a test file, where the name alone
        does not say (mocha's `test/*.js`): True, a directory's walk takes it too; False, the
        runner's own spec leaves it out, test name or not; None: the name rule decides."""
        return None

    def runs_alone(self, path: Path) -> bool:
        """Whether the runner runs the tests of this test file by itself (a directory's walk
        leaves out the others: Java's abstract base classes, whose tests run in subclasses)."""
        return True

    def toolchain_problem(self, settings: Settings) -> str | None:
        """One line naming the first missing command and how to get it, or None when all
        are there."""
        for tool in self.toolchain:
            if shutil.which(tool.command) is None:
                return f"`{tool.command}` not found on PATH: {tool.install}"
        return None

    def toolchain_id(self, settings: Settings) -> str:
        """What identifies the toolchain in cache keys: a verdict made with another compiler is
        not reused."""
        return ";".join([self.name, *(shutil.which(t.command) or "-" for t in self.toolchain)])

    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> Runner:
        raise NotImplementedError(f"no runner for {self.name} yet")

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        """Project-relative source files a test file tests (its imports of the project's
        own code)."""
        return []

    def spawning_tests(self, source: str) -> dict[str, str]:
        """Test function -> how it, or a function of its file it calls, starts another process
        (`calls exec.Command`): the project's code there runs out of gate 4's sight, so such a
        test that kills nothing gets a note, not `low_value`. None found by default."""
        return {}

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        """Project-relative files besides the test file whose change can change its verdict (the
        module's sources and build files), hashed into the cache key."""
        return []

    def profile_for(self, project: Project) -> Profile:
        """The sandbox profile for this project (a Node project links its own
        `node_modules` directories)."""
        return self.profile

    def plan_tests(self, root: Path, source_rel: str, n: int = 1) -> WritePlan | None:
        """The n-th choice of a test file for `source_rel` (a source file of this language) and the
        writer's facts; None when `assay generate` cannot write tests for this language."""
        return None
