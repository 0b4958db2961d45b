"""Precision of the polyglot smell rules (AP001-AP006) on the human test suites of real projects:
findings per 1,000 tests, per project and rule, and every reject-level finding to read by hand.

    .venv/bin/python bench/polyglot_precision.py [LANG ...] [--assay-src DIR] [--tag after]

Each project is a pinned version fetched with its ecosystem's own client, once, into
bench/.cache/polyglot: Go modules with `go mod download`, crates with `cargo fetch` (a throwaway
crate depending on them), Java test sources jars with `mvn dependency:get` (classifier
`test-sources`), npm packages that ship their tests with `npm pack`. The real `assay smells
--format json` CLI runs on each project's test files; tests are counted as the rules see them
(one per `@Test` method, `func TestX`, `#[test]`, `it`/`test` call). The goal (issue 27 §4): at most
10 reject-level findings per 1,000 tests, each of them true. `--assay-src DIR` runs another
checkout's assay (a `git archive` of main) for the "before" figures; results go to
bench/.cache/polyglot_precision-<tag>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache" / "polyglot"
CLIENT = {"go": "go", "rust": "cargo", "java": "mvn", "js": "npm"}


def sh(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.strip()[-400:]}")
    return proc.stdout


def go_module(path: str, version: str) -> Callable[[], Path]:
    def fetch() -> Path:
        out = sh(["go", "mod", "download", "-json", f"{path}@{version}"], CACHE)
        return Path(json.loads(out)["Dir"])

    return fetch


def crate(name: str, version: str) -> Callable[[], Path]:
    def fetch() -> Path:
        home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
        found = sorted(home.glob(f"registry/src/*/{name}-{version}"))
        if not found:
            work = CACHE / f"fetch-{name}"
            (work / "src").mkdir(parents=True, exist_ok=True)
            (work / "src/lib.rs").touch()
            (work / "Cargo.toml").write_text(
                f'[package]\nname = "fetch-only"\nversion = "0.0.0"\nedition = "2021"\n'
                f'[dependencies]\n{name} = "={version}"\n'
            )
            sh(["cargo", "fetch", "-q"], work)
            found = sorted(home.glob(f"registry/src/*/{name}-{version}"))
        return found[0]

    return fetch


def maven_tests(group: str, artifact: str, version: str) -> Callable[[], Path]:
    def fetch() -> Path:
        dest = CACHE / f"{artifact}-{version}-tests"
        if not dest.exists():
            coords = f"{group}:{artifact}:{version}:jar:test-sources"
            sh(["mvn", "-B", "-q", "dependency:get", f"-Dartifact={coords}",
                "-Dtransitive=false"], CACHE)  # fmt: skip
            jar = (
                Path.home() / ".m2/repository" / group.replace(".", "/") / artifact / version
            ) / f"{artifact}-{version}-test-sources.jar"
            with zipfile.ZipFile(jar) as zf:
                zf.extractall(dest / "src/test/java")
        return dest

    return fetch


def npm_package(spec: str) -> Callable[[], Path]:
    def fetch() -> Path:
        dest = CACHE / spec.replace("/", "+")
        if not dest.exists():
            tgz = sh(["npm", "pack", spec, "--silent"], CACHE).strip().splitlines()[-1]
            with tarfile.open(CACHE / tgz) as tf:
                tf.extractall(dest, filter="data")
            (CACHE / tgz).unlink()
        return dest / "package"

    return fetch


@dataclass(frozen=True)
class Project:
    lang: str  # go, rust, java, js (JavaScript and TypeScript share their rules)
    name: str
    fetch: Callable[[], Path]
    tests: tuple[str, ...]  # globs of the test files under the project root


GO = ("**/*_test.go",)
RUST = ("tests/**/*.rs", "src/**/*.rs")
JAVA = ("src/test/java/**/*.java",)
JS = ("test/**/*.js", "test/**/*.mjs", "test/**/*.cjs", "test/**/*.ts")
PROJECTS = (
    Project("go", "google/uuid v1.6.0", go_module("github.com/google/uuid", "v1.6.0"), GO),
    Project("go", "spf13/cast v1.7.1", go_module("github.com/spf13/cast", "v1.7.1"), GO),
    Project("go", "gorilla/mux v1.8.1", go_module("github.com/gorilla/mux", "v1.8.1"), GO),
    Project("go", "spf13/pflag v1.0.5", go_module("github.com/spf13/pflag", "v1.0.5"), GO),
    Project("go", "pkg/errors v0.9.1", go_module("github.com/pkg/errors", "v0.9.1"), GO),
    Project(
        "go", "stretchr/testify v1.9.0", go_module("github.com/stretchr/testify", "v1.9.0"), GO
    ),
    Project(
        "go",
        "mitchellh/mapstructure v1.5.0",
        go_module("github.com/mitchellh/mapstructure", "v1.5.0"),
        GO,
    ),
    Project("go", "google/go-cmp v0.6.0", go_module("github.com/google/go-cmp", "v0.6.0"), GO),
    Project("rust", "semver 1.0.28", crate("semver", "1.0.28"), RUST),
    Project("rust", "hex 0.4.3", crate("hex", "0.4.3"), RUST),
    Project("rust", "serde_json 1.0.149", crate("serde_json", "1.0.149"), RUST),
    Project("rust", "strsim 0.11.1", crate("strsim", "0.11.1"), RUST),
    Project("rust", "itertools 0.13.0", crate("itertools", "0.13.0"), RUST),
    Project("rust", "glob 0.3.1", crate("glob", "0.3.1"), RUST),
    Project("rust", "either 1.13.0", crate("either", "1.13.0"), RUST),
    Project("rust", "smallvec 1.13.2", crate("smallvec", "1.13.2"), RUST),
    Project("rust", "heck 0.5.0", crate("heck", "0.5.0"), RUST),
    Project("java", "commons-cli 1.9.0", maven_tests("commons-cli", "commons-cli", "1.9.0"), JAVA),
    Project(
        "java",
        "commons-codec 1.17.1",
        maven_tests("commons-codec", "commons-codec", "1.17.1"),
        JAVA,
    ),
    Project(
        "java",
        "commons-text 1.12.0",
        maven_tests("org.apache.commons", "commons-text", "1.12.0"),
        JAVA,
    ),
    Project(
        "java",
        "commons-lang3 3.17.0",
        maven_tests("org.apache.commons", "commons-lang3", "3.17.0"),
        JAVA,
    ),
    Project("js", "fastify 5.2.1", npm_package("fastify@5.2.1"), JS),
    Project("js", "@fastify/deepmerge 3.2.4", npm_package("@fastify/deepmerge@3.2.4"), JS),
    Project("js", "qs 6.14.0", npm_package("qs@6.14.0"), JS),
    Project("js", "light-my-request 6.5.1", npm_package("light-my-request@6.5.1"), JS),
    Project("js", "@fastify/error 4.2.1", npm_package("@fastify/error@4.2.1"), JS),
    Project("js", "minimist 1.2.8", npm_package("minimist@1.2.8"), JS),
)


def test_files(root: Path, globs: tuple[str, ...]) -> list[Path]:
    files = {p for g in globs for p in root.glob(g) if p.is_file()}
    return sorted(p for p in files if "node_modules" not in p.parts)


def count_tests(files: list[Path], root: Path) -> int:
    """Test cases as the rules see them, with the same parser and case finder."""
    from assay.languages import language_of
    from assay.smells.polyglot import LANGUAGES, family
    from assay.smells.polyglot.syntax import parser

    n = 0
    for f in files:
        lang = language_of(f, root)
        if lang is None or lang.name not in LANGUAGES or lang.smells is None:
            continue
        rel = str(f.relative_to(root))
        ts = parser(lang.smells.grammar_for(rel))
        if ts is None:
            continue
        tree = ts.parse(f.read_bytes())
        n += len(family(lang.smells.rules).cases(tree.root_node, rel))
    return n


def run_smells(root: Path, files: list[Path], src: str | None) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=src) if src else None
    args = [sys.executable, "-m", "assay", "smells", "--root", str(root), "--format", "json"]
    proc = subprocess.run([*args, *map(str, files)], capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"assay smells failed ({proc.returncode}): {proc.stderr[-600:]}")
    findings: list[dict] = json.loads(proc.stdout)["findings"]
    return findings


def measure(projects: list[Project], src: str | None) -> dict[str, dict]:
    CACHE.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {}
    for p in projects:
        root = p.fetch()
        files = test_files(root, p.tests)
        results[p.name] = {
            "lang": p.lang,
            "root": str(root),
            "files": len(files),
            "tests": count_tests(files, root),
            "findings": run_smells(root, files, src),
        }
    return results


def _per_k(n: int, tests: int) -> str:
    return f"{1000 * n / tests:.1f}" if tests else "-"


def _by_rule(findings: list[dict]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(Counter(f["rule"] for f in findings).items()))


def table(results: dict[str, dict]) -> None:
    print("| language | project | test files | tests | reject | per 1,000 | reject by rule "
          "| warn by rule |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---|---|")
    for lang in dict.fromkeys(e["lang"] for e in results.values()):
        tests = rejects = 0
        for name, e in results.items():
            if e["lang"] != lang:
                continue
            r = [f for f in e["findings"] if f["level"] == "reject"]
            w = [f for f in e["findings"] if f["level"] == "warn"]
            tests, rejects = tests + e["tests"], rejects + len(r)
            print(f"| {lang} | {name} | {e['files']} | {e['tests']} | {len(r)} "
                  f"| {_per_k(len(r), e['tests'])} | {_by_rule(r)} | {_by_rule(w)} |")  # fmt: skip
        print(f"| **{lang}** | all | | {tests} | {rejects} | {_per_k(rejects, tests)} | | |")


def listing(results: dict[str, dict], context: int) -> None:
    """Every reject finding with the first lines of its test: each must be a true positive."""
    print("\nreject findings (read each):")
    for name, e in results.items():
        for f in e["findings"]:
            if f["level"] != "reject":
                continue
            try:
                lines = (Path(e["root"]) / f["path"]).read_text().splitlines()
            except (OSError, UnicodeDecodeError):
                lines = []
            shown = " | ".join(x.strip() for x in lines[f["line"] - 1 : f["line"] - 1 + context])
            print(f"  {name}: {f['path']}:{f['line']} {f['rule']} {f['test']}: {f['message']}")
            print(f"      {shown[:400]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("langs", nargs="*", help="go, rust, java, js (default: all)")
    ap.add_argument("--assay-src", help="another checkout's src/ to run instead")
    ap.add_argument("--tag", default="after")
    ap.add_argument("--project", action="append", help="only projects whose name contains this")
    ap.add_argument("--context", type=int, default=1, help="lines of each finding to print")
    args = ap.parse_args()
    projects = [
        p
        for p in PROJECTS
        if (not args.langs or p.lang in args.langs)
        and (not args.project or any(x in p.name for x in args.project))
    ]
    for lang in dict.fromkeys(p.lang for p in projects):
        if shutil.which(CLIENT[lang]) is None:
            raise SystemExit(f"{CLIENT[lang]} is not on PATH (needed for the {lang} projects)")
    results = measure(projects, args.assay_src)
    (CACHE.parent / f"polyglot_precision-{args.tag}.json").write_text(json.dumps(results, indent=1))
    table(results)
    listing(results, args.context)


if __name__ == "__main__":
    main()
