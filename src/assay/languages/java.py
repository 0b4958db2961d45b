"""Java: gate 1 compiles with the project's build (Maven, Gradle) or `javac`, gates 2 and 3 run
the JUnit console launcher (see `java_runner.py`). Here: its files, where tests go, its sandbox."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.languages.base import Language, Toolchain, WritePlan
from assay.languages.java_runner import JavaRunner
from assay.languages.java_sources import _PACKAGE, build_tool, sources_under_test
from assay.languages.tooling import module_files
from assay.sandbox import Profile, Sandbox

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project


# the file's top-level class is abstract (no indentation: a nested abstract class is not it)
_ABSTRACT = re.compile(r"^(?:public\s+)?abstract\s+(?:\w+\s+)*class\s", re.M)


@dataclass(frozen=True)
class JavaLanguage(Language):
    def runner(self, sandbox: Sandbox, project: Project, settings: Settings) -> JavaRunner:
        return JavaRunner(sandbox, project, settings, self.profile)

    def is_test_file(self, rel: str) -> bool:
        """A test class by name, outside the main sources (`src/main/java/.../TestData.java` is
        not one)."""
        return super().is_test_file(rel) and "main" not in PurePosixPath(rel).parts[:-1]

    def runs_alone(self, path: Path) -> bool:
        """An abstract class is a base of test classes (ulid-creator's UlidFactoryTest): Maven's
        surefire runs its tests in the subclasses, never the class itself."""
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return True
        return _ABSTRACT.search(text) is None

    def targets_of(self, project: Project, source: str, rel: str) -> list[str]:
        return sources_under_test(project.root, source, rel)

    def cache_inputs(self, project: Project, rel: str) -> list[str]:
        _, module = build_tool(project.root, rel, _defaults())
        files = module_files(
            project.root, module, (".java",), ("pom.xml", "build.gradle", "build.gradle.kts")
        )
        return files + ["pom.xml", "settings.gradle", "settings.gradle.kts"]

    def plan_tests(self, root: Path, source_rel: str, n: int = 1) -> WritePlan:
        """`<Class>AssayTest` in the same package, under `src/test/java` mirroring `src/main/java`
        (Maven and Gradle), else beside the source (a plain javac tree): package-private members
        stay visible."""
        src = PurePosixPath(source_rel)
        text = (root / source_rel).read_text(encoding="utf-8", errors="replace")
        pkg = m.group(1) if (m := _PACKAGE.search(text)) else ""
        parts = src.parts
        at = next(
            (i for i in range(len(parts) - 2) if parts[i : i + 3] == ("src", "main", "java")), None
        )
        base = (
            PurePosixPath(*parts[:at], "src", "test", "java", *parts[at + 3 : -1])
            if at is not None
            else src.parent
        )
        cls = f"{src.stem}Assay{'' if n == 1 else n}Test"
        _, module = build_tool(root, source_rel, _defaults())
        build = "".join(
            (root / module / b).read_text(encoding="utf-8", errors="replace")
            for b in ("pom.xml", "build.gradle", "build.gradle.kts")
            if (root / module / b).is_file()
        )
        extras = [
            name
            for key, name in (
                ("assertj", "AssertJ"),
                ("hamcrest", "Hamcrest"),
                ("mockito", "Mockito"),
            )
            if key in build
        ]
        return WritePlan(
            (base / f"{cls}.java").as_posix(),
            "JUnit 5 (org.junit.jupiter.api: @Test, "
            "Assertions.assertEquals/assertThrows; @ParameterizedTest "
            "where it fits)"
            + (f"; also on the test class path: {', '.join(extras)}" if extras else ""),
            f"the class is `{cls}` in `package {pkg};` (the "
            f"package of {src.stem}: no import of it needed, "
            "package-private members are visible)"
            if pkg
            else f"the class is `{cls}` in the default package",
        )


def _defaults() -> Settings:
    from assay.config import Settings

    return Settings()


JAVA = JavaLanguage(
    name="java",
    title="Java",
    extensions=(".java",),
    build_files=("pom.xml", "build.gradle", "build.gradle.kts"),
    test_globs=("*Test.java", "*Tests.java", "Test*.java", "*IT.java"),
    compiled=True,
    toolchain=(
        Toolchain(
            "java",
            "install a JDK 17 or newer (https://adoptium.net, or apt install "
            "openjdk-17-jdk-headless)",
        ),
        Toolchain("javac", "install a JDK, not only a JRE (apt install openjdk-17-jdk-headless)"),
    ),
    profile=Profile(
        name="java",
        passes=("JAVA_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME"),
        memory="cgroup",
        max_processes=1024,
        keep=("target", "build"),
        env={
            "MAVEN_OPTS": "-Dmaven.repo.local={user_home}/.m2/repository -Xshare:auto "
            "-XX:TieredStopAtLevel=1",
            "GRADLE_USER_HOME": "{user_home}/.gradle",
        },
    ),
    fences=("java",),
    test_mark=r"@Test\b",
    example="java",
    smells=Language.Smells(
        "tree_sitter_java:language",
        ("method_invocation",),
        "java",
        sleep=r"^(Thread\.sleep|TimeUnit\.\w+\.sleep|SECONDS\.sleep|MILLISECONDS\.sleep)$",
        mocks=r"^(Mockito\.)?(mock|spy|mockStatic|mockConstruction)$",
    ),
)
