"""What assay reads from a Java project without running it: a file's class and test methods, and
the build tool and module that own it; shared by the runner and the language."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.languages.tooling import nearest

if TYPE_CHECKING:
    from assay.config import Settings

TEST_NAME = re.compile(r"(^Test\w*|\w+(Test|Tests|IT|TestCase))\.java$")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_TEST_METHOD = re.compile(
    r"@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b[^;{]*?\s(\w+)\s*\(", re.S
)


def class_name(source: str, rel: str) -> str:
    m = _PACKAGE.search(source)
    stem = PurePosixPath(rel).stem
    return f"{m.group(1)}.{stem}" if m else stem


def test_methods(source: str) -> list[str]:
    return list(dict.fromkeys(_TEST_METHOD.findall(source)))


def build_tool(project_root: Path, rel: str, settings: Settings) -> tuple[str, str]:
    """(maven | gradle | javac, the module directory) for a test file."""
    module = nearest(project_root, rel, ("pom.xml", "build.gradle", "build.gradle.kts"))
    chosen = settings.tool("java").runner
    if module is None:
        return chosen or "javac", "."
    if chosen:
        return chosen, module
    return ("maven" if (project_root / module / "pom.xml").exists() else "gradle"), module
