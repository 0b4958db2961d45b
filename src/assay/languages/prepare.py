"""The prepare step: before any candidate runs, the project's dependencies and build plugins are
resolved with the network, by the user's own build tool, from the user's own build files, in a
scratch copy of the pristine project (no candidate code present). Candidates then run offline in the
sandbox, so a missing artifact can never look like the test's fault.

It is trusted work (the user's build, as they would run it), so it runs outside the sandbox, with
the real caches (`~/.m2`, `~/.cargo/registry`, the Go module cache) writable. Done once per hash of
the build and lock files (a marker in assay's cache); `--offline` forbids it. A failure names the
missing artifact in one line; the files of that language are then `unvalidated`, never cached.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.execution.workspace import SKIP_DIRS, Workspace
from assay.languages import maven_tools
from assay.sandbox import assay_cache


@dataclass(frozen=True)
class Step:
    """How one build tool fetches what the project needs."""

    language: str
    build_file: str  # the file that marks a module this step prepares
    inputs: tuple[str, ...]  # files whose content decides whether to run again (with build_file)
    argv: tuple[str, ...]
    # when `argv` cannot fetch everything the build declares: only what the sandboxed runs use
    narrow: tuple[str, ...] = ()


STEPS = (
    Step(
        "java",
        "pom.xml",
        (),
        (
            "mvn",
            "-B",
            "-q",
            "-Dstyle.color=never",
            "dependency:resolve-plugins",
            "dependency:go-offline",
            "dependency:build-classpath",  # its JUnit platform: gate 4's launcher (maven_tools)
            "process-test-classes",  # as far as gate 4's PIT run goes
        ),
        # go-offline also resolves the plugins of later phases and reports (a parent pom's
        # spotbugs, javancss): one of them missing must not stop a project whose tests build
        (
            "mvn",
            "-B",
            "-q",
            "-Dstyle.color=never",
            "dependency:build-classpath",
            "process-test-classes",
        ),
    ),
    Step(
        "java",
        "build.gradle",
        ("settings.gradle", "gradle.lockfile"),
        ("gradle", "-q", "testClasses"),
    ),
    Step(
        "java",
        "build.gradle.kts",
        ("settings.gradle.kts", "gradle.lockfile"),
        ("gradle", "-q", "testClasses"),
    ),
    Step("rust", "Cargo.toml", ("Cargo.lock",), ("cargo", "fetch")),
    Step("go", "go.mod", ("go.sum",), ("go", "mod", "download")),
)
# the artifact Maven could not fetch, as it names it ("g:a:v", "g:a:jar:v")
MAVEN_ARTIFACT = re.compile(
    r"(?:artifacts could not be resolved: |Could not find artifact |Could not transfer artifact "
    r"|Failed to read artifact descriptor for |the artifact |Plugin )([\w.-]+:[\w.:-]+\w)"
    r"|([\w.-]+:[\w.:-]+\w) was not found in"  # Maven's words once the miss is cached
)
_MAVEN_MISSING = re.compile(
    r"(Could not resolve dependencies|could not be resolved|Could not find artifact|"
    r"Could not transfer artifact|Failed to read artifact descriptor|Unknown host|"
    r"Non-resolvable|Plugin .* could not be resolved|was not found in)[^\n]*"
)
_CARGO_MISSING = re.compile(r"(failed to (?:download|get|load)[^\n]*|no matching package[^\n]*)")
_GO_MISSING = re.compile(r"(go: [^\n]*(?:reading|verifying|not found|dial tcp|no such host)[^\n]*)")


def modules(root: Path, build_file: str, limit: int = 20) -> list[Path]:
    """The outermost directories holding `build_file` (a reactor or workspace root prepares its
    members)."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        if build_file in filenames:
            found.append(Path(dirpath))
            dirnames[:] = []
            if len(found) >= limit:
                break
    return found


def fingerprint(root: Path, step: Step, module: Path) -> str:
    h = hashlib.sha256("\0".join(step.argv).encode())
    h.update(os.path.expanduser("~").encode())  # another HOME, other caches
    for dirpath, dirnames, filenames in os.walk(module):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name == step.build_file or name in step.inputs:
                path = Path(dirpath, name)
                h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:24]


def missing(step: Step, output: str) -> str:
    """The one line that names what could not be fetched."""
    pattern = {"java": _MAVEN_MISSING, "rust": _CARGO_MISSING, "go": _GO_MISSING}[step.language]
    found = pattern.search(output)
    line = found.group(0) if found else ""
    if step.language == "java" and (named := MAVEN_ARTIFACT.search(output)):
        return f"could not fetch {named.group(1) or named.group(2)}"
    line = line or next((ln for ln in reversed(output.splitlines()) if ln.strip()), "")
    return line.strip().removeprefix("[ERROR]").strip()[:200] or "it failed with no output"


def prepare(
    root: Path,
    language: str,
    offline: bool = False,
    timeout_s: float = 1800,
    say: Callable[[str], None] = lambda _: None,
) -> str | None:
    """Resolve the dependencies of `language`'s modules in the project at `root` (once per build
    files' hash); the problem in one line, or None when ready (or nothing to do). `say` hears what
    runs before it runs (a Maven step takes minutes on a fresh machine: the user sees why)."""
    for step in STEPS:
        if step.language != language:
            continue
        for module in modules(root, step.build_file):
            problem = _prepare_module(root, step, module, offline, timeout_s, say)
            if problem:
                return problem
    return None


def _prepare_module(
    root: Path,
    step: Step,
    module: Path,
    offline: bool,
    timeout_s: float,
    say: Callable[[str], None] = lambda _: None,
) -> str | None:
    marker = assay_cache() / "prepared" / fingerprint(root, step, module)
    if marker.exists() or offline:
        return None  # offline: the sandboxed run says what the caches lack, as before
    rel = module.relative_to(root).as_posix()
    tool = step.argv[0]
    if step.build_file.startswith("build.gradle") and (module / "gradlew").is_file():
        tool = "./gradlew"
    elif shutil.which(tool) is None:
        return None  # the toolchain check names what is missing
    with tempfile.TemporaryDirectory(prefix="assay-prepare-") as tmp:
        classpath = Path(tmp, "classpath.txt")
        where = f"{rel}/{step.build_file}" if rel != "." else step.build_file
        say(f"prepare: {where}'s dependencies (`{' '.join([tool, *step.argv[1:]])}`)")
        problem, done = _run_step(root, step, rel, [tool, *step.argv[1:]], timeout_s, classpath)
        if problem and step.narrow:
            say(f"prepare: {where}'s dependencies (`{' '.join([tool, *step.narrow[1:]])}`)")
            problem, done = _run_step(
                root, step, rel, [tool, *step.narrow[1:]], timeout_s, classpath
            )
        if problem:
            return problem
        if step.build_file == "pom.xml" and classpath.is_file():
            entries = classpath.read_text(encoding="utf-8").strip().split(os.pathsep)
            if wanted := maven_tools.missing(entries):
                say(f"prepare: gate 4's artifacts (`mvn dependency:get` ×{len(wanted)})")
            maven_tools.fetch(wanted, timeout_s)
    if done:  # a build stopped before it fetched everything is tried again next time
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(" ".join(step.argv) + "\n", encoding="utf-8")
    return None


def _run_step(
    root: Path, step: Step, rel: str, argv: list[str], timeout_s: float, classpath: Path
) -> tuple[str | None, bool]:
    """`argv` in a scratch copy of the pristine project: the problem in one line (or None), and
    whether the step went as far as it can (`finished`). Maven writes the test class path to
    `classpath` (`dependency:build-classpath`)."""
    if step.build_file == "pom.xml":  # the repository the sandboxed runs read (JVMs ignore $HOME)
        argv.insert(1, f"-Dmaven.repo.local={maven_tools.repository()}")
        argv.insert(2, f"-Dmdep.outputFile={classpath}")
    env = dict(os.environ)
    if step.build_file.startswith("build.gradle"):
        env["GRADLE_USER_HOME"] = os.path.expanduser("~/.gradle")
    with Workspace(root) as ws:
        if step.build_file == "pom.xml":  # gate 4's PIT, resolved as the plugin it runs as
            maven_tools.add_pit_plugin(ws.path(rel) / "pom.xml")
        try:
            ran = subprocess.run(
                argv,
                cwd=ws.path(rel),
                capture_output=True,
                text=True,
                timeout=timeout_s,
                stdin=subprocess.DEVNULL,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return f"preparing {rel} (`{' '.join(argv)}`) timed out after {timeout_s:.0f} s", False
        except OSError as exc:
            return f"preparing {rel} (`{' '.join(argv)}`) could not start: {exc}", False
    output = ran.stdout + "\n" + ran.stderr
    # Maven fetches before it compiles: the project's own code failing to compile is no gap
    if ran.returncode != 0 and (step.language != "java" or _MAVEN_MISSING.search(output)):
        return (
            f"dependencies of {rel}/{step.build_file} could not be prepared "
            f"(`{' '.join(argv)}`): {missing(step, output)}"
        ), False
    return None, finished(step, ran.returncode, output)


def finished(step: Step, returncode: int, output: str) -> bool:
    """Whether a step that is no problem went as far as it can: Maven fetches a plugin's
    dependencies as it reaches the plugin, so a build a plugin other than the compiler stopped
    (a RAT license check in `validate`) left later plugins unfetched, while the tests failing to
    compile come after everything is fetched (the main code's do not)."""
    if returncode == 0 or step.language != "java":
        return True
    # javac on the main code (`compile`) stops before `process-classes` (commons-io's
    # maven-bundle-plugin): only `testCompile` comes after every plugin the tests need
    main = re.search(r"maven-compiler-plugin:[\w.-]+:compile\b", output)
    return maven_tools.failed_outside_javac(output) is None and main is None
