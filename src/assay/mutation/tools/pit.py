"""Java: PIT (`pitest-maven` with the JUnit 5 plugin) through the project's own Maven build,
offline, in the scratch copy.

The plugin is added to the copy's `pom.xml` (never the user's) unless the build declares it;
`targetClasses` are the candidate's classes under test (and their inner classes), `targetTests` the
candidate's class. PIT's XML with the full mutation matrix is read back: each mutant's killing and
covering tests, mapped onto gate 2's test ids (`<file>::<method>`). PIT names a change instead of
giving its text ("changed conditional boundary"): that name stands in the mutant's replacement,
under the source line it changes. A Gradle build is `unvalidated` (one line, `gradle: ...`): its PIT
plugin (`info.solidsoft.pitest`) is not wired, Gradle cannot run on these machines (Debian's 4.4 is
too old for the plugin, and a wrapper downloads Gradle from a host that is not reachable).
"""

from __future__ import annotations

import re
import shutil
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from assay.errors import RunFailed
from assay.feedback import relativize
from assay.languages.compiler_output import error_tail
from assay.languages.java import JAVA
from assay.languages.java_sources import class_name
from assay.languages.maven_tools import JUNIT5_PLUGIN_VERSION, PIT_VERSION, on_junit_platform
from assay.languages.maven_tools import add_pit_plugin as _add_plugin
from assay.languages.tooling import TEST_ID_SEP, nearest
from assay.mutation.model import Mutant, MutantResult, MutationResult, Status
from assay.mutation.tools.base import ToolRequest, assemble, drop_other_tests, span_mutant
from assay.mutation.tools.pit_conditions import conditional, edits
from assay.mutation.tools.scratch_run import ended

GOAL = f"org.pitest:pitest-maven:{PIT_VERSION}:mutationCoverage"
REPORTS = "target/assay-pit"
BUILDS = ("pom.xml", "build.gradle", "build.gradle.kts")
# PIT's STRONGER group: DEFAULTS plus conditions forced true/false, as assay's Python operators do
# (DEFAULTS never removes `if (c < 0) throw`, so a test of the throw killed nothing)
MUTATORS = "STRONGER"
STATUS = {
    "KILLED": Status.KILLED,
    "SURVIVED": Status.SURVIVED,
    "NO_COVERAGE": Status.NO_COVERAGE,
    "TIMED_OUT": Status.TIMEOUT,
    "NON_VIABLE": Status.COMPILE_ERROR,
}
# PIT talks to its minion JVMs over 127.0.0.1 (the sandbox's own loopback) and writes its class
# path jar to java.io.tmpdir: the run's private one, not the read-only /tmp
PROFILE = replace(
    JAVA.profile,
    loopback=True,
    env={
        **JAVA.profile.env,
        "MAVEN_OPTS": JAVA.profile.env.get("MAVEN_OPTS", "") + " -Djava.io.tmpdir={home}/tmp",
    },
)
_OFFLINE = re.compile(
    r"offline mode|has not been downloaded from it before|Could not resolve|"
    r"could not be resolved|Cannot access \S+ in offline mode"
)
_ARTIFACT = re.compile(
    r"(?:the artifact |Could not resolve |Could not find artifact )([\w.-]+:[\w.-]+(?::[\w.-]+)*\w)"
)
_LAMBDA = re.compile(r"^lambda\$(.+)\$\d+$")
_JUNIT4 = re.compile(r"^(?P<cls>[\w.$]+)\.(?P<method>[^.(\[]+)(?:\[[^\]]*\])?\((?P=cls)\)$")
_SEGMENT = re.compile(r"\[(nested-class|class|method|test-template|test-factory):([^\]]+)\]")
FETCH = (
    f"fetch PIT once with the network: mvn dependency:get "
    f"-Dartifact=org.pitest:pitest-maven:{PIT_VERSION} && mvn dependency:get "
    f"-Dartifact=org.pitest:pitest-junit5-plugin:{JUNIT5_PLUGIN_VERSION}"
)


def offline_problem(text: str) -> str:
    """What PIT could not load offline, named with the command that fetches it: PIT's JUnit 5
    plugin loads `junit-platform-launcher` of the project's platform version, which the
    project's own build never fetched (commons-codec: 1.10.2), and fetching PIT fixes nothing."""
    named = _ARTIFACT.search(text)
    if named is None or named.group(1).startswith("org.pitest:"):
        return f"PIT could not load offline ({FETCH})"
    group, artifact, *rest = named.group(1).split(":")
    coordinates = f"{group}:{artifact}:{rest[-1]}" if rest else named.group(1)
    return (
        f"PIT could not load offline: {named.group(1)} is not in ~/.m2 (fetch it once with the "
        f"network: mvn dependency:get -Dartifact={coordinates})"
    )


class Pit:
    name = "pit"
    language = "java"
    per_test_kills = True

    def unavailable(self, request: ToolRequest) -> str | None:
        module = _module(request)
        if not any((request.root / module / b).is_file() for b in BUILDS):
            return (
                f"PIT runs through a build: {module} has no pom.xml or build.gradle (plain javac)"
            )
        return None

    def problem(self, request: ToolRequest) -> str | None:
        module = _module(request)
        if not (request.root / module / "pom.xml").is_file():  # a Gradle build
            found = (request.root / module / "gradlew").is_file() or shutil.which("gradle")
            return (
                "gradle: gate 4 runs PIT through Maven only; Gradle's PIT plugin "
                f"(info.solidsoft.pitest) is not supported yet ({module}"
                + (")" if found else "; no `gradle` or ./gradlew here either)")
            )
        if shutil.which("mvn") is None:
            return "PIT runs through Maven: `mvn` not found on PATH (apt install maven)"
        repo = Path.home() / ".m2/repository/org/pitest"
        for artifact, version in (
            ("pitest-maven", PIT_VERSION),
            ("pitest-junit5-plugin", JUNIT5_PLUGIN_VERSION),
        ):
            if not (repo / artifact / version).is_dir():
                return f"org.pitest:{artifact}:{version} is not in ~/.m2: {FETCH}"
        return None

    def run(self, request: ToolRequest) -> MutationResult:
        start = time.monotonic()
        module = _module(request)
        pom = request.root / module / "pom.xml"
        texts = {t: (request.root / t).read_text(encoding="utf-8") for t in request.tests}
        jupiter = any("org.junit.jupiter" in text for text in texts.values())
        _add_plugin(pom, jupiter or on_junit_platform(pom, request.root))
        drop_other_tests(request, JAVA, module)
        sources = {t: (request.root / t).read_text(encoding="utf-8") for t in request.targets}
        classes = {class_name(text, t): t for t, text in sources.items()}
        tests = {class_name(text, t): t for t, text in texts.items()}
        reports = request.root / module / REPORTS
        shutil.rmtree(reports, ignore_errors=True)
        argv = [
            "mvn",
            "-B",
            "-o",
            "-q",
            "-Dstyle.color=never",
            # as far as `mvn test` goes before its tests: a plugin bound between (JaCoCo's
            # prepare-agent, in commons-parent's profile) sets the `${argLine}` of surefire's
            # configuration, which PIT hands its minions; at `test-compile` the JVM was given
            # `${argLine}` as its main class (commons-validator: "MINION_DIED")
            "process-test-classes",
            GOAL,
            f"-DtargetClasses={','.join(c for k in classes for c in (k, k + '$*'))}",
            f"-DtargetTests={','.join(tests)}",
            "-DoutputFormats=XML",
            "-DtimestampedReports=false",
            "-DfullMutationMatrix=true",
            "-DfailWhenNoMutations=false",
            f"-Dmutators={MUTATORS}",
            "-DjvmArgs=-XX:TieredStopAtLevel=1,-Xshare:auto",  # short-lived minions: C1 only
            f"-DreportsDirectory={reports}",
            f"-Dthreads={max(1, request.settings.mutation.workers or 1)}",
        ]
        ran = request.exec(argv, module, PROFILE)
        xml = reports / "mutations.xml"
        if ran.returncode != 0 or not xml.is_file():
            text = relativize(failure(ran.stdout + "\n" + ran.stderr), str(request.root))
            what = offline_problem(text) if _OFFLINE.search(text) else "PIT failed"
            raise RunFailed(f"{what}: {ended(ran, request.timeout_s)}\n{text}")
        mutants, results = read_mutations(xml, sources, classes, tests)
        scope = run_methods(mutants, results) if request.executed_only else None
        result = assemble(mutants, results, sources, request, time.monotonic() - start)
        result.scope = scope
        return result


def run_methods(mutants: list[Mutant], results: dict[str, MutantResult]) -> dict | None:
    """Gate 4's scope, as Python's: the mutants of the methods the tests run (PIT covers some
    mutant of each), so ulid-creator's UlidTest, which calls `UlidCreator.getUlid()` to make a
    value, is not charged for the rest of UlidCreator (17.6%, rejected). The others leave
    `results`; when the tests run no method of the targets, every mutant stays (all NoCoverage)."""
    ran = {
        (m.file, m.function)
        for m in mutants
        if m.id in results and results[m.id].status is not Status.NO_COVERAGE
    }
    if not ran:
        return None
    for m in mutants:
        if (m.file, m.function) not in ran:
            results.pop(m.id, None)
    scope: dict[str, list[str]] = {}
    for rel, method in sorted(ran):
        scope.setdefault(rel, []).append(method)
    return scope


# PIT's own account of a failure, and Maven's one-line summary of it; the tail below them is the
# bug-report boilerplate (the JVM's input arguments, its version), which hid the cause
_PIT_CAUSE = re.compile(r"PIT >> SEVERE|^\[ERROR\] Failed to execute goal")


# javac's own errors under Maven's "Compilation failure": a file's `[l,c]`, or a processor's
_JAVAC_SAID = re.compile(r"^\[ERROR\] (?!\s*at |COMPILATION ERROR|Failed to execute|-> )\S")


def failure(output: str) -> str:
    """Why a PIT run failed, in PIT's and Maven's words (joda-convert 2.2.4: "Coverage generator
    Minion exited abnormally", where the message showed `-Dmaven.home=...` input lines), and
    javac's when the build did not compile (commons-io's tests: "Compilation failure:" and
    nothing after it; JMH's annotation processor had failed)."""
    lines = [ln.strip() for ln in output.splitlines()]
    causes = [ln for ln in lines if _PIT_CAUSE.search(ln)]
    if causes and any("Compilation failure" in c for c in causes) and "COMPILATION ERROR" in output:
        at = next(i for i, ln in enumerate(lines) if "COMPILATION ERROR" in ln)
        said = [ln for ln in lines[at + 1 : at + 40] if _JAVAC_SAID.match(ln)]
        causes += [ln[:300] for ln in said[:3]]
    if causes:
        return "\n".join(dict.fromkeys(causes[:6]))
    return error_tail(output)


def _module(request: ToolRequest) -> str:
    rel = request.tests[0] if request.tests else request.targets[0]
    return nearest(request.root, rel, BUILDS) or "."


def junit_id(name: str, tests: dict[str, str]) -> str:
    """PIT's `com.acme.PriceTest.[engine:junit-jupiter]/[class:...]/[method:total()]` (or, for
    JUnit 4 run by PIT itself, `com.acme.PriceTest.total(com.acme.PriceTest)`) as gate 2 names
    it: `src/test/java/com/acme/PriceTest.java::total`."""
    outer, nested, method = "", [], ""
    if old := _JUNIT4.match(name):
        outer, *nested = old.group("cls").split("$")
        method = old.group("method")
    for kind, value in _SEGMENT.findall(name):
        if kind == "class":
            outer = value
        elif kind == "nested-class":
            nested.append(value)
        else:
            method = value.split("(", 1)[0]
    rel = tests.get(outer)
    if rel is None or not method:
        return name
    return f"{rel}{TEST_ID_SEP}{'.'.join([*nested, method])}"


def read_mutations(
    xml: Path, sources: dict[str, str], classes: dict[str, str], tests: dict[str, str]
) -> tuple[list[Mutant], dict[str, MutantResult]]:
    """PIT's mutations.xml as assay's mutants and results."""
    mutants: list[Mutant] = []
    results: dict[str, MutantResult] = {}
    nodes = list(ET.parse(xml).getroot().iter("mutation"))
    conditions = _conditions(nodes, sources, classes)
    for i, node in enumerate(nodes):
        owner = (node.findtext("mutatedClass") or "").split("$", 1)[0]
        rel = classes.get(owner)
        if rel is None:
            continue
        text = sources[rel]
        line = int(node.findtext("lineNumber") or 1)
        code = _line(text, line)
        indent = len(code) - len(code.lstrip())
        described = node.findtext("description") or ""
        operator = (node.findtext("mutator") or "").rsplit(".", 1)[-1]
        operator = operator.removesuffix("Mutator") or "pit"
        if i in conditions:  # the operand PIT's jump tests, as the mutant changes it
            a, b, value = conditions[i]
            mutant = span_mutant(
                f"pit-{i}", rel, text, (line, a + 1), (line, b + 1), value, operator
            )
        else:
            mutant = span_mutant(
                f"pit-{i}",
                rel,
                text,
                (line, indent + 1),
                (line, len(code.rstrip()) + 1),
                described,
                operator,
                after=described,
            )
        # the method, by class: a lambda's code runs when its method does (`lambda$get$0`)
        method = node.findtext("mutatedMethod") or ""
        method = m.group(1) if (m := _LAMBDA.match(method)) else method
        inner = (node.findtext("mutatedClass") or "").rpartition(".")[2]
        mutant = replace(mutant, function=f"{inner}.{method}")
        killers = [junit_id(t, tests) for t in _names(node, "killingTests")]
        covering = [junit_id(t, tests) for t in _names(node, "coveringTests")]
        status = STATUS.get(node.get("status", ""), Status.RUNTIME_ERROR)
        mutants.append(mutant)
        results[mutant.id] = MutantResult(
            status,
            covered_by=covering or killers,
            killed_by=killers,
            tests_completed=int(node.get("numberOfTestsRun") or 0),
            reason="" if node.get("status") in STATUS else f"PIT: {node.get('status')}",
        )
    return mutants, results


def _line(text: str, line: int) -> str:
    return text.split("\n")[line - 1] if line <= text.count("\n") + 1 else ""


def _conditions(
    nodes: list[ET.Element], sources: dict[str, str], classes: dict[str, str]
) -> dict[int, tuple[int, int, str]]:
    """By mutation's position: the conditional mutants that read as one operand of their line's
    condition made true or false, shifted or negated (`pit_conditions`)."""
    lines: dict[tuple[str, str, str, int], dict[str, list[tuple[int, int]]]] = {}
    for i, node in enumerate(nodes):
        mutator = node.findtext("mutator") or ""
        rel = classes.get((node.findtext("mutatedClass") or "").split("$", 1)[0])
        if rel is None or not conditional(mutator):
            continue
        key = (
            rel,
            node.findtext("mutatedClass") or "",
            (node.findtext("mutatedMethod") or "") + (node.findtext("methodDescription") or ""),
            int(node.findtext("lineNumber") or 1),
        )
        index = int(node.findtext("indexes/index") or -1)
        lines.setdefault(key, {}).setdefault(mutator, []).append((index, i))
    out: dict[int, tuple[int, int, str]] = {}
    for (rel, _, _, line), mutants in lines.items():
        out.update(edits(_line(sources[rel], line), mutants))
    return out


def _names(node: ET.Element, tag: str) -> list[str]:
    return [t for t in (node.findtext(tag) or "").split("|") if t]


PIT = Pit()
