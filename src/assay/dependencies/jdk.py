"""A JDK newer than the project's test dependencies: since JDK 16 the platform's packages are
closed to reflection from the class path, and an old library a test runs (mockito 1.10's cglib,
which defines its proxies through `ClassLoader.defineClass`) fails with
`InaccessibleObjectException` before the test asserts anything. semver4j's SemverTest was
`rejected` at gate 2, "Fix expected values or setup", for a test that passes on the JDKs the
project supports: the environment's gap, not the test's fault."""

from __future__ import annotations

import re

# `Unable to make protected final java.lang.Class java.lang.ClassLoader.defineClass(…)
# accessible: module java.base does not "opens java.lang" to unnamed module @6c4980d3` (JUnit's
# XML gives the exception's type apart from its message)
_CLOSED = re.compile(
    r"Unable to make .*? accessible: module ([\w.]+) does not \"opens ([\w.]+)\" to unnamed module",
    re.S,
)
# a class whose static initializer failed earlier in the same JVM: every later use says only this
LATER = re.compile(r"Could not initialize class ([\w.$]+)")
LABEL = "no reflective access to "


def closed_package(text: str) -> str | None:
    """`java.base/java.lang` where the JDK refused the reflection, else None."""
    found = _CLOSED.search(text)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def reason(opened: str) -> str:
    return (
        f"this JDK does not open {opened} to the tests' class path (JDK 16 and later), and a "
        "library the test runs reflects into it (InaccessibleObjectException): the project's test "
        "dependencies are older than this JDK; run on a JDK the project supports, or give the "
        f"tests' JVM `--add-opens {opened}=ALL-UNNAMED`"
    )
