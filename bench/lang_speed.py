"""Gates 1-3 on a warm build against the native runner a user would otherwise type, on the same
test file (issue 27 §3; goal: assay ≤ 5× the native runner; python-shop: pytest, for issue 26's
sandbox cost).

    python bench/lang_speed.py [ROW ...] [--runs N]     # rows: see ROWS (default: every row whose
                                                         # toolchain is on PATH)

Per row the project is copied once into `$TMPDIR/assay-bench-lang-speed/<row>` (or
`$LANG_SPEED_WORK/<row>`: two runs side by side must not share a build; files that do not
compile, the examples' `typo` tests, are left out: a user's tree builds), the native command runs
once to warm its build, then `N` times (default 3: the median is printed), then `N` times with the
test file edited before each run (a comment appended, put back after: what a user pays for a new or
edited file, the honest second comparison); `assay verify FILE
--no-cache` with `gates = ["compile", "green", "stability"]` runs once to warm assay's caches and
then `N` times, then `N` times with the file edited as above (nothing kept fits it: a build).
Then `N` times without `--no-cache` on the unedited file (its verdict answered from
assay's cache: assay's fixed cost `F`, what every `assay verify` pays before and around any gate:
the interpreter, imports, config, sandbox probes, cache key). The last column is the gates' own
cost over the native run, `(assay − F) / native`: the reading of the 5× goal where the native run
is below `F` (bench/README.md, "What 5× is measured against").
Wall is the median; CPU is user + system of the process tree (a cpuacct cgroup
where one can be made, else `os.wait4`: bench/cpuacct.py says why), median.
assay runs with bytecode caching on (as installed from a wheel: PYTHONDONTWRITEBYTECODE dropped);
`--assay-src DIR` runs the assay of another checkout (`git archive` of the commit before).
The real projects come from the local caches (no network): google/uuid v1.6.0 and
frankban/quicktest v1.14.6 (it requires go-cmp and kr/pretty) from the Go module cache, semver
1.0.28 from cargo's registry; commons-cli and @fastify/deepmerge from
`bench/languages_mutation.py`'s work directory (run it once with `commons-cli deepmerge`).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cpuacct import Meter

REPO = Path(__file__).resolve().parent.parent
WORK = Path(
    os.environ.get("LANG_SPEED_WORK") or Path(tempfile.gettempdir()) / "assay-bench-lang-speed"
)
MUTATION_WORK = Path(tempfile.gettempdir()) / "assay-bench-languages-mutation"
ASSAY = [sys.executable, "-m", "assay"]
CONFIG = 'gates = ["compile", "green", "stability"]\n'


@dataclass(frozen=True)
class Row:
    name: str
    tool: str  # the executable the row needs on PATH
    source: Callable[[], Path]  # the project to copy
    test: str  # project-relative test file
    native: Callable[[Path, str], list[str]]  # (project, test) -> the native command
    drop: tuple[str, ...] = ()  # project-relative files left out of the copy


def example(name: str) -> Callable[[], Path]:
    return lambda: REPO / "examples" / name


def go_module(path: str) -> Callable[[], Path]:
    def find() -> Path:
        cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True)
        return Path(cache.stdout.strip()) / path

    return find


def crate(name: str) -> Callable[[], Path]:
    def find() -> Path:
        home = os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")
        found = sorted(glob.glob(f"{home}/registry/src/*/{name}"))
        if not found:
            raise SystemExit(f"{name} is not in cargo's registry: `cargo fetch` a crate using it")
        return Path(found[-1])

    return find


def prepared(name: str) -> Callable[[], Path]:
    def find() -> Path:
        path = MUTATION_WORK / name
        if not path.is_dir():
            raise SystemExit(f"{path} is missing: run `python bench/languages_mutation.py {name}`")
        return path

    return find


def pytest_test(root: Path, test: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test]


def go_test(root: Path, test: str) -> list[str]:
    names = re.findall(r"^func (Test\w+)\(", (root / test).read_text(), re.M)
    pkg = "./" + (os.path.dirname(test) or ".")
    return ["go", "test", "-count=1", "-run", "^(" + "|".join(names) + ")$", pkg]


def cargo_test(root: Path, test: str) -> list[str]:
    return ["cargo", "test", "--offline", "-q", "--test", Path(test).stem]


def mvn_test(root: Path, test: str) -> list[str]:
    return ["mvn", "-o", "-q", "test", f"-Dtest={Path(test).stem}"]


def vitest(root: Path, test: str) -> list[str]:
    return ["node_modules/.bin/vitest", "run", test]


def tape(root: Path, test: str) -> list[str]:
    return ["node_modules/.bin/tape", test]


def jest(root: Path, test: str) -> list[str]:
    return ["node_modules/.bin/jest", test]


def mocha(root: Path, test: str) -> list[str]:
    return ["node_modules/.bin/mocha", test]


def checkout(variable: str, repo: str) -> Callable[[], Path]:
    """A clone of `repo` (GitHub) with its dependencies installed (`npm install`), at the path
    the environment variable `variable` names."""

    def find() -> Path:
        path = Path(os.environ.get(variable, ""))
        if not os.environ.get(variable) or not (path / "node_modules").is_dir():
            raise SystemExit(f"${variable}: a clone of {repo} after `npm install`")
        return path

    return find


def npm_package(spec: str, dev: dict[str, str], files: dict[str, str]) -> Callable[[], Path]:
    """A package from npm (`npm pack`, the registry's only network use here) with the dev
    dependencies its tests need installed, and the files its repository has and its tarball
    lacks (a tsconfig); kept in `$LANG_SPEED_WORK/_npm/`."""

    def find() -> Path:
        dest = WORK / "_npm" / spec.replace("/", "+")
        if (dest / "node_modules").is_dir():
            return dest
        dest.mkdir(parents=True, exist_ok=True)
        npm = ["npm", "--no-audit", "--no-fund", "--loglevel=error"]
        subprocess.run([*npm, "pack", spec, "--silent"], cwd=dest, check=True, capture_output=True)
        tarball = next(dest.glob("*.tgz"))
        subprocess.run(["tar", "xzf", tarball.name, "--strip-components=1"], cwd=dest, check=True)
        tarball.unlink()
        pkg = json.loads((dest / "package.json").read_text())
        pkg["devDependencies"] = dev
        (dest / "package.json").write_text(json.dumps(pkg, indent=2))
        for rel, text in files.items():
            (dest / rel).write_text(text)
        subprocess.run([*npm, "install", "--ignore-scripts"], cwd=dest, check=True)
        return dest

    return find


# ts-dedent 2.3.0: jest 30 with ts-jest, as its package.json has them; its repository's tsconfigs
# (not in the tarball) written as its jest config and `moduleNameMapper` need them
TS_DEDENT = npm_package(
    "ts-dedent@2.3.0",
    {"@jest/globals": "^30.4.2", "jest": "^30.4.2", "ts-jest": "^29.4.11", "typescript": "~6.0.3"},
    {
        "tsconfig.json": json.dumps({
            "compilerOptions": {
                "target": "es2019", "module": "node16", "moduleResolution": "node16",
                "strict": True, "esModuleInterop": True, "skipLibCheck": True, "noEmit": True,
                "paths": {"ts-dedent": ["./src/index.ts"]},
            },
            "include": ["src"],
        }),
        "tsconfig.jest.json": json.dumps({
            "compilerOptions": {
                "target": "es2019", "module": "commonjs", "strict": True,
                "esModuleInterop": True, "skipLibCheck": True, "isolatedModules": True,
            },
        }),
    },
)  # fmt: skip


ROWS = {
    r.name: r
    for r in (
        Row("python-shop", "python3", example("shop"), "tests/test_pricing.py", pytest_test),
        Row("go-example", "go", example("go"), "price/price_test.go", go_test,
            ("price/typo_test.go",)),
        Row("go-uuid", "go", go_module("github.com/google/uuid@v1.6.0"), "sql_test.go", go_test),
        Row("go-quicktest", "go", go_module("github.com/frankban/quicktest@v1.14.6"),
            "comment_test.go", go_test),
        Row("rust-example", "cargo", example("rust"), "tests/price.rs", cargo_test,
            ("tests/typo.rs",)),
        Row("rust-semver", "cargo", crate("semver-1.0.28"), "tests/test_version.rs", cargo_test),
        Row("java-example", "mvn", example("java"), "src/test/java/com/acme/PriceTest.java",
            mvn_test, ("src/test/java/com/acme/PriceTypoTest.java",)),
        Row("java-commons-cli", "mvn", prepared("commons-cli"),
            "src/test/java/org/apache/commons/cli/OptionValidatorTest.java", mvn_test),
        Row("ts-example", "node", prepared("ts-example"), "test/price.test.ts", vitest,
            ("test/typo.test.ts",)),
        Row("js-deepmerge", "node", prepared("deepmerge"), "test/mergearray.test.js", tape),
        Row("js-deepmerge-index", "node", prepared("deepmerge"), "test/index.test.js", tape),
        Row("ts-dedent-jest", "node", TS_DEDENT, "src/__tests__/index.spec.ts", jest),
        Row("js-jest-fixture", "node", prepared("jest-good"), "test/price.test.js", jest),
        Row("js-mocha-fixture", "node", lambda: REPO / "tests/languages/fixtures/mocha",
            "test/good.test.js", mocha,
            ("test/order.test.js", "test/wrong.test.js", "test/weak.test.js")),
        Row("js-body-parser-mocha", "node", checkout("BODY_PARSER", "expressjs/body-parser"),
            "test/json.js", mocha),
    )
}  # fmt: skip


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    code: int


METER = Meter()


def timed(argv: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> Sample:
    """One run of `argv`: wall, and CPU of its whole process tree (every process in a cpuacct
    group where one can be made, see cpuacct.py; else the children it waited for)."""
    start = time.monotonic()
    counted = METER.seconds() if METER.group else 0.0
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=METER.join if METER.group else None,
        )
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = METER.seconds() - counted if METER.group else usage.ru_utime + usage.ru_stime
    return Sample(time.monotonic() - start, cpu, proc.returncode)


def setup(row: Row) -> Path:
    dest = WORK / row.name
    if dest.is_dir():
        return dest
    source = row.source()
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns("target", ".assay"))
    for path in [dest, *dest.rglob("*")]:  # the module cache's copies are read-only
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)
    for rel in row.drop:
        (dest / rel).unlink(missing_ok=True)
    (dest / "assay-bench.toml").write_text(CONFIG)
    return dest


def median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.wall for s in samples),
        statistics.median(s.cpu for s in samples),
        max(s.code for s in samples),
    )


def assay_env(src: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = str(src / "src")
    return env


def touched(
    argv: list[str], root: Path, test: str, log: Path, n: int, env: dict[str, str] | None = None
) -> Sample:
    """`argv` after the test file changed (a comment appended, `n` a fresh one each run): what a
    user pays for a new or edited file; the file put back after."""
    path = root / test
    original = path.read_bytes()
    try:
        path.write_bytes(original + f"\n// lang_speed edit {n} {time.time_ns()}\n".encode())
        return timed(argv, root, log, env)
    finally:
        path.write_bytes(original)


@dataclass(frozen=True)
class Measured:
    native: Sample
    native_edited: Sample
    assay: Sample
    assay_edited: Sample
    assay_cached: Sample  # the verdict from assay's cache: its fixed cost F
    verdict: str


def measure(row: Row, runs: int, src: Path | None) -> Measured:
    root = setup(row)
    native = row.native(root, row.test)
    verify = [
        *ASSAY, "verify", row.test, "--root", ".", "--no-cache", "-q",
        "--config", "assay-bench.toml", "-f", "json", "-o", str(WORK / f"{row.name}.json"),
    ]  # fmt: skip
    cached = [a for a in verify if a != "--no-cache"]
    cached[-1] = str(WORK / f"{row.name}.cached.json")
    log = WORK / f"{row.name}.log"
    timed(native, root, log)  # warm the build
    own = [timed(native, root, log) for _ in range(runs)]
    if own[-1].code != 0:
        raise SystemExit(f"{row.name}: {' '.join(native)} failed, see {log}")
    edited = [touched(native, root, row.test, log, n) for n in range(runs)]
    env = assay_env(src)
    timed(verify, root, log, env)  # warm assay's caches
    theirs = [timed(verify, root, log, env) for _ in range(runs)]
    theirs_edited = [touched(verify, root, row.test, log, n, env) for n in range(runs)]
    timed(cached, root, log, env)  # the verdict into assay's cache
    theirs_cached = [timed(cached, root, log, env) for _ in range(runs)]
    verdict = "?"
    report = WORK / f"{row.name}.json"
    if report.is_file():
        found = re.search(r'"verdict":\s*"(\w+)"', report.read_text())
        verdict = found.group(1) if found else "?"
    return Measured(
        median(own),
        median(edited),
        median(theirs),
        median(theirs_edited),
        median(theirs_cached),
        verdict,
    )


def main(argv: list[str]) -> None:
    runs = 3
    if "--runs" in argv:
        i = argv.index("--runs")
        runs = int(argv[i + 1])
        del argv[i : i + 2]
    src = None
    if "--assay-src" in argv:
        i = argv.index("--assay-src")
        src = Path(argv[i + 1]).resolve()
        del argv[i : i + 2]
    names = argv or [n for n, r in ROWS.items() if shutil.which(r.tool)]
    WORK.mkdir(parents=True, exist_ok=True)
    print(f"CPU: {METER.method}", flush=True)
    print(
        "| row | native command | native wall | native CPU | native CPU, file edited | assay wall "
        "| assay CPU | wall ratio | CPU ratio | assay CPU, file edited | CPU ratio, both edited "
        "| assay CPU, from its cache (F) | gates' CPU ratio (assay − F) / native, unedited; "
        "edited | verdict |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        flush=True,
    )
    for name in names:
        row = ROWS[name]
        m = measure(row, runs, src)
        own, edited, theirs, fixed = m.native, m.native_edited, m.assay, m.assay_cached.cpu
        command = " ".join(row.native(WORK / name, row.test)[:3])
        print(
            f"| {name} | `{command}` | {own.wall:.2f} s | {own.cpu:.2f} s | {edited.cpu:.2f} s "
            f"| {theirs.wall:.2f} s | {theirs.cpu:.2f} s | {theirs.wall / own.wall:.1f}× | "
            f"{theirs.cpu / max(own.cpu, 0.01):.1f}× | {m.assay_edited.cpu:.2f} s | "
            f"{m.assay_edited.cpu / max(edited.cpu, 0.01):.1f}× | {fixed:.2f} s | "
            f"{(theirs.cpu - fixed) / max(own.cpu, 0.01):.1f}×; "
            f"{(m.assay_edited.cpu - fixed) / max(edited.cpu, 0.01):.1f}× | {m.verdict} |",
            flush=True,
        )


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    finally:
        METER.close()
