"""Gate 3 of a JUnit 5 class in one JVM: the reruns, the seeded random order and each test method
alone, run by `junit_plan/AssayPlan.java` (the JUnit platform launcher API) where the console
launcher would start a JVM for each (7+ starts of about a second of CPU each).

Each run loads the project's classes in a class loader of its own: fresh static state of the
project's classes per run and per test alone, as a new JVM gives; the JDK's own global state (system
properties, default locale and time zone, threads a test leaves running) is shared by the runs.

A parametrized or repeated method runs alone once, all its invocations together, and its cases
(`total(int)[2]`) are judged from that run: JUnit has no selector for one invocation by its
reporting name.

The launcher class is assay's code, compiled once per source, JDK and JUnit launcher version into
assay's cache, outside the sandbox.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from assay.execution.runner import Order, RunStep
from assay.languages.plans import PlannedRun
from assay.sandbox import assay_cache

SOURCE = Path(__file__).with_name("junit_plan") / "AssayPlan.java"
MAIN = "AssayPlan"
_CASE = re.compile(r"\[\d+\]$")
_CONFIG = re.compile(r"^--config=([^=]+=.*)$")


def compiled(jar: Path) -> Path | None:
    """The directory holding AssayPlan.class built against the launcher `jar`; None when javac
    is missing or fails (the caller starts a JVM per run instead)."""
    javac = shutil.which("javac")
    if javac is None:
        return None
    real = Path(javac).resolve()
    key = hashlib.sha256(
        SOURCE.read_bytes()
        + f"{jar}:{jar.stat().st_mtime_ns}:{real}:{real.stat().st_mtime_ns}".encode()
    ).hexdigest()[:16]
    out = assay_cache() / "tools" / "junit-plan" / key
    if (out / f"{MAIN}.class").is_file():
        return out
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=out.parent))
    except OSError:
        return None
    try:
        built = subprocess.run(
            [javac, "-nowarn", "-d", str(tmp), "-cp", str(jar), str(SOURCE)],
            capture_output=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        if built.returncode != 0:
            return None
        tmp.chmod(0o755)  # the tests' uid runs it
        with contextlib.suppress(OSError):  # another process built it first
            tmp.rename(out)
        return out if (out / f"{MAIN}.class").is_file() else None
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def method_of(fqcn: str, name: str) -> str:
    """A test's selector from its name as gate 2 reads it from JUnit XML: `total`, `total(int)[2]`
    (one case: its whole method), `Nested.total` (a @Nested class's)."""
    name = _CASE.sub("", name)
    head, paren, params = name.partition("(")
    outer, dot, method = head.rpartition(".")
    owner = f"{fqcn}${outer.replace('.', '$')}" if dot else fqcn
    return f"{owner}#{method}{paren}{params}"


def config_of(test_args: list[str]) -> list[str] | None:
    """`key=value` of the `--config=` arguments; None when another console-launcher argument is
    configured (only the console launcher understands it)."""
    out = []
    for arg in test_args:
        m = _CONFIG.match(arg)
        if m is None:
            return None
        out.append(m.group(1))
    return out


def write(
    plan_file: Path,
    reports: Path,
    classpath: list[str],
    config: list[str],
    fqcn: str,
    steps: list[RunStep],
    ids: list[str] | None,
    id_prefix: str,
) -> list[PlannedRun]:
    """The plan file for AssayPlan; the runs it makes, in order (a step alone is one run per test
    method of `ids`). A rerun selects the methods of `ids` (the tests that passed at gate 2), not
    the class: AssayPlan ends the plan at a run where a test failed, and a test gate 2 left
    unjudged (semver4j's mock on a JDK its mockito predates) stopped it after the first rerun."""
    lines = ["classpath\t" + os.pathsep.join(classpath), *(f"config\t{c}" for c in config)]
    runs: list[PlannedRun] = []
    judged_only = "\t".join(dict.fromkeys(method_of(fqcn, t[len(id_prefix) :]) for t in ids or []))
    for n, s in enumerate(steps):
        seed = str(s.seed) if s.order is Order.RANDOM else "-"
        if not s.isolate or not ids:
            groups: list[tuple[str, list[str] | None]] = [(judged_only or fqcn, None)]
        else:
            by_method: dict[str, list[str]] = {}
            for test in ids:
                by_method.setdefault(method_of(fqcn, test[len(id_prefix) :]), []).append(test)
            groups = list(by_method.items())
        for selector, judged in groups:
            at = reports / f"run-{len(runs)}"
            lines.append(f"step\t{at}\t{seed}\t{int(s.last_if_failed)}\t{selector}")
            runs.append(PlannedRun(n, at, judged))
    plan_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return runs


def argv(launcher_dir: Path, jar: Path, plan_file: Path) -> list[str]:
    return [
        "java",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Xshare:auto",
        "-cp",
        os.pathsep.join([str(launcher_dir), str(jar)]),
        MAIN,
        str(plan_file),
    ]
