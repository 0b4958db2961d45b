"""Java's warm build (`languages.warm`): the module's main classes, test resources and test class
path, built by Maven once per change of the module's files, outside the sandbox on a pristine
copy. A workspace starts from a copy of the classes, so gate 1 compiles the candidate alone with
javac (a second) instead of starting Maven (10-20 s), and the runs use the JUnit launcher on the
same class path."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from assay.execution.workspace import Workspace
from assay.languages.tooling import module_files
from assay.languages.warm import location, refresh, seed, state_of

CLASSES = ("target/test-classes", "target/classes")  # Maven's, first the one javac writes to
CLASSPATH = "classpath.txt"


@functools.lru_cache(maxsize=1)
def jdk_version() -> str:
    """The JDK's identity: where javac really is and when it was installed (a warm build made with
    one javac is no use to another). Not `javac -version`: a JVM start per assay run."""
    found = shutil.which("javac")
    if found is None:
        return "javac ?"
    real = os.path.realpath(found)
    try:
        return f"{real} {os.stat(real).st_mtime_ns}"
    except OSError:
        return real


def warm_classpath(
    project_root: Path, module: str, ws: Workspace, env: dict[str, str], timeout_s: float
) -> list[str] | None:
    """Seed the workspace's `target/` with the module's warm classes; the test class path (the
    workspace's class directories, then the dependencies' jars), or None when there is no warm
    build (Maven could not build the pristine module offline) or the workspace built already."""
    target = ws.path(module) / "target"
    if os.path.lexists(target):
        return None
    warm = location("maven", project_root, module, jdk_version())
    files = module_files(project_root, module, ("",), ("pom.xml",))
    state = state_of(project_root, files)
    if not refresh(warm, state, lambda d: _build(project_root, module, d, env, timeout_s)):
        return None
    if not seed(warm, "target", target):
        return None
    try:
        deps = (warm / CLASSPATH).read_text(encoding="utf-8").strip().split(os.pathsep)
    except OSError:
        return None
    return [str(ws.path(module) / c) for c in CLASSES] + [d for d in deps if d]


def _build(
    project_root: Path, module: str, warm: Path, env: dict[str, str], timeout: float
) -> bool:
    """Maven on a pristine copy, offline (the prepare step fetched what it needs): the class path,
    the main classes and the test resources (`process-test-resources`). The project's test files
    are not compiled here, outside the sandbox (one may be a candidate): javac compiles the helpers
    a candidate uses from source, in the sandbox."""
    shutil.rmtree(warm / "target", ignore_errors=True)
    (warm / CLASSPATH).unlink(missing_ok=True)
    base = ["mvn", "-B", "-o", "-q", "-Dstyle.color=never"]
    classpath = [
        "dependency:build-classpath",
        f"-Dmdep.outputFile={warm / CLASSPATH}",
        "-Dmdep.includeScope=test",
    ]
    with Workspace(project_root) as pristine:
        cwd = pristine.path(module)
        try:
            ran = subprocess.run(
                [*base, *classpath, "process-test-resources"],
                cwd=cwd,
                env={**env, "HOME": str(pristine.run_dir)},
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=max(timeout, 600),
            )
        except (OSError, subprocess.SubprocessError):
            return False
        if ran.returncode != 0:
            return False
        (warm / "target").mkdir()
        for rel in CLASSES:
            if (cwd / rel).is_dir():
                shutil.copytree(cwd / rel, warm / rel, symlinks=True)
    return (warm / CLASSPATH).is_file() and (warm / "target/classes").is_dir()
