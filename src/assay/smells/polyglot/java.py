"""Java test files (JUnit 5, JUnit 4, TestNG): test methods by annotation, `@Disabled` skips,
Mockito fields."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from assay.smells.polyglot.syntax import Case, Family, text

JAVA_TESTS = {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"}


def _annotations(modifiers: Any) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for a in modifiers.named_children if modifiers is not None else []:
        if a.type in ("marker_annotation", "annotation"):
            name = text(a.child_by_field_name("name")).split(".")[-1]
            args = a.child_by_field_name("arguments")
            found[name] = [text(x) for x in args.named_children] if args is not None else []
    return found


def _java(node: Any, outer: list[str]) -> list[Case]:
    out = []
    for child in node.named_children:
        if child.type == "class_declaration":
            name = text(child.child_by_field_name("name"))
            body = child.child_by_field_name("body")
            out += _java(body, [*outer, name]) if body is not None else []
        elif child.type == "method_declaration":
            modifiers = next((c for c in child.named_children if c.type == "modifiers"), None)
            notes = _annotations(modifiers)
            if not JAVA_TESTS & set(notes):
                continue
            skip = None
            if "Disabled" in notes:
                skip = notes["Disabled"][0].strip('"') if notes["Disabled"] else ""
            name = ".".join([*outer[1:], text(child.child_by_field_name("name"))])
            out.append(
                Case(
                    name,
                    child.start_point[0] + 1,
                    child.start_point[1] + 1,
                    child.child_by_field_name("body"),
                    skip,
                    set(notes),
                )
            )
        elif child.type in ("program", "class_body"):
            out += _java(child, outer)
    return out


def _file_mocks(source: str) -> int:
    """`@Mock`/`@Spy`/`@MockBean` fields: mocks made for every test of the file."""
    return len(re.findall(r"@(Mock|Spy|MockBean|SpyBean)\b", source))


def _modules(root: Any, path: str) -> list[str]:
    """Files of the classes a test may assert through: the classes it imports and the
    superclasses of its classes (same package), under the file's source root
    (`FileStringLookupTest.testFence(...)`, a helper inherited from `AbstractEncoderTest`)."""
    package = next((c for c in root.named_children if c.type == "package_declaration"), None)
    pkg = text(package.named_children[0]).replace(".", "/") if package is not None else ""
    here = PurePosixPath(path).parent
    if pkg and not str(here).endswith(pkg):
        return []
    base = PurePosixPath(str(here)[: len(str(here)) - len(pkg)] or ".")
    names: list[str] = []
    for child in root.named_children:
        if child.type == "import_declaration" and "*" not in text(child):
            dotted = re.sub(r"^import\s+(static\s+)?|;$", "", text(child).strip()).split(".")
            static = re.match(r"import\s+static\b", text(child)) is not None
            names.append("/".join(dotted[:-1] if static else dotted))
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type == "superclass":
            simple = re.sub(r"<.*", "", text(node).removeprefix("extends").strip())
            names.append(f"{pkg}/{simple}" if "." not in simple else simple.replace(".", "/"))
    return [str(base / f"{n.strip('/')}.java") for n in dict.fromkeys(names)]


FAMILY = Family(
    cases=lambda root, path: _java(root, []),
    file_mocks=_file_mocks,
    own_equality=True,
    modules=_modules,
)
