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
# the annotation, then other annotations whose arguments may hold braces (`@CsvSource({"1, 2"})`,
# `@ParameterizedTest(name = "{0}")`), then the method's name
_TEST_METHOD = re.compile(
    r"@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b"
    r"(?:\([^()]*(?:\([^()]*\)[^()]*)*\)|[^;{(])*?\s(\w+)\s*\(",
    re.S,
)


def class_name(source: str, rel: str) -> str:
    m = _PACKAGE.search(source)
    stem = PurePosixPath(rel).stem
    return f"{m.group(1)}.{stem}" if m else stem


def test_methods(source: str) -> list[str]:
    return list(dict.fromkeys(_TEST_METHOD.findall(source)))


# `class LuhnCheckDigitTest extends AbstractCheckDigitTest {`, type parameters allowed
_EXTENDS = re.compile(r"\bclass\s+\w+\s*(?:<[^{]*?>)?\s*extends\s+([\w.]+)")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_MOST_BASES = 10


def run_test_methods(root: Path, rel: str, source: str) -> list[str]:
    """The test methods JUnit runs in the class of `source`: its own, and those it inherits from
    the project's classes it extends, transitively. commons-validator's LuhnCheckDigitTest
    declares only a `@BeforeEach`; its seven tests are AbstractCheckDigitTest's, and the file was
    rejected at gate 1, "no tests collected"."""
    found = test_methods(source)
    seen = {rel}
    while len(seen) <= _MOST_BASES and (m := _EXTENDS.search(_COMMENT.sub("", source))):
        base = _class_file(root, rel, source, m.group(1))
        if base is None or base in seen:
            break
        seen.add(base)
        rel, source = base, (root / base).read_text(encoding="utf-8", errors="replace")
        found += test_methods(source)
    return list(dict.fromkeys(found))


def _class_file(root: Path, rel: str, source: str, name: str) -> str | None:
    """The project file of the class `name` as `source` (at `rel`) refers to it: qualified,
    imported, or of its own package, under the same source root."""
    package = m.group(1) if (m := _PACKAGE.search(source)) else ""
    here = PurePosixPath(rel).parent
    top = here
    for _ in package.split(".") if package else ():
        top = top.parent
    simple = name.rsplit(".", 1)[-1]
    imported = [i for i in _IMPORT.findall(source) if i.rsplit(".", 1)[-1] == simple]
    fqn = name if "." in name else (imported[0] if imported else "")
    path = top.joinpath(*fqn.split(".")) if fqn else here / simple
    candidate = path.with_suffix(".java").as_posix()
    return candidate if (root / candidate).is_file() else None


def build_tool(project_root: Path, rel: str, settings: Settings) -> tuple[str, str]:
    """(maven | gradle | javac, the module directory) for a test file."""
    module = nearest(project_root, rel, ("pom.xml", "build.gradle", "build.gradle.kts"))
    chosen = settings.tool("java").runner
    if module is None:
        return chosen or "javac", "."
    if chosen:
        return chosen, module
    return ("maven" if (project_root / module / "pom.xml").exists() else "gradle"), module


_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*;", re.M)
_CLASS_WORD = re.compile(r"\b[A-Z]\w*\b")


def sources_under_test(project_root: Path, source: str, rel: str) -> list[str]:
    """The module's main classes a test file names: imported (`import a.b.C;`, `import static
    a.b.C.m;`) or used unqualified from its own package; the files gate 4 mutates."""
    module = nearest(project_root, rel, ("pom.xml", "build.gradle", "build.gradle.kts")) or "."
    main = PurePosixPath(module, "src/main/java")
    if not (project_root / main).is_dir():
        main = PurePosixPath(module)
    package = m.group(1) if (m := _PACKAGE.search(source)) else ""
    names = list(_IMPORT.findall(source))
    names += [f"{package}.{w}" if package else w for w in _CLASS_WORD.findall(source)]
    out: list[str] = []
    for fqn in dict.fromkeys(names):
        parts = fqn.split(".")
        # `import static a.b.C.m;` names a member: its class is one part up
        for cut in (len(parts), len(parts) - 1):
            path = main.joinpath(*parts[:cut]).with_suffix(".java") if cut else None
            if path is None or path.as_posix() == rel or TEST_NAME.search(path.name):
                continue
            if (project_root / path).is_file():
                out.append(path.as_posix())
                break
    return list(dict.fromkeys(out))
