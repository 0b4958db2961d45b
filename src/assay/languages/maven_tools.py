"""assay's own Maven artifacts for gate 4, fetched by the prepare step (outside the sandbox, with
the network) when `~/.m2` lacks them: PIT's Maven plugin and its JUnit 5 plugin, and the
`junit-platform-launcher` of the project's JUnit platform, which PIT's JUnit 5 plugin loads at run
time and a project's own build never fetches (commons-codec: 1.10.2). Without them gate 4 was
`unvalidated` on a fresh `~/.m2` ("PIT could not load offline") until fetched by hand.

Fixed artifacts of Maven Central (no project code runs); best effort: a failure here leaves gate 4
to name what it could not load, and never stops gates 1-3.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from assay.languages.junit_launcher import platform_version

PIT_VERSION = "1.30.2"
JUNIT5_PLUGIN_VERSION = "1.2.3"
LAUNCHER = "org.junit.platform:junit-platform-launcher"
JUNIT5_PLUGIN = f"""        <dependencies>
          <dependency>
            <groupId>org.pitest</groupId>
            <artifactId>pitest-junit5-plugin</artifactId>
            <version>{JUNIT5_PLUGIN_VERSION}</version>
          </dependency>
        </dependencies>
"""
# skipFailingTests has no `-D` property: a test gate 2 left unjudged (the environment's gap, as a
# JDK past semver4j's mockito) fails in PIT's coverage run too, and PIT stopped the whole file
PLUGIN = f"""      <plugin>
        <groupId>org.pitest</groupId>
        <artifactId>pitest-maven</artifactId>
        <version>{PIT_VERSION}</version>
        <configuration><skipFailingTests>true</skipFailingTests></configuration>
{{junit5}}      </plugin>
"""
# a build that runs its tests on the JUnit platform (JUnit 5, or JUnit 4 through the vintage engine)
_PLATFORM = re.compile(r"junit-jupiter|junit-platform|junit-vintage|junit-bom")


def repository() -> Path:
    """The repository the sandboxed runs read (a JVM's user.home ignores $HOME)."""
    return Path(os.path.expanduser("~/.m2/repository"))


def _present(coordinates: str) -> bool:
    group, artifact, version = coordinates.split(":")
    return (repository() / group.replace(".", "/") / artifact / version).is_dir()


def missing(classpath: list[str]) -> list[str]:
    """`group:artifact:version` of what gate 4 needs for a project with this test class path and
    `~/.m2` lacks: PIT, and when the project runs on the JUnit platform, its launcher."""
    # pitest-maven itself is resolved as a plugin (`add_pit_plugin` on the prepare step's copy,
    # then `dependency:resolve-plugins`): `dependency:get` of it misses what Maven loads a
    # plugin with (javax.annotation-api, sisu.inject, ...), and PIT could not start offline
    wanted = [f"org.pitest:pitest-junit5-plugin:{JUNIT5_PLUGIN_VERSION}"]
    version = platform_version(classpath)
    if version is not None:  # the JUnit platform: PIT's JUnit 5 plugin loads its launcher
        wanted.append(f"{LAUNCHER}:{version}")
    return [c for c in wanted if not _present(c)]


def fetch(coordinates: list[str], timeout_s: float) -> list[str]:
    """`mvn dependency:get` each artifact (and what it depends on); those that failed."""
    mvn = shutil.which("mvn")
    if mvn is None:
        return coordinates
    failed = []
    for c in coordinates:
        argv = [mvn, "-B", "-q", "dependency:get", f"-Dartifact={c}"]
        argv.append(f"-Dmaven.repo.local={repository()}")
        try:
            ran = subprocess.run(
                argv, capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.SubprocessError):
            failed.append(c)
            continue
        if ran.returncode != 0 or not _present(c):
            failed.append(c)
    return failed


def on_junit_platform(pom: Path, root: Path) -> bool:
    """Whether the module's build or a parent build of the project names the JUnit platform."""
    here = pom.parent
    while True:
        build = here / "pom.xml"
        if build.is_file() and _PLATFORM.search(
            build.read_text(encoding="utf-8", errors="replace")
        ):
            return True
        if here == root or root not in here.parents:
            return False
        here = here.parent


def add_pit_plugin(pom: Path, platform: bool = True) -> None:
    """PIT in the copy's build, and its JUnit 5 plugin when the tests run on the JUnit `platform`
    (on a class path without it, the plugin kills PIT's minion: ulid-creator's JUnit 4 tests; PIT
    runs JUnit 4 by itself), unless the build declares PIT itself: in the project's own
    `<build><plugins>`, never in `<reporting>` (commons-codec's is after its build: a plugin with
    dependencies there is a malformed POM), pluginManagement or a profile."""
    text = pom.read_text(encoding="utf-8")
    if "pitest-maven" in text:
        return
    plugin = PLUGIN.format(junit5=JUNIT5_PLUGIN if platform else "")
    # the same text with those sections blanked, so that offsets stay those of `text`
    masked = re.sub(
        r"<(profiles|reporting|pluginManagement)>.*?</\1>|<!--.*?-->",
        lambda m: " " * len(m.group(0)),
        text,
        flags=re.S,
    )
    build = re.search(r"<build>.*?</build>", masked, flags=re.S)
    plugins = build and masked.rfind("</plugins>", build.start(), build.end())
    if build and plugins is not None and plugins >= 0:
        text = text[:plugins] + plugin + "    " + text[plugins:]
    elif build:
        at = build.start() + len("<build>")
        text = text[:at] + f"\n    <plugins>\n{plugin}    </plugins>" + text[at:]
    else:
        at = text.rfind("</project>")
        text = (
            text[:at]
            + f"  <build>\n    <plugins>\n{plugin}    </plugins>\n  </build>\n"
            + text[at:]
        )
    pom.write_text(text, encoding="utf-8")


_GOAL_FAILED = re.compile(r"Failed to execute goal ([\w.-]+:[\w.-]+):[^\n]*")


def failed_outside_javac(text: str) -> str | None:
    """Maven's failure line when a plugin other than the compiler stopped the build (a RAT
    license check, an enforcer rule): javac said nothing of the candidate, so assay cannot
    judge it (commons-lang3's RAT check on a file without a header was a "COMPILE ERROR")."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    found = _GOAL_FAILED.search(plain)
    if found is None or found.group(1) == "org.apache.maven.plugins:maven-compiler-plugin":
        return None
    said = found.group(0).removesuffix(" -> [Help 1]").strip()
    if said.endswith(":"):  # the reason is on the lines after (commons-csv's enforcer rule:
        # "Detected Maven Version: 3.8.7 is not in the allowed range [3.9,).")
        after = []
        for line in plain[found.end() :].splitlines()[1:4]:
            line = line.removeprefix("[ERROR]").strip()
            if not line or line.startswith("->"):
                break
            if not re.match(r"Rule \d+: \S+ failed with message:$", line):
                after.append(line)
        said = " ".join([said, *after])
    return said
