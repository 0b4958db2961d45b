"""Rust: cargo-mutants, run `--in-place` in the scratch copy (never the user's tree) inside assay's
sandbox with the Rust profile (offline, the real CARGO_HOME read-only, the workspace's warm target
dir), scoped with `--file` to the targets and, for a line scope, `--re` to the exact mutant names,
its tests scoped to the candidate's test target; `mutants.out/outcomes.json` read back.

The mutants come from `--list --json` first (no build), so a mutant that never ran still shows in
the report; cargo-mutants reports no per-test kills, so a killed mutant counts every passing test of
the file as its killer (as Stryker's command runner does), never none of them. Unviable mutants
(they do not compile) are CompileError: not counted, as in Stryker's schema; but a proc macro's
mutant that builds and breaks the test's build was caught by the test (`broke_a_test`). At gate 4
the scope is what the tests run (`cargo_coverage`): the mutants of functions they never run are
out of it and never built.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from assay._assay_sandbox.mutation.protocol import Status
from assay.config import tomllib
from assay.languages.rust import RUST
from assay.languages.rust_modules import crate_files
from assay.languages.rust_warm import warm_target
from assay.languages.tooling import nearest, under
from assay.languages.warm import seed
from assay.mutation.model import Mutant, MutantResult, MutationResult
from assay.mutation.tools import cargo_coverage
from assay.mutation.tools.base import ToolRequest
from assay.mutation.tools.scratch_run import (
    ScratchDirs,
    ToolFailed,
    ended,
    offset,
    run_tool,
    touched_lines,
)

SUMMARY = {
    "CaughtMutant": Status.KILLED,
    "MissedMutant": Status.SURVIVED,
    "Timeout": Status.TIMEOUT,
    "Unviable": Status.COMPILE_ERROR,
}
PER_MUTANT_TIMEOUT_S = 20


def executable() -> str | None:
    """cargo-mutants on PATH or in CARGO_HOME/bin (where `cargo install` puts it)."""
    home = os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")
    return shutil.which("cargo-mutants") or shutil.which(
        "cargo-mutants", path=str(Path(home) / "bin")
    )


def _cargo_env() -> dict[str, str]:
    env = {}
    for name, default in (("CARGO_HOME", "~/.cargo"), ("RUSTUP_HOME", "~/.rustup")):
        value = os.environ.get(name) or os.path.expanduser(default)
        if os.path.isdir(value):
            env[name] = value
    return env


def mutants_target(request: ToolRequest, crate: str, cache: Path) -> Path:
    """cargo-mutants' own target dir in the workspace, a copy of gates 1-3's (dependencies built):
    a mutant's library built into theirs would look fresh to cargo once the workspace's reset puts
    the source back with its old mtime, and the next candidate would run against the mutant.
    Gates 1-3 build nothing when they reuse a kept test binary: the crate's warm build first."""
    if request.workspace is not None:
        runner = RUST.runner(request.sandbox, request.project, request.settings)
        warm_target(runner, request.workspace, crate)
    target = cache / "cargo-mutants-target"
    seed(cache, "cargo-target", target)  # once per workspace; nothing to copy: cargo builds it
    return target


def selection(crate: str, test_rel: str) -> tuple[list[str], list[str]]:
    """(cargo's target selection, libtest's name filter) that build and run only the candidate's
    tests: its integration-test target, or the library's tests under the candidate module's path.
    The selection goes to every cargo command (a broken sibling test target is never built)."""
    inner = PurePosixPath(under(crate, test_rel))
    if inner.parts[0] == "tests" and len(inner.parts) == 2:
        return ["--test", inner.stem], []
    if inner.parts[0] == "src":
        parts = list(inner.with_suffix("").parts[1:])
        if parts and parts[-1] in ("lib", "main", "mod"):
            parts.pop()
        return ["--lib"], (["::".join(parts)] if parts else [])
    return [], []


def tests_selection(crate: str, tests: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """`selection` of every test file, in one cargo command's arguments."""
    chosen: list[str] = []
    filters: list[str] = []
    for test in tests:
        c, f = selection(crate, test)
        chosen += c
        filters += f
    return chosen, filters


def _key(m: dict[str, Any]) -> tuple:
    span = m.get("span") or {}
    start, end = span.get("start") or {}, span.get("end") or {}
    return (
        m.get("file"),
        start.get("line"),
        start.get("column"),
        end.get("line"),
        end.get("column"),
        m.get("replacement"),
        m.get("genre"),
    )


def mutant_name(m: dict[str, Any]) -> str:
    """The name cargo-mutants prints and `--re` matches: `file:line:col: replace X with Y in f`."""
    if m.get("name"):
        return str(m["name"])
    span = (m.get("span") or {}).get("start") or {}
    return f"{m.get('file')}:{span.get('line')}:{span.get('column')}"


def to_mutant(m: dict[str, Any], crate: str, sources: dict[str, str], index: int) -> Mutant:
    rel = (PurePosixPath(crate) / m["file"]).as_posix() if crate != "." else m["file"]
    text = sources.get(rel, "")
    span = m.get("span") or {}
    start, end = span.get("start") or {}, span.get("end") or {}
    line, col = int(start.get("line", 1)), int(start.get("column", 1)) - 1
    end_line, end_col = int(end.get("line", line)), int(end.get("column", col + 1)) - 1
    a, b = offset(text, line, col), offset(text, end_line, end_col)
    function = (m.get("function") or {}).get("function_name") or "<module>"
    replacement = str(m.get("replacement", ""))
    before = touched_lines(text, line, end_line)
    after_text = text[:a] + replacement + text[b:]
    after = touched_lines(after_text, line, line + replacement.count("\n"))
    return Mutant(
        id=f"rust-{index}",
        file=rel,
        operator=str(m.get("genre", "")),
        start=a,
        end=b,
        line=line,
        col=col,
        end_line=end_line,
        end_col=end_col,
        original=text[a:b],
        replacement=replacement,
        function=function,
        stmt_line=line,
        before=before,
        after=after,
    )


class CargoMutants:
    name = "cargo-mutants"
    language = "rust"
    per_test_kills = False

    def unavailable(self, request: ToolRequest) -> str | None:
        return None  # every project of its language

    def problem(self, request: ToolRequest) -> str | None:
        if shutil.which("cargo") is None:
            return "cargo is not installed (install Rust with rustup: https://rustup.rs)"
        if executable() is None:
            return (
                "cargo-mutants is not installed: run `cargo install --locked cargo-mutants` "
                "(Rust's mutation tool; gate 4 uses it for Rust)"
            )
        if not request.targets:
            return "no Rust source file to mutate"
        crate = nearest(request.root, request.targets[0], ("Cargo.toml",)) or "."
        outside = test_only(request.root, crate, request.targets)
        if len(outside) == len(request.targets):
            return outside[request.targets[0]]
        return None

    def run(self, request: ToolRequest) -> MutationResult:
        exe = executable()
        if exe is None:
            raise ToolFailed(self.problem(request) or "cargo-mutants is not installed")
        root = request.root
        crate = nearest(root, request.targets[0], ("Cargo.toml",)) or "."
        dirs = ScratchDirs.of(root, "cargo-mutants")
        base = [exe, "mutants", "--dir", str(root / crate)]
        outside = test_only(root, crate, request.targets)
        targets = [t for t in request.targets if t not in outside]
        files = [a for t in targets for a in ("--file", under(crate, t))]
        env = {**_cargo_env(), "CARGO_TARGET_DIR": str(mutants_target(request, crate, dirs.cache))}
        listed = run_tool(
            request, [*base, "--list", "--json", *files], root, RUST.profile, dirs, env
        )
        if listed.returncode != 0:
            raise ToolFailed(_why("cargo mutants --list", listed.stderr or listed.stdout))
        try:
            raw = json.loads(listed.stdout)
        except ValueError as exc:
            raise ToolFailed(f"cargo mutants --list gave no JSON: {exc}") from None
        sources = {t: (root / t).read_text(encoding="utf-8", errors="replace") for t in targets}
        mutants = [to_mutant(m, crate, sources, i) for i, m in enumerate(raw)]
        by_key = {_key(m): mut for m, mut in zip(raw, mutants, strict=True)}
        macro = proc_macro(root / crate / "Cargo.toml")
        unused = unexpanded(root, crate, request.tests) if macro and request.executed_only else {}
        scope = [
            (m, mut)
            for m, mut in zip(raw, mutants, strict=True)
            if (request.lines is None or mut.line in request.lines.get(mut.file, frozenset()))
            and mut.function not in unused.values()
        ]
        result = MutationResult(mutants=mutants, results={}, sources=sources, unmutated=outside)
        if not scope:
            return result
        chosen, filters = tests_selection(crate, request.tests)
        if request.executed_only and not macro:  # a proc macro runs in rustc: no coverage
            cov = cargo_coverage.measure(request, crate, chosen, filters, dirs, env)
            scope, known = cargo_coverage.narrowed(scope, cov, result)
            result.results.update(known)
            result.duration_s = cov.duration_s
            if not scope:
                result.per_test_coverage = False
                return result
        argv = [
            *base,
            *files,
            "--in-place",
            "--no-shuffle",
            "--baseline=skip",
            f"--timeout={PER_MUTANT_TIMEOUT_S}",
            "--output",
            str(dirs.out),
        ]
        if len(scope) < len(mutants):
            wanted = "|".join(re.escape(mutant_name(m)) for m, _ in scope)
            argv.append(f"--re=^({wanted})$")
        argv += [f"--cargo-arg={a}" for a in chosen]
        argv += [f"--cargo-test-arg={a}" for a in (["--", *filters] if filters else [])]
        # cargo-mutants builds each mutant in one target dir, incrementally (its design): the
        # profile's CARGO_INCREMENTAL=0 (one build per candidate) made every mutant a full
        # build of the crate; its target dir is its own, the dependencies are never incremental
        ran = run_tool(request, argv, root, RUST.profile, dirs, {**env, "CARGO_INCREMENTAL": "1"})
        outcomes = dirs.out / "mutants.out" / "outcomes.json"
        if ran.timed_out:
            # the outcomes written so far are a part: humantime's date.rs was accepted on 101 of
            # its 438 mutants, cut at gate 4's limit
            done = _measured(outcomes)
            raise ToolFailed(
                f"cargo mutants {ended(ran, request.timeout_s)}; {done} of {len(scope)} mutants "
                "measured"
            )
        if not outcomes.is_file():
            raise ToolFailed(_why("cargo mutants", ran.stderr or ran.stdout))
        data = json.loads(outcomes.read_text(encoding="utf-8"))
        # no per-test kills: as Stryker's command runner, every test of the file killed a killed
        # mutant (else each test of a good file would be `low_value`, killing nothing)
        every = list(request.passing) or list(request.tests)
        for outcome in data.get("outcomes", []):
            scenario = outcome.get("scenario")
            if not isinstance(scenario, dict) or "Mutant" not in scenario:
                continue
            mut = by_key.get(_key(scenario["Mutant"]))
            status = SUMMARY.get(outcome.get("summary", ""))
            if mut is None or status is None:
                continue
            why = ""
            if status is Status.COMPILE_ERROR and macro and broke_a_test(dirs.out, outcome):
                status, why = Status.KILLED, MACRO_CAUGHT
            duration = sum(
                float(p.get("duration") or 0) for p in outcome.get("phase_results") or []
            )
            killed = every if status in (Status.KILLED, Status.TIMEOUT) else []
            result.results[mut.id] = MutantResult(
                status,
                covered_by=list(every),
                killed_by=list(killed),
                duration_s=duration,
                reason=why,
            )
        result.duration_s += ran.duration_s + listed.duration_s
        result.per_test_coverage = False
        return result


MACRO_CAUGHT = (
    "the proc macro's expansion under this mutant does not compile in the test: the test "
    "catches it as it builds"
)
# cargo's last word on a target that did not build: `(lib)`, `(test "test_indoc")`, `(lib test)`
_NOT_BUILT = re.compile(r"could not compile `[^`]+` \((lib|lib test|test \"[^\"]+\"|[^)]*)\)")


def proc_macro(manifest: Path) -> bool:
    """Whether the crate's library is a proc macro (`[lib] proc-macro = true`)."""
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    lib = data.get("lib") or {}
    return bool(lib.get("proc-macro") or lib.get("proc_macro"))


# a macro's entry point: `#[proc_macro] pub fn indoc`, `#[proc_macro_derive(Name)] pub fn derive`
_ENTRY = re.compile(
    r"#\[proc_macro(?P<kind>_derive|_attribute)?(?:\(\s*(?P<derive>\w+)[^\]]*)?\]"
    r"(?:\s*#\[[^\]]*\])*\s*pub\s+fn\s+(?P<fn>\w+)"
)


def unexpanded(root: Path, crate: str, tests: tuple[str, ...]) -> dict[str, str]:
    """The entry points (macro name -> its function) of a proc-macro crate that no test file
    invokes: a proc macro runs only where it is expanded, so their mutants never run for these
    tests (indoc's test_indoc.rs expands `indoc!` only, and was charged with `formatdoc`'s,
    `printdoc`'s ... `Default::default()` survivors). Macros live in the crate's root file."""
    lib = root / crate / "src" / "lib.rs"
    try:
        source = lib.read_text(encoding="utf-8", errors="replace")
        used = "\n".join((root / t).read_text(encoding="utf-8", errors="replace") for t in tests)
    except OSError:
        return {}
    out: dict[str, str] = {}
    for m in _ENTRY.finditer(source):
        name = m.group("derive") or m.group("fn")
        if m.group("kind") == "_derive":
            invoked = re.search(rf"derive\([^)]*\b{name}\b", used)
        elif m.group("kind") == "_attribute":
            invoked = re.search(rf"#\[(?:\w+::)*{name}\b", used)
        else:
            invoked = re.search(rf"\b{name}\s*!", used)
        if not invoked:
            out[name] = m.group("fn")
    return out


def broke_a_test(out: Path, outcome: dict[str, Any]) -> bool:
    """A proc macro runs while its tests compile: a mutant whose macro library builds but whose
    expansion breaks a test target's build was caught by that test, not unviable (indoc 2.0.0:
    18 of 23 mutants "unviable", the 5 others missed, and tests/test_indoc.rs rejected at 0%).
    Read from cargo's own log of the mutant's build: a test target failed, the library did not."""
    log = out / "mutants.out" / str(outcome.get("log_path") or "")
    try:
        text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    except OSError:
        return False
    failed = set(_NOT_BUILT.findall(text))
    return bool(failed) and "lib" not in failed and not any(f.startswith("bin") for f in failed)


def test_only(root: Path, crate: str, targets: tuple[str, ...]) -> dict[str, str]:
    """The targets cargo-mutants cannot mutate, with why: it mutates the code of the library and
    binaries, and a file only a test compiles by `#[path]` (ryu's `src/s2d.rs`), or one behind a
    feature the default build leaves off, is in neither."""
    compiled = set(crate_files(root, crate))
    outside = [t for t in targets if t not in compiled]
    if not outside:
        return {}
    names = ", ".join(outside)
    why = (
        f"cargo-mutants mutates only the code the crate's library and binaries compile; {names} "
        f"{'is' if len(outside) == 1 else 'are'} not part of it (compiled only into tests by "
        "`#[path]`, or behind a feature the default build leaves off): gate 4 cannot measure "
        f"{'it' if len(outside) == 1 else 'them'}"
    )
    return dict.fromkeys(outside, why)


def _measured(outcomes: Path) -> int:
    """How many mutants cargo-mutants finished (its outcomes file, written as it goes)."""
    try:
        data = json.loads(outcomes.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    return sum(
        1
        for o in data.get("outcomes", [])
        if isinstance(o.get("scenario"), dict) and "Mutant" in o["scenario"]
    )


def _why(what: str, text: str, timed_out: bool = False) -> str:
    if timed_out:
        return f"{what} timed out"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    tail = next((ln for ln in reversed(lines) if "error" in ln.lower()), lines[-1] if lines else "")
    return f"{what} failed: {tail}" if tail else f"{what} failed"
