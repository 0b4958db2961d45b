"""`assay generate` on a Java, Go, Rust and TypeScript project: the real CLI against the fake OpenAI
server, real toolchains. The writer's first answer does not compile; the compiler's error goes back
in the revision prompt; the second answer compiles and passes; the file is written where the
language's layout wants it and passes the project's own test runner, and nothing else in the project
changed. The four runs, and one without a toolchain on PATH, start together: their toolchains mostly
wait on process start-up."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.languages import junit_launcher
from tests.conftest import REPO, run_cli, tree_digest
from tests.generate.conftest import llm_env
from tests.generate.fakes import FakeServer, Reply, Request

pytestmark = pytest.mark.slow
# Gate 3 reruns the file once: an answer here holds one test, which another order or a run alone
# would only repeat.
SETTINGS = "[stability]\nreruns = 1\nrandom_order = false\nisolation = false\n"
JAVA_HEAD = (
    "package com.acme;\n\nimport org.junit.jupiter.api.Test;\n\nimport "
    "static org.junit.jupiter.api.Assertions"
    ".assertEquals;\n\nclass PriceAssayTest {\n    @Test\n    void discountHalvesThePrice() {\n"
)


# languages whose gate 4 runs a tool (`assay.mutation.tools`)
MUTATED = ("java", "typescript", "go", "rust")
GATES_BUT_MUTATION = ["compile", "green", "stability", "smells"]


@dataclass
class Case:
    example: str
    # of the example, copied: the build file, the source, one test as the style example
    files: tuple[str, ...]
    source: str  # the target
    planned: str  # where the file must be written
    first: str  # an answer that does not compile
    error: str  # the compiler's error line, as it must come back to the writer
    second: str  # the repaired answer
    # what the first prompt must say: framework, how to import, the style example
    facts: tuple[str, ...]
    check: tuple[str, ...]  # the project's own test runner on the written file


CASES = {
    "go": Case(
        "go",
        ("go.mod", "price/price.go", "price/price_test.go"),
        "price/price.go",
        "price/price_assay_test.go",
        'package price\n\nimport "testing"\n\nfunc TestDiscountHalves(t *testing.T) {\n'
        '\tvar got string = Discount(100, 50)\n\tif got != "50" {\n\t\tt.Fatal(got)\n\t}\n}\n',
        "price/price_assay_test.go:8: cannot use Discount(100, "
        "50) (value of type int) as string value",
        'package price\n\nimport "testing"\n\nfunc TestDiscountHalves(t *testing.T) {\n'
        "\tif got := Discount(100, 50); "
        'got != 50 {\n\t\tt.Fatalf("Discount(100, 50) = %d; want 50", got)\n'
        "\t}\n}\n",
        ("Go's testing package", "starts with `package price`", "// price/price_test.go"),
        ("go", "test", "-count=1", "-run", "TestDiscountHalves", "./price"),
    ),
    "rust": Case(
        "rust",
        ("Cargo.toml", "Cargo.lock", "src/lib.rs", "tests/price.rs"),
        "src/lib.rs",
        "tests/price_assay.rs",
        "use price::discount;\n\n#[test]\nfn discount_halves() "
        "{\n    let got: String = discount(100, 50);\n"
        '    assert_eq!(got, "50");\n}\n',
        "tests/price_assay.rs:7: error[E0308]: mismatched types: expected `String`, found `i64`",
        "use price::discount;\n\n#[test]\nfn discount_halves() "
        "{\n    assert_eq!(discount(100, 50), 50);\n}\n",
        ("#[test]", "integration test of crate `price`", "// tests/price.rs"),
        ("cargo", "test", "--offline", "-q", "--test", "price_assay"),
    ),
    # javac + the JUnit console launcher, below: a Maven start costs more than the whole run
    "java": Case(
        "java",
        ("pom.xml", "src/main/java/com/acme/Price.java", "src/test/java/com/acme/PriceTest.java"),
        "src/main/java/com/acme/Price.java",
        "src/test/java/com/acme/PriceAssayTest.java",
        JAVA_HEAD
        + '        String got = Price.discount(100, 50);\n        assertEquals("50", got);\n'
        "    }\n}\n",
        # javac's own words: the candidate is compiled alone against the warm build (Maven's
        # compiler plugin said `java.lang.String`)
        "src/test/java/com/acme/PriceAssayTest.java:12: "
        "incompatible types: int cannot be converted to String",
        JAVA_HEAD + "        assertEquals(50, Price.discount(100, 50));\n    }\n}\n",
        (
            "JUnit 5",
            "`PriceAssayTest` in `package com.acme;`",
            "// src/test/java/com/acme/PriceTest.java",
        ),
        (),
    ),
    "typescript": Case(
        "ts",
        ("package.json", "tsconfig.json", "src/price.ts", "test/price.test.ts"),
        "src/price.ts",
        "test/price.assay.test.ts",
        'import { expect, it } from "vitest";\nimport { discount } from "../src/price";\n\n'
        'it("halves", () => {\n  const got: '
        'string = discount(100, 50);\n  expect(got).toBe("50");\n'
        "});\n",
        "test/price.assay.test.ts:7: TS2322: Type 'number' is not assignable to type 'string'.",
        'import { expect, it } from "vitest";\nimport { discount } from "../src/price";\n\n'
        'it("halves", () => {\n  expect(discount(100, 50)).toBe(50);\n});\n',
        ("vitest", 'import the code under test as "../src/price"', "// test/price.test.ts"),
        ("node_modules/.bin/vitest", "run", "test/price.assay.test.ts"),
    ),
}


@dataclass
class Run:
    root: Path
    proc: subprocess.CompletedProcess
    report: dict
    requests: list[Request]
    seconds: float
    check: subprocess.CompletedProcess | None = None
    # files of the project that differ after the run (.assay, assay's cache, aside)
    changed: list[str] | None = None


def copy(case: Case, dest: Path) -> Path:
    """The example's build file, target and one test; the TypeScript one's node_modules linked,
    never copied."""
    for rel in case.files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "examples" / case.example / rel, dest / rel)
    if case.example == "ts":
        (dest / "node_modules").symlink_to(REPO / "examples" / "ts" / "node_modules")
    (dest / "assay.toml").write_text(SETTINGS)
    return dest


def java_check(root: Path) -> subprocess.CompletedProcess:
    jar = junit_launcher.launcher([])
    assert jar is not None, "the JUnit console launcher is not in ~/.m2: run .ci/toolchains"
    out = root.parent / "java-classes"
    built = subprocess.run(
        [
            "javac",
            "-d",
            str(out),
            "-cp",
            str(jar),
            "src/main/java/com/acme/Price.java",
            CASES["java"].planned,
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if built.returncode:
        return built
    return subprocess.run(
        [
            "java",
            "-jar",
            str(jar),
            "execute",
            "-cp",
            str(out),
            "--select-class",
            "com.acme.PriceAssayTest",
            "--disable-banner",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(
        k
        for k in before.keys() | after.keys()
        if before.get(k) != after.get(k) and not k.startswith((".assay/", "node_modules"))
    )


def generate(lang: str, base: Path, name: str | None = None, settings: str = "") -> Run:
    """One `assay generate` run; with `settings`, a run whose writer never gets it to compile (no
    check after)."""
    case = CASES[lang]
    root = copy(case, base / (name or lang))
    if settings:
        (root / "assay.toml").write_text(settings + SETTINGS)
    elif lang in MUTATED:  # the repair loop is under test here, not PIT, StrykerJS... (a minute)
        (root / "assay.toml").write_text(f"gates = {json.dumps(GATES_BUT_MUTATION)}\n" + SETTINGS)
    before = tree_digest(root)

    def script(req: Request) -> Reply:
        answer = case.second if "was not accepted" in req.user and not settings else case.first
        return Reply(
            f"```{'ts' if lang == 'typescript' else lang}\n{answer}```\n\nRationale: "
            f"halves a price\n"
        )

    with FakeServer("openai", script) as server:
        start = time.monotonic()
        out = base / f"{name or lang}.json"
        proc = run_cli(
            "generate",
            case.source,
            "--writer",
            "openai:m",
            "-f",
            "json",
            "-o",
            str(out),
            "-q",
            cwd=root,
            env=llm_env(server.url),
        )
        seconds = time.monotonic() - start
    report = json.loads(out.read_text()) if proc.returncode in (0, 1) else {}
    changed = changes(before, tree_digest(root))
    if settings:
        return Run(root, proc, report, server.requests, seconds, None, changed)
    env = {**os.environ, "CARGO_TARGET_DIR": str(base / "cargo-target")}
    check = (
        java_check(root)
        if lang == "java"
        else subprocess.run(list(case.check), cwd=root, capture_output=True, text=True, env=env)
    )
    return Run(root, proc, report, server.requests, seconds, check, changed)


def without_toolchain(base: Path) -> Run:
    """The Go project with a PATH that holds no `go`."""
    root = copy(CASES["go"], base / "no-go")
    (base / "empty-bin").mkdir()
    with FakeServer("openai", lambda req: Reply("never asked")) as server:
        start = time.monotonic()
        proc = run_cli(
            "generate",
            "price/price.go",
            "--writer",
            "openai:m",
            "-q",
            "-f",
            "json",
            cwd=root,
            env={**llm_env(server.url), "PATH": str(base / "empty-bin")},
        )
    report = json.loads(proc.stdout) if proc.returncode in (0, 1) else {}
    return Run(root, proc, report, server.requests, time.monotonic() - start)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Run]:
    base = tmp_path_factory.mktemp("generate-languages")
    with ThreadPoolExecutor(max_workers=len(CASES) + 1) as pool:
        futures = {lang: pool.submit(generate, lang, base) for lang in CASES}
        futures["no-go"] = pool.submit(without_toolchain, base)
        futures["bounded"] = pool.submit(
            generate, "rust", base, "bounded", "max_compile_retries = 1\n"
        )
        return {lang: f.result(timeout=280) for lang, f in futures.items()}


@pytest.mark.parametrize("lang", list(CASES))
def test_compile_error_goes_back_and_the_repaired_file_is_written(runs, lang):
    run, case = runs[lang], CASES[lang]
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    target = run.report["targets"][0]
    assert (target["outcome"], target["output"]) == ("accepted", case.planned), target["note"]
    # one write, one revision: nothing more was asked
    first, second = (r.user for r in run.requests)
    assert all(fact in first for fact in case.facts), first
    assert case.error in second, second  # the compiler's own line, compact, in the revision prompt
    attempts = [
        (a["kind"], a["rejected_at"], a["gates"].get("mutation")) for a in target["attempts"]
    ]
    mutation = None if lang in MUTATED else "skip"
    assert attempts == [("write", "compile", None), ("revise", None, mutation)]
    # header, the error, the hint: no build noise
    assert target["attempts"][0]["feedback_lines"] <= 5
    # a gate that could not judge stays visible
    if lang not in MUTATED:
        assert target["note"].startswith("not measured: mutation")
    written = (run.root / case.planned).read_text()
    assert written == "// Generated by assay\n\n" + case.second == target["source"]
    # candidates lived in the scratch copy; one new file, nothing else
    assert run.changed == [case.planned]
    assert run.check.returncode == 0, run.check.stdout[-2000:] + run.check.stderr[-2000:]


def test_missing_toolchain_is_one_line_and_costs_no_tokens(runs):
    """No `go` on PATH: the target is `unvalidated` with the reason and the fix, before any
    model call."""
    run = runs["no-go"]
    assert run.proc.returncode == 1 and "Traceback" not in run.proc.stderr, run.proc.stderr
    target = run.report["targets"][0]
    assert target["outcome"] == "unvalidated" and not run.requests and not target["attempts"]
    assert target["note"].startswith("Go toolchain missing: `go` not found on PATH: install Go"), (
        target["note"]
    )
    assert "\n" not in target["note"] and not (run.root / "price/price_assay_test.go").exists()


def test_compile_retries_are_bounded_by_max_compile_retries(runs):
    """A writer that never gets the types right: one retry after the compile reject, then the target
    ends, although `max_attempts` (3) would allow another answer; nothing is written."""
    run = runs["bounded"]
    target = run.report["targets"][0]
    assert run.proc.returncode == 1 and len(run.requests) == 2
    assert [(a["kind"], a["rejected_at"]) for a in target["attempts"]] == [
        ("write", "compile"),
        ("revise", "compile"),
    ]
    assert (target["outcome"], target["note"]) == (
        "rejected",
        "nothing kept after 2 answers; last rejected at compile",
    )
    assert run.changed == []
