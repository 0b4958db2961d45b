"""Java's gate 1: compiles with the project's build (Maven `test-compile`, Gradle `testClasses`),
javac on the candidate alone against a warm build, or, for a tree without a build file, `javac` with
JUnit 5 on the class path (`java_runner` runs the tests).

The other test classes of the module (by name: `*Test`, `*Tests`, `Test*`, `*IT`) are taken out of
the scratch copy first, so that a broken sibling cannot fail the candidate's build, and helpers
stay. Dependencies come from the real `~/.m2`, read-only, with Maven offline (`-o`: the sandbox has
no network); a dependency the cache lacks makes the file `unvalidated` with the command that
fetches it. `target/` and `build/` stay across workspace resets, so the second compile of a
repaired file is incremental.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import CompileResult
from assay.execution.workspace import Workspace
from assay.feedback import relativize
from assay.languages import junit_launcher
from assay.languages.compiler_output import javac_errors
from assay.languages.java_sources import TEST_NAME, build_tool, class_name, run_test_methods
from assay.languages.java_warm import warm_classpath
from assay.languages.maven_tools import failed_outside_javac
from assay.languages.prepare import MAVEN_ARTIFACT
from assay.languages.tooling import (
    FETCH,
    OTHER_PLUGIN,
    OWN_CODE,
    TEST_ID_SEP,
    Ran,
    ToolRunner,
    slug,
)
from assay.sandbox import Profile, Sandbox
from assay.sandbox.view import hand_over

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

_OFFLINE = re.compile(
    r"offline mode|has not been downloaded from it before|Could not resolve dependencies|"
    r"Plugin [^ ]+ or one of its dependencies could not be resolved|Could not transfer artifact|"
    r"Cannot access \S+ in offline mode|Could not resolve plugin|LocalRepositoryNotAccessible"
)


def offline_gap(text: str, module: str, tool: str) -> str:
    """What the offline build lacks, named (`org.codehaus.mojo:build-helper-maven-plugin:3.6.0`
    for commons-lang3, whose message named nothing), and how to fetch it."""
    fetch = "mvn dependency:go-offline" if tool == "maven" else "gradle build"
    named = MAVEN_ARTIFACT.search(text)
    what = f" ({named.group(1) or named.group(2)})" if named else ""
    return (
        f"a dependency or plugin of {module}{what} is not in the local cache and the sandbox "
        f"has no network: run `{fetch}` in {module} once"
    )


# Maven's failure line, and the plugin that failed
_RELEASE = re.compile(r"<(?:maven\.compiler\.)?(?:release|target)>\s*(?:1\.)?(\w+)\s*</")
_WORD = re.compile(r"\w+")
MAVEN_INSTALL = "install Maven (https://maven.apache.org, or apt install maven)"


def build_failure(
    ran: Ran, rel: str, module: str, tool: str, raw: int, duration: float
) -> CompileResult:
    """Gate 1's reading of a Maven, Gradle or javac build that failed: the candidate's own errors
    reject it; out of time is the machine's (whatever the build printed before); anything else is
    the environment's, with the advice its cause needs."""
    problems = javac_errors(ran.text, ran.roots, module)
    mine = [p for p in problems if p.where == rel]
    if mine:
        return CompileResult(errors=mine, raw_lines=raw, duration_s=duration)
    if ran.result.timed_out:
        return ToolRunner.no_result(ran, tool, raw, duration)
    if problems:
        return ToolRunner.environment(
            "the module does not compile without this file: "
            + "; ".join(f"{p.where}:{p.line}: {p.message}" for p in problems[:3]),
            raw,
            duration,
            hint=OWN_CODE,
        )
    if _OFFLINE.search(ran.text):
        return ToolRunner.environment(offline_gap(ran.text, module, tool), raw, duration, FETCH)
    if outside := failed_outside_javac(ran.text):
        # the scratch copy's paths (a RAT report under target/) as the project's
        outside = relativize(outside, *ran.roots)
        return ToolRunner.environment(
            f"the build of {module} failed outside javac: {outside}", hint=OTHER_PLUGIN
        )
    return ToolRunner.no_result(ran, tool, raw, duration)


class JavaCompiler(ToolRunner):
    """Compiles a Java test file and keeps its module's class path for the runs."""

    language = "java"

    def __init__(
        self, sandbox: Sandbox, project: Project, settings: Settings, profile: Profile
    ) -> None:
        super().__init__(sandbox, project, settings, profile)
        self._classpath: dict[tuple[str, str], list[str]] = {}  # (workspace, module) -> class path

    def _drop_siblings(self, ws: Workspace, rel: str, module: str) -> None:
        """Other test classes of the module out of the copy; helpers (names not like a test)
        stay, and so do the test classes the candidate uses, transitively (a base class such
        as commons-codec's `AbstractStringEncoderTest`: without it a sound file was rejected at
        compile)."""
        siblings: dict[str, list[tuple[str, str]]] = {}  # class name -> [(rel, source)]
        for dirpath, dirnames, filenames in os.walk(ws.path(module)):
            dirnames[:] = [
                d for d in dirnames if d not in ("target", "build", ".git", "node_modules")
            ]
            for name in filenames:
                path = Path(dirpath, name)
                other = path.relative_to(ws.project).as_posix()
                if other != rel and TEST_NAME.search(name):
                    text = path.read_text(errors="replace")
                    if "org.junit" in text:
                        siblings.setdefault(path.stem, []).append((other, text))
        words = set(_WORD.findall(ws.path(rel).read_text(errors="replace")))
        while kept := [siblings.pop(n) for n in words & siblings.keys()]:
            words = {w for found in kept for _, text in found for w in _WORD.findall(text)}
        for found in siblings.values():
            ws.apply({other: None for other, _ in found})

    def compile(self, ws: Workspace, files: list[str]) -> CompileResult:
        rel = files[0]
        tool, module = build_tool(ws.project, rel, self.settings)
        self._drop_siblings(ws, rel, module)
        if tool == "javac":
            return self._javac(ws, rel, module)
        conf = self.settings.tool("java")
        known = self._classpath.get((str(ws.base), module))
        if tool == "maven" and known is None and not conf.compile_command:
            known = self._warm(ws, module)
        # warm: the module is built, javac the file
        if tool == "maven" and known and not conf.compile_command:
            fast = self._javac_one(ws, rel, module, known)
            if fast is not None:
                return fast
        cp_file = f"target/assay-classpath-{slug(module)}.txt"
        if conf.compile_command:
            argv = list(conf.compile_command)
        elif tool == "maven":
            # the class path first: known even when the file fails
            argv = [
                "mvn",
                "-B",
                "-o",
                "-q",
                "-Dstyle.color=never",
                "dependency:build-classpath",
                f"-Dmdep.outputFile={cp_file}",
                "-Dmdep.includeScope=test",
                "test-compile",
            ]
        else:
            argv = [
                "./gradlew" if ws.path(module).joinpath("gradlew").exists() else "gradle",
                "--offline",
                "-q",
                "testClasses",
            ]
        if shutil.which(argv[0]) is None and not argv[0].startswith("./"):
            return self.environment(
                f"`{argv[0]}` not found on PATH: "
                + (MAVEN_INSTALL if tool == "maven" else "install Gradle (https://gradle.org)")
            )
        ran = self.exec(ws, argv, cwd=module, timeout=max(self.timeout_s, 600))
        raw, duration = ran.raw_lines, ran.result.duration_s
        classes = (
            ["target/test-classes", "target/classes"]
            if tool == "maven"
            else [
                "build/classes/java/test",
                "build/classes/java/main",
                "build/resources/test",
                "build/resources/main",
            ]
        )
        cp_path = ws.path(module) / cp_file
        if tool == "maven" and cp_path.is_file() and ws.path(f"{module}/target/classes").is_dir():
            deps = [e for e in cp_path.read_text().strip().split(os.pathsep) if e]
            self._classpath[(str(ws.base), module)] = [
                str(ws.path(module) / c) for c in classes
            ] + deps
        if ran.result.returncode != 0:
            return build_failure(ran, rel, module, tool, raw, duration)
        if tool != "maven":
            self._classpath[(str(ws.base), module)] = [str(ws.path(module) / c) for c in classes]
        return self._collected(ws, rel, raw, duration)

    def _warm(self, ws: Workspace, module: str) -> list[str] | None:
        """The module's warm classes copied into a fresh workspace (`java_warm`): its class path."""
        env = self.sandbox.env_for(ws.run_dir / "home", profile=self.profile, cache=ws.cache_dir)
        found = warm_classpath(self.project.root, module, ws, env, self.timeout_s)
        if found is not None:
            self._classpath[(str(ws.base), module)] = found
        return found

    def _javac_one(
        self, ws: Workspace, rel: str, module: str, classpath: list[str]
    ) -> CompileResult | None:
        """The candidate alone compiled by javac against the module Maven built earlier in this
        workspace (its classes, test classes and dependencies): a repaired file costs a second, not
        a Maven start. The release and flags come from the pom; None (use Maven) when javac fails
        outside the candidate."""
        pom = ws.path(f"{module}/pom.xml").read_text(encoding="utf-8", errors="replace")
        out = Path(classpath[0])
        missing = [p for p in (out, *out.parents) if not p.exists()]
        out.mkdir(parents=True, exist_ok=True)
        hand_over(*missing)  # javac writes here as the tests' uid
        # helpers not compiled yet are compiled from source
        sources = [
            str(ws.path(f"{module}/{d}"))
            for d in ("src/test/java", "src/main/java")
            if ws.path(f"{module}/{d}").is_dir()
        ]
        if any(Path(d, "module-info.java").is_file() for d in sources):
            # a named module (JPMS): javac would compile the test into it, where JUnit is not
            # read ("package org.junit is not visible": joda-convert's sound tests were rejected);
            # Maven patches the module for its tests
            return None
        args = [
            "javac",
            "-d",
            classpath[0],
            "-encoding",
            "UTF-8",
            "-cp",
            os.pathsep.join(classpath),
            "-sourcepath",
            os.pathsep.join(sources),
        ]
        release = _RELEASE.search(pom)
        if release and release.group(1).isdigit():
            args += ["--release", release.group(1)]
        args += [flag for flag in ("-parameters", "--enable-preview") if flag in pom]
        ran = self.exec(ws, [*args, rel], cwd=".")
        if ran.result.returncode == 0:
            return self._collected(ws, rel, ran.raw_lines, ran.result.duration_s)
        problems = javac_errors(ran.text, ran.roots, ".")
        mine = [p for p in problems if p.where == rel]
        if mine and len(mine) == len(problems):
            return CompileResult(
                errors=mine, raw_lines=ran.raw_lines, duration_s=ran.result.duration_s
            )
        return None

    def _collected(self, ws: Workspace, rel: str, raw: int, duration: float) -> CompileResult:
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        return CompileResult(
            collected=[f"{rel}{TEST_ID_SEP}{m}" for m in run_test_methods(ws.project, rel, source)],
            raw_lines=raw,
            duration_s=duration,
        )

    def _javac(self, ws: Workspace, rel: str, module: str) -> CompileResult:
        """A tree without a build file: the candidate's package root holds the sources; JUnit 5
        comes from the console launcher jar, other jars from `lib/` or `libs/`."""
        if shutil.which("javac") is None:
            return self.environment(
                "`javac` not found on PATH: install a JDK (apt install openjdk-17-jdk-headless)"
            )
        jar = junit_launcher.launcher([])
        if jar is None:
            return self.environment(
                "JUnit 5 is not in ~/.m2 and cannot be fetched without Maven: run `mvn "
                f"dependency:get -Dartifact={junit_launcher.ARTIFACT}:"
                f"{junit_launcher.DEFAULT_VERSION}` once",
                hint=FETCH,
            )
        source = ws.path(rel).read_text(encoding="utf-8", errors="replace")
        depth = class_name(source, rel).count(".")
        src_root = PurePosixPath(rel).parents[depth].as_posix()
        roots = {src_root}
        for main in ("src/main/java", "src"):
            if ws.path(f"{module}/{main}").is_dir():
                roots.add(PurePosixPath(module, main).as_posix())
        sources = sorted(
            {
                Path(dp, n).relative_to(ws.project).as_posix()
                for r in roots
                for dp, _, names in os.walk(ws.path(r))
                for n in names
                if n.endswith(".java")
            }
        )
        libs = [
            str(p) for d in ("lib", "libs") for p in sorted(ws.path(f"{module}/{d}").glob("*.jar"))
        ]
        out = ws.cache_dir / "javac-classes"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        args = ws.run_dir / "javac-sources.txt"
        args.write_text("\n".join(str(ws.path(s)) for s in sources))
        ran = self.exec(
            ws,
            [
                "javac",
                "-d",
                str(out),
                "-encoding",
                "UTF-8",
                "-proc:none",
                "-cp",
                os.pathsep.join([str(jar), *libs]),
                f"@{args}",
            ],
            cwd=".",
        )
        if ran.result.returncode != 0:
            return build_failure(ran, rel, ".", "javac", ran.raw_lines, ran.result.duration_s)
        self._classpath[(str(ws.base), module)] = [str(out), *libs]
        return self._collected(ws, rel, ran.raw_lines, ran.result.duration_s)
