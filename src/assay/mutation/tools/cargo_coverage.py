"""What a Rust candidate's tests run, for gate 4's scope: the crate built with
`-C instrument-coverage` (its own code only, through `RUSTC_WORKSPACE_WRAPPER`: the dependencies
of the warm build stay fresh, and cargo keeps the instrumented library apart from the plain one),
the candidate's tests run once, and LLVM's `llvm-profdata` / `llvm-cov` read the counts back as
the lines that ran. cargo-mutants measures no coverage: without this a file's test module was
charged with every function of its file (bytesize's free `kb()` … `pib()`, no test calls them).

The LLVM tools must read the profile format of rustc's own LLVM: rustup's `llvm-tools` component
(in the toolchain's sysroot), else `llvm-profdata-N` / `llvm-cov-N` of the same major version
(Debian's `llvm-N`). Without them, or when a step fails, gate 4 keeps the whole file in scope and
says so."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay._assay_sandbox.mutation.protocol import Status
from assay.languages.rust import RUST
from assay.languages.rust_warm import rust_version
from assay.mutation.model import Mutant, MutantResult, MutationResult
from assay.mutation.tools.base import ToolRequest
from assay.mutation.tools.scratch_run import ScratchDirs, run_tool
from assay.sandbox.view import hand_over

WRAPPER = (
    "#!/bin/sh\n# assay: the crate's own code built for coverage\n"
    'exec "$@" -C instrument-coverage\n'
)
# llvm-cov's lcov export: a file, then its lines with their counts
_SF, _DA = "SF:", "DA:"


@dataclass
class Coverage:
    """project-relative file -> line -> count, for the lines LLVM instrumented (a line absent
    is unknown: a blank line, a comment, an item with no code); `missing`: why there is none."""

    lines: dict[str, dict[int, int]] = field(default_factory=dict)
    missing: str = ""
    duration_s: float = 0.0  # the build, the run and LLVM's reading

    def ran(self, rel: str, first: int, last: int) -> bool:
        """Whether a test ran a line of `first..last` (a function's span, a mutant's)."""
        counts = self.lines.get(rel, {})
        return any(counts.get(n, 0) > 0 for n in range(first, last + 1))

    def unrun(self, rel: str, first: int, last: int) -> bool:
        """Whether no line of `first..last` ran, and some line of it was instrumented: a mutant
        there is never run by these tests (`NoCoverage`, no build needed)."""
        counts = self.lines.get(rel, {})
        known = [counts[n] for n in range(first, last + 1) if n in counts]
        return bool(known) and not any(known)


@functools.lru_cache(maxsize=8)
def llvm_tools(crate_dir: Path) -> tuple[str, str] | None:
    """(llvm-profdata, llvm-cov) that read what rustc's LLVM writes, or None."""
    version = rust_version(crate_dir)
    major = m.group(1) if (m := re.search(r"LLVM version: (\d+)", version)) else ""
    host = m.group(1) if (m := re.search(r"host: (\S+)", version)) else ""
    try:
        sysroot = subprocess.run(
            ["rustc", "--print", "sysroot"],
            cwd=crate_dir,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sysroot = ""
    if sysroot and host:  # rustup's llvm-tools component: always rustc's own LLVM
        here = Path(sysroot) / "lib" / "rustlib" / host / "bin"
        tools = here / "llvm-profdata", here / "llvm-cov"
        if all(t.is_file() for t in tools):
            return str(tools[0]), str(tools[1])
    if not major:
        return None
    named = shutil.which(f"llvm-profdata-{major}"), shutil.which(f"llvm-cov-{major}")
    if named[0] and named[1]:
        return named[0], named[1]
    plain = shutil.which("llvm-profdata"), shutil.which("llvm-cov")
    if plain[0] and plain[1] and _major(plain[0]) == major:
        return plain[0], plain[1]
    return None


def _major(tool: str) -> str:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    m = re.search(r"LLVM version (\d+)", out.stdout)
    return m.group(1) if m else ""


def missing_tools(crate_dir: Path) -> str:
    version = rust_version(crate_dir)
    m = re.search(r"LLVM version: (\d+)", version)
    major = m.group(1) if m else "N"
    return (
        f"no LLVM coverage tools for rustc's LLVM {major} (`rustup component add llvm-tools`, "
        f"or Debian's `llvm-{major}`)"
    )


def measure(
    request: ToolRequest,
    crate: str,
    chosen: list[str],
    filters: list[str],
    dirs: ScratchDirs,
    env: dict[str, str],
) -> Coverage:
    """The lines of the crate the candidate's tests run: one instrumented build of its test
    target (the crate's own code only) and one run of its tests, read back by llvm-cov."""
    root = request.root
    tools = llvm_tools(root / crate)
    if tools is None:
        return Coverage(missing=missing_tools(root / crate))
    profdata, llvm_cov = tools
    wrapper = dirs.cache / "assay-coverage-rustc"
    if not wrapper.is_file():  # a stable path: cargo's fingerprint of the instrumented build
        wrapper.write_text(WRAPPER, encoding="utf-8")
        wrapper.chmod(0o755)
    out = dirs.out / "coverage"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    hand_over(out)  # the tests write their profiles as the tests' uid
    cov_env = {**env, "RUSTC_WORKSPACE_WRAPPER": str(wrapper)}
    cwd = root / crate
    built = run_tool(
        request,
        ["cargo", "test", "--offline", "--no-run", "--message-format=json", *chosen],
        cwd,
        RUST.profile,
        dirs,
        cov_env,
    )
    binaries = _executables(built.stdout)
    if built.returncode != 0 or not binaries:
        return Coverage(missing="the crate did not build for coverage")
    run_env = {**cov_env, "LLVM_PROFILE_FILE": str(out / "%p-%m.profraw")}
    argv = ["cargo", "test", "--offline", *chosen, "--", *filters]
    ran = run_tool(request, argv, cwd, RUST.profile, dirs, run_env)  # a failed test counts too
    raw = sorted(str(p) for p in out.glob("*.profraw"))
    if not raw:
        return Coverage(missing="the tests wrote no coverage profile")
    merged = out / "merged.profdata"
    step = run_tool(
        request, [profdata, "merge", "-sparse", "-o", str(merged), *raw], cwd, RUST.profile, dirs
    )
    if step.returncode != 0 or not merged.is_file():
        return Coverage(missing=f"llvm-profdata failed: {_tail(step.stderr)}")
    objects = [a for b in binaries[1:] for a in ("-object", b)]
    lcov = run_tool(
        request,
        [llvm_cov, "export", "-format=lcov", "-instr-profile", str(merged), binaries[0], *objects],
        cwd,
        RUST.profile,
        dirs,
    )
    if lcov.returncode != 0:
        return Coverage(missing=f"llvm-cov failed: {_tail(lcov.stderr)}")
    spent = sum(r.duration_s for r in (built, step, lcov)) + ran.duration_s
    return Coverage(lines=read_lcov(lcov.stdout, root), duration_s=spent)


def _executables(stdout: str) -> list[str]:
    """The test binaries cargo built (`--message-format=json`'s artifacts with an executable)."""
    found: list[str] = []
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        exe = msg.get("executable") if msg.get("reason") == "compiler-artifact" else None
        if exe and (msg.get("profile") or {}).get("test"):
            found.append(str(exe))
    return found


def read_lcov(text: str, root: Path) -> dict[str, dict[int, int]]:
    """lcov's `SF:`/`DA:` records as project-relative file -> line -> count (files outside the
    scratch copy, the standard library's and the dependencies', left out)."""
    out: dict[str, dict[int, int]] = {}
    current: dict[int, int] | None = None
    for line in text.splitlines():
        if line.startswith(_SF):
            path = Path(line[len(_SF) :].strip())
            current = None
            if path.is_relative_to(root):
                current = out.setdefault(path.relative_to(root).as_posix(), {})
        elif line.startswith(_DA) and current is not None:
            number, _, count = line[len(_DA) :].partition(",")
            try:
                n, c = int(number), int(count.split(",")[0])
            except ValueError:
                continue
            current[n] = max(current.get(n, 0), c)
    return out


def _tail(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def function_lines(m: dict[str, Any]) -> tuple[int, int] | None:
    """The lines of the function a cargo-mutants mutant is in (signature to closing brace)."""
    span = (m.get("function") or {}).get("span") or {}
    start, end = span.get("start") or {}, span.get("end") or {}
    if not start.get("line") or not end.get("line"):
        return None
    return int(start["line"]), int(end["line"])


def narrowed(
    scope: list[tuple[dict[str, Any], Mutant]], cov: Coverage, result: MutationResult
) -> tuple[list[tuple[dict[str, Any], Mutant]], dict[str, MutantResult]]:
    """Gate 4's scope, as Python's and Go's: the mutants of the functions the tests run (named in
    `result.scope`); of those, a mutant on lines no test runs is `NoCoverage` without a build.
    (the mutants to run, the verdicts already known). Without coverage, or when it names no line
    of a target (it was not measured there), every mutant stays and `scope_note` says why.
    When the tests run no function of the targets, every mutant is `NoCoverage`."""
    files = {mut.file for _, mut in scope}
    if cov.missing or not all(cov.lines.get(f) for f in files):
        why = cov.missing or "the coverage names no line of " + ", ".join(
            sorted(f for f in files if not cov.lines.get(f))
        )
        result.scope_note = f"gate 4's scope is the whole file (no Rust coverage: {why})"
        return scope, {}
    ran: dict[str, list[str]] = {}
    kept = []
    for m, mut in scope:
        body = function_lines(m)
        if body is None or cov.ran(mut.file, *body):
            kept.append((m, mut))
            if body is not None and mut.function not in ran.setdefault(mut.file, []):
                ran[mut.file].append(mut.function)
    if not kept:
        kept = scope
    else:
        result.scope = ran
    known: dict[str, MutantResult] = {}
    to_run = []
    for m, mut in kept:
        if cov.unrun(mut.file, mut.line, mut.end_line):
            known[mut.id] = MutantResult(Status.NO_COVERAGE, reason=UNRUN_LINE)
        else:
            to_run.append((m, mut))
    return to_run, known


UNRUN_LINE = "no test of the file runs this line (LLVM coverage)"
