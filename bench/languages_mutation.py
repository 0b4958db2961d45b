"""Gate 4 outside Python against the native tool a user would run by hand, on the same module and
tests: the mutant statuses (same tool, same operators: they must agree) and the wall time of each.

    python bench/languages_mutation.py [--no-native] [ROW ...]
    # rows: java-example, commons-cli, ts-example, deepmerge, side-channel, object-inspect,
    # qs-utils, jest-good, jest-weak (all); --no-native: assay's side alone

Each row is one entry of `ROWS`: where the project comes from, the test file, the source file, and
how the native tool is run directly (outside the sandbox, on a throwaway copy). assay's side is
`assay verify <test> --no-cache` with gates compile, green, mutation; its gate 4 time is the tool's
run inside the sandbox plus the scoring. Needs the network once to prepare the projects (Maven
Central and npm), then runs offline; needs `.ci/toolchains` (PIT in ~/.m2, StrykerJS in assay's
cache). A Rust or Go row is one more entry of `ROWS` with its own `prepare` and `native`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay import api
from assay.mutation.tools import pit, stryker

REPO = Path(__file__).resolve().parent.parent
WORK = Path(
    os.environ.get("LANG_MUTATION_WORK")
    or Path(tempfile.gettempdir()) / "assay-bench-languages-mutation"
)
GATES = ["compile", "green", "mutation"]


@dataclass(frozen=True)
class Row:
    name: str
    language: str
    prepare: Callable[[Path], None]  # writes the project into the empty directory given
    test: str  # project-relative test file
    source: str  # project-relative source file it tests
    native: Callable[[Path, Row], Counter[str]]  # runs the tool by hand; mutant statuses


def sh(argv: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(argv[:4])} failed in {cwd}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return proc


# --- projects -------------------------------------------------------------------------------------


def example(name: str, drop: tuple[str, ...]) -> Callable[[Path], None]:
    def prepare(dest: Path) -> None:
        src = REPO / "examples" / name
        shutil.copytree(
            src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("node_modules", "target")
        )
        for rel in drop:
            (dest / rel).unlink()
        if (src / "package.json").exists():
            sh(
                ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                dest,
            )
        if (src / "pom.xml").exists():
            sh(["mvn", "-B", "-q", "test-compile"], dest)

    return prepare


def commons_cli(dest: Path) -> None:
    """commons-cli 1.9.0's `OptionValidator` and its JUnit 5 test (sources and test sources from
    Maven Central) in a Maven project of their own (commons-parent's build is not needed to run
    them)."""
    m2 = Path.home() / ".m2/repository/commons-cli/commons-cli/1.9.0"
    for classifier in ("sources", "test-sources"):
        sh(
            [
                "mvn",
                "-B",
                "-q",
                "dependency:get",
                f"-Dartifact=commons-cli:commons-cli:1.9.0:jar:{classifier}",
            ],
            dest,
        )
    pkg = "org/apache/commons/cli"
    for jar, base, name in (
        ("sources", "src/main/java", "OptionValidator.java"),
        ("test-sources", "src/test/java", "OptionValidatorTest.java"),
    ):
        (dest / base / pkg).mkdir(parents=True, exist_ok=True)
        sh(
            [
                "unzip",
                "-o",
                "-q",
                str(m2 / f"commons-cli-1.9.0-{jar}.jar"),
                f"{pkg}/{name}",
                "-d",
                str(dest / base),
            ],
            dest,
        )
    pom = (
        (REPO / "examples/java/pom.xml")
        .read_text()
        .replace("<artifactId>price</artifactId>", "<artifactId>cli</artifactId>")
    )
    pom = pom.replace(
        "<artifactId>junit-jupiter</artifactId>\n      <version>5.14.1</version>",
        "<artifactId>junit-jupiter</artifactId>\n      <version>5.14.1</version>",
    )
    (dest / "pom.xml").write_text(pom)
    sh(["mvn", "-B", "-q", "dependency:go-offline", "test-compile"], dest)


def jest_fixture(dest: Path) -> None:
    """The jest project of assay's tests (`tests/languages/fixtures/jest`: `price.js`, a good and a
    weak test), jest 29.7.0 installed from its lockfile."""
    shutil.copytree(REPO / "tests/languages/fixtures/jest", dest, dirs_exist_ok=True, symlinks=True)
    if not (dest / "node_modules/jest").is_dir():
        sh(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], dest)


def deepmerge(dest: Path) -> None:
    """@fastify/deepmerge 3.2.4 from npm with its tape tests; tape installed (its other dev tools
    are linters and coverage)."""
    sh(["npm", "pack", "@fastify/deepmerge@3.2.4", "--silent"], dest)
    sh(["tar", "xzf", "fastify-deepmerge-3.2.4.tgz", "--strip-components=1"], dest)
    (dest / "fastify-deepmerge-3.2.4.tgz").unlink()
    pkg = json.loads((dest / "package.json").read_text())
    pkg["devDependencies"] = {"tape": "^5.9.0"}
    (dest / "package.json").write_text(json.dumps(pkg, indent=2))
    sh(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], dest)


def npm_package(spec: str, dev: dict[str, str]) -> Callable[[Path], None]:
    """An npm package's tarball with the dev dependencies its tests need (`dev`; linters,
    coverage and bundlers left out), installed without scripts."""

    def prepare(dest: Path) -> None:
        sh(["npm", "pack", spec, "--silent"], dest)
        tarball = next(dest.glob("*.tgz"))
        sh(["tar", "xzf", tarball.name, "--strip-components=1"], dest)
        tarball.unlink()
        pkg = json.loads((dest / "package.json").read_text())
        pkg["devDependencies"] = dev
        pkg.pop("scripts", None)
        (dest / "package.json").write_text(json.dumps(pkg, indent=2))
        sh(
            ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
            dest,
        )

    return prepare


def object_inspect(dest: Path) -> None:
    """object-inspect 1.13.4 with its tape tests, which its npm tarball leaves out: from a
    checkout of github.com/inspect-js/object-inspect at v1.13.4 named by OBJECT_INSPECT_SRC."""
    src = os.environ.get("OBJECT_INSPECT_SRC")
    if not src:
        raise SystemExit("object-inspect: set OBJECT_INSPECT_SRC to a checkout at v1.13.4")
    shutil.copytree(src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    pkg = json.loads((dest / "package.json").read_text())
    pkg["devDependencies"] = {
        k: v
        for k, v in pkg["devDependencies"].items()
        if k
        in {
            "core-js",
            "error-cause",
            "es-value-fixtures",
            "for-each",
            "functions-have-names",
            "globalthis",
            "has-symbols",
            "has-tostringtag",
            "make-arrow-function",
            "mock-property",
            "safer-buffer",
            "semver",
            "string.prototype.repeat",
            "tape",
        }
    }
    pkg.pop("scripts", None)
    (dest / "package.json").write_text(json.dumps(pkg, indent=2))
    sh(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], dest)


# --- the native tools, run by hand ----------------------------------------------------------------


def native_pit(root: Path, row: Row) -> Counter[str]:
    work = Path(tempfile.mkdtemp(dir=WORK))
    shutil.copytree(root, work, dirs_exist_ok=True)
    pit._add_plugin(work / "pom.xml")
    for other in (work / "src/test").rglob("*.java"):
        if other.relative_to(work).as_posix() != row.test:
            other.unlink()
    from assay.languages.java_sources import class_name

    cls = class_name((work / row.source).read_text(), row.source)
    test = class_name((work / row.test).read_text(), row.test)
    sh(
        [
            "mvn",
            "-B",
            "-o",
            "-q",
            "test-compile",
            pit.GOAL,
            f"-DtargetClasses={cls},{cls}$*",
            f"-DtargetTests={test}",
            "-DoutputFormats=XML",
            "-DtimestampedReports=false",
            "-DfullMutationMatrix=true",
            f"-Dmutators={pit.MUTATORS}",
            "-DreportsDirectory=target/pit",
        ],
        work,
    )
    text = (work / row.source).read_text()
    _, results = pit.read_mutations(
        work / "target/pit/mutations.xml", {row.source: text}, {cls: row.source}, {test: row.test}
    )
    shutil.rmtree(work)
    return Counter(r.status.value for r in results.values())


def native_stryker(root: Path, row: Row) -> Counter[str]:
    work = Path(tempfile.mkdtemp(dir=WORK))
    shutil.copytree(root, work, dirs_exist_ok=True, symlinks=True)
    for other in (work / "test").rglob("*"):
        if other.is_file() and other.relative_to(work).as_posix() != row.test:
            other.unlink()
    deps = json.loads((work / "package.json").read_text()).get("devDependencies", {})
    config: dict[str, object] = {
        "mutate": [row.source],
        "reporters": ["json"],
        "jsonReporter": {"fileName": "m.json"},
        # as assay does: Stryker is installed outside the project, where its sandbox copy's tsconfig
        # rewrite cannot resolve the project's packages
        "inPlace": True,
        "concurrency": 2,
        "logLevel": "error",
    }
    if "vitest" in deps:
        config |= {
            "testRunner": "vitest",
            "coverageAnalysis": "perTest",
            "vitest": {"related": False},
            "plugins": [
                str(
                    stryker.home() / "node_modules/@stryker-mutator/vitest-runner/dist/src/index.js"
                )
            ],
        }
    elif "jest" in deps:
        config |= {
            "testRunner": "jest",
            "coverageAnalysis": "perTest",
            # inPlace backs the originals up under .stryker-tmp/, which jest would run too
            "jest": {"config": {"testPathIgnorePatterns": ["/node_modules/", "/\\.stryker-tmp/"]}},
            "plugins": [
                str(stryker.home() / "node_modules/@stryker-mutator/jest-runner/dist/src/index.js")
            ],
        }
    else:
        config |= {
            "testRunner": "command",
            "coverageAnalysis": "off",
            "commandRunner": {"command": f"node --test {row.test}"},
        }
    (work / "stryker.json").write_text(json.dumps(config))
    sh(
        [
            "node",
            str(stryker.home() / "node_modules/@stryker-mutator/core/bin/stryker.js"),
            "run",
            "stryker.json",
        ],
        work,
    )
    data = json.loads((work / "m.json").read_text())
    shutil.rmtree(work)
    return Counter(m["status"] for f in data["files"].values() for m in f["mutants"])


ROWS = [
    Row(
        "java-example",
        "java",
        example(
            "java",
            (
                "src/test/java/com/acme/PriceTypoTest.java",
                "src/test/java/com/acme/PriceFlakyTest.java",
                "src/test/java/com/acme/PriceWrongTest.java",
                "src/test/java/com/acme/PriceWeakTest.java",
            ),
        ),
        "src/test/java/com/acme/PriceTest.java",
        "src/main/java/com/acme/Price.java",
        native_pit,
    ),
    Row(
        "commons-cli",
        "java",
        commons_cli,
        "src/test/java/org/apache/commons/cli/OptionValidatorTest.java",
        "src/main/java/org/apache/commons/cli/OptionValidator.java",
        native_pit,
    ),
    Row(
        "ts-example",
        "typescript",
        example(
            "ts",
            ("test/typo.test.ts", "test/flaky.test.ts", "test/wrong.test.ts", "test/weak.test.ts"),
        ),
        "test/price.test.ts",
        "src/price.ts",
        native_stryker,
    ),
    Row(
        "deepmerge", "javascript", deepmerge, "test/mergearray.test.js", "index.js", native_stryker
    ),
    Row(
        "side-channel",
        "javascript",
        npm_package("side-channel@1.1.1", {"tape": "^5.9.0"}),
        "test/index.js",
        "index.js",
        native_stryker,
    ),
    Row(
        "object-inspect",
        "javascript",
        object_inspect,
        "test/quoteStyle.js",
        "index.js",
        native_stryker,
    ),
    Row(
        "qs-utils",
        "javascript",
        npm_package(
            "qs@6.17.1",
            {
                "es-value-fixtures": "^1.7.1",
                "for-each": "^0.3.5",
                "has-bigints": "^1.1.0",
                "has-override-mistake": "^1.0.1",
                "has-property-descriptors": "^1.0.2",
                "has-proto": "^1.2.0",
                "has-symbols": "^1.1.0",
                "iconv-lite": "^0.5.2",
                "mock-property": "^1.1.2",
                "object-inspect": "^1.13.4",
                "safer-buffer": "^2.1.2",
                "tape": "^5.9.0",
            },
        ),
        "test/utils.js",
        "lib/utils.js",
        native_stryker,
    ),
    Row(
        "jest-good",
        "javascript",
        jest_fixture,
        "test/price.test.js",
        "src/price.js",
        native_stryker,
    ),
    Row(
        "jest-weak", "javascript", jest_fixture, "test/weak.test.js", "src/price.js", native_stryker
    ),
]


def measure(row: Row, native_too: bool = True) -> dict[str, object]:
    root = WORK / row.name
    if not root.exists():
        root.mkdir(parents=True)
        row.prepare(root)
    start = time.monotonic()
    native = row.native(root, row) if native_too else Counter()
    native_s = time.monotonic() - start
    start = time.monotonic()
    report = api.verify([root / row.test], root=root, use_cache=False, overrides={"gates": GATES})
    verify_s = time.monotonic() - start
    f = report.files[0]
    gate = next((g for g in f.gates if g.gate == "mutation"), None)
    mine: Counter[str] = Counter()
    if gate is not None and "killed" in gate.details:
        for status in (
            "Killed",
            "Survived",
            "NoCoverage",
            "Timeout",
            "RuntimeError",
            "CompileError",
        ):
            key = {
                "NoCoverage": "no_coverage",
                "RuntimeError": "runtime_error",
                "CompileError": "compile_error",
            }.get(status, status.lower())
            if gate.details.get(key):
                mine[status] = gate.details[key]
    return {
        "row": row.name,
        "verdict": f"{f.verdict.value}" + (f"@{f.rejected_at}" if f.rejected_at else ""),
        "native": dict(native),
        "assay": dict(mine),
        "same": +native == +mine if native_too else None,
        "score": gate.details.get("score") if gate is not None else None,
        "native_s": native_s,
        "gate4_s": gate.duration_s if gate else None,
        "verify_s": verify_s,
        "why": "" if gate is None or "killed" in gate.details else gate.feedback[:300],
    }


def main() -> None:
    WORK.mkdir(exist_ok=True)
    args = sys.argv[1:]
    native_too = "--no-native" not in args  # assay's side alone (before/after a change)
    wanted = [a for a in args if not a.startswith("--")] or [r.name for r in ROWS]
    print(
        "| project | tool | native statuses | assay gate 4 statuses | same | native wall "
        "| assay gate 4 | assay verify (gates 1, 2, 4) | verdict |"
    )
    print("|---|---|---|---|---|---:|---:|---:|---|")
    for row in ROWS:
        if row.name not in wanted:
            continue
        r = measure(row, native_too)
        tool = "PIT" if row.language == "java" else "StrykerJS"
        fmt = lambda c: ", ".join(f"{k} {v}" for k, v in sorted(c.items()))  # noqa: E731
        gate4 = "-" if r["gate4_s"] is None else f"{r['gate4_s']:.1f} s"
        print(
            f"| {row.name} | {tool} | {fmt(r['native'])} | {fmt(r['assay'])} "
            f"| {'-' if r['same'] is None else 'yes' if r['same'] else 'NO'} "
            f"| {r['native_s']:.1f} s | {gate4} | {r['verify_s']:.1f} s "
            f"| {r['verdict']} ({r['score']} %) |",
            flush=True,
        )
        if r["why"]:
            print(f"  {row.name}: {r['why']}")


if __name__ == "__main__":
    main()
