"""The JUnit 5 console launcher (`junit-platform-console-standalone`), which runs one class or
chosen methods in a fresh JVM in about a second and writes JUnit XML: faster than a Maven or Gradle
run for gate 2; its jar also carries the platform launcher API that gate 3's plan in one JVM
(`java_plan`) runs on.

It is assay's own tool, not the project's, and is looked up in the Maven cache (`~/.m2`, or
`~/.cache/assay/m2`): the version matching the project's JUnit platform first, else the newest
there. Missing, it is fetched once with `mvn dependency:get` outside the sandbox (a fixed artifact
of Maven Central; no project code runs).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from assay.sandbox import assay_cache

ARTIFACT = "org.junit.platform:junit-platform-console-standalone"
DEFAULT_VERSION = "1.14.1"
_GROUP_DIR = Path("org/junit/platform/junit-platform-console-standalone")
_PLATFORM_JAR = re.compile(r"junit-platform-(?:commons|engine)-(\d+\.\d+\.\d+)\.jar$")
# jars the standalone launcher bundles: kept off the project's class path so that one copy of each
# engine loads
_BUNDLED = re.compile(r"^(junit-platform-|junit-jupiter-|junit-vintage-|opentest4j-|apiguardian-)")


def repositories() -> list[Path]:
    return [Path(os.path.expanduser("~/.m2/repository")), assay_cache() / "m2"]


def _version_key(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.-]", v))


def platform_version(classpath: list[str]) -> str | None:
    for entry in classpath:
        m = _PLATFORM_JAR.search(entry)
        if m:
            return m.group(1)
    return None


def find(version: str | None) -> Path | None:
    """The launcher jar of `version` if cached, else the newest cached one, else None."""
    found: dict[str, Path] = {}
    for repo in repositories():
        base = repo / _GROUP_DIR
        if not base.is_dir():
            continue
        for d in base.iterdir():
            jar = d / f"junit-platform-console-standalone-{d.name}.jar"
            if jar.is_file():
                found.setdefault(d.name, jar)
    if version and version in found:
        return found[version]
    return found[max(found, key=_version_key)] if found else None


def fetch(version: str | None) -> Path | None:
    """Fetch the launcher into ~/.m2 with Maven (network, outside the sandbox); None when that
    cannot be done."""
    mvn = shutil.which("mvn")
    if mvn is None:
        return None
    try:
        subprocess.run(
            [
                mvn,
                "-B",
                "-q",
                "dependency:get",
                f"-Dartifact={ARTIFACT}:{version or DEFAULT_VERSION}",
                # where `find` looks: a JVM's user.home ignores $HOME
                f"-Dmaven.repo.local={repositories()[0]}",
            ],
            capture_output=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return find(version or DEFAULT_VERSION)


_fetched: dict[str | None, Path | None] = {}


def launcher(classpath: list[str]) -> Path | None:
    """The launcher for a project's class path; fetched at most once per version and process."""
    version = platform_version(classpath)
    jar = find(version)
    if jar is None or (version and version not in jar.name):
        if version not in _fetched:
            _fetched[version] = fetch(version)
        jar = _fetched[version] or jar
    return jar


def without_bundled(classpath: list[str]) -> list[str]:
    return [e for e in classpath if not _BUNDLED.match(Path(e).name)]


def argv(
    jar: Path,
    classpath: list[str],
    selectors: list[str],
    reports: Path,
    random_seed: int | None,
    extra: list[str],
) -> list[str]:
    """`java -jar launcher execute` for the given `--select-class`/`--select-method` selectors."""
    out = [
        "java",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Xshare:auto",
        "-jar",
        str(jar),
        "execute",
        "--disable-banner",
        "--details=none",
        "--disable-ansi-colors",
        f"--reports-dir={reports}",
        "--class-path",
        os.pathsep.join(classpath),
        *selectors,
        *extra,
    ]
    if random_seed is not None:
        out += [
            "--config=junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random",
            f"--config=junit.jupiter.execution.order.random.seed={random_seed}",
            "--config=junit.jupiter.testclass.order.default=org.junit.jupiter.api.ClassOrderer$Random",
        ]
    return out
