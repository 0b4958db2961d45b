"""What a Go test runs: per-test cover profiles (a coverage build of the package's test binary, run
once per test) read into the lines and functions each test reaches, which is gate 4's scope."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from assay.languages.go import GO
from assay.mutation.model import Mutant, MutationResult
from assay.mutation.tools.base import ToolRequest
from assay.mutation.tools.scratch_run import ScratchDirs, run_tool
from assay.sandbox.view import hand_over

_COVER = re.compile(r"^(.+):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)$")


def covered_lines(
    profile: str, module_path: str, module: str, beyond: str = ""
) -> dict[str, set[int]]:
    """project-relative file -> lines some statement with a non-zero count spans; with `beyond`
    (a `-covermode=count` profile of the same binary run with no test: what the package's
    initialisation runs), only the blocks the test ran more often than that."""
    before = {_block(ln): int(m.group(4)) for ln in beyond.splitlines() if (m := _COVER.match(ln))}
    out: dict[str, set[int]] = {}
    for line in profile.splitlines():
        m = _COVER.match(line.strip())
        if not m or int(m.group(4)) <= before.get(_block(line), 0):
            continue
        name = m.group(1)
        if module_path and name.startswith(module_path + "/"):
            name = name[len(module_path) + 1 :]
        rel = (PurePosixPath(module) / name).as_posix() if module != "." else name
        out.setdefault(rel, set()).update(range(int(m.group(2)), int(m.group(3)) + 1))
    return out


def _block(line: str) -> str:
    return line.strip().rsplit(" ", 2)[0]


def per_test_lines(
    request: ToolRequest,
    names: list[str],
    pkgs: list[str],
    coverpkg: str,
    timeout_s: int,
    cwd: Path,
    dirs: ScratchDirs,
    env: dict[str, str],
) -> dict[str, tuple[str, str]] | None:
    """Each test function's own cover profile (test name -> its text, and the profile of the binary
    run with no test, which it is read beyond): one coverage build of the
    package's test binary, then one sandboxed run of a loop that starts the binary once per test
    (`-test.run '^Name$'`). None for tests in several packages, or a failed step: every test is
    then taken to run every covered mutant, and `per_test_coverage` says so."""
    if not names or len(pkgs) != 1:  # one test too: what `init()` runs is not its own
        return None
    exe = dirs.out / "cover.test"
    built = run_tool(
        request,
        [
            "go",
            "test",
            "-c",
            "-cover",
            "-covermode=count",
            f"-coverpkg={coverpkg}",
            "-o",
            str(exe),
            pkgs[0],
        ],
        cwd,
        GO.profile,
        dirs,
        env,
    )
    if built.returncode != 0 or not exe.is_file():
        return None
    out = dirs.out / "per-test"
    out.mkdir(exist_ok=True)
    hand_over(out)  # the profiles are written as the tests' uid
    # a test that fails alone (it needs another to run first) still writes its profile
    # and once with no test: what the package's initialisation runs (runewidth's `init()` calls
    # handleEnv) is in every test's profile, and TestSorted, which checks the test file's own
    # tables, "killed none of the 2 mutants of the code it runs"
    loop = (
        'exe=$1; out=$2; shift 2; "$exe" -test.run "^$" -test.coverprofile="$out/.init.cover" '
        '>/dev/null 2>&1; for n in "$@"; do "$exe" -test.run "^$n\\$" -test.count=1 '
        f'-test.timeout={timeout_s}s -test.coverprofile="$out/$n.cover" >/dev/null 2>&1; done; '
        "exit 0"
    )
    ran = run_tool(
        request,
        ["sh", "-c", loop, "sh", str(exe), str(out), *names],
        cwd / pkgs[0],  # the package's directory, where `go test` runs a test binary
        GO.profile,
        dirs,
        env,
    )
    profiles = {n: out / f"{n}.cover" for n in names}
    if ran.returncode != 0 or not all(p.is_file() for p in profiles.values()):
        return None
    init = out / ".init.cover"
    before = init.read_text(encoding="utf-8") if init.is_file() else ""
    return {n: (p.read_text(encoding="utf-8"), before) for n, p in profiles.items()}


def executed(
    scope: list[Mutant],
    bodies: dict[tuple[str, str], range],
    covered: dict[str, set[int]],
    result: MutationResult,
    own: bool = False,
) -> list[Mutant]:
    """Gate 4's scope, as Python's: the mutants of the functions the tests run (`result.scope`),
    so a test of `Append` is not charged for `ErrorOrNil` in the file declaring the type it uses.
    When the tests run no line of the targets, every mutant stays (all NoCoverage: rejected); when
    they run only functions without a mutant (`own`: `covered` is the tests' own, beyond what the
    package's initialisation runs), none does: gate 4 cannot judge them (slug's
    `SubstituteRune` before the engine had call and condition mutants: rejected at 0% on the lines
    of functions it never called)."""
    ran = {key for key, lines in bodies.items() if any(n in covered.get(key[0], ()) for n in lines)}
    kept = [m for m in scope if (m.file, m.function) in ran]
    if not kept:
        if own and any(covered.get(m.file) for m in scope):
            result.scope = {}
            return []
        return scope
    result.scope = {}
    for rel, function in sorted(ran):
        result.scope.setdefault(rel, []).append(function)
    return kept
