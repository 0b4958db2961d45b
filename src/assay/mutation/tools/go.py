"""Go: assay's own engine. `go_engine/main.go` (go/ast) lists each mutant's exact byte span; each
mutant is a copy of its file in the scratch run dir, tested with `go test -overlay` (the tree is
never rewritten), only the candidate's test functions, inside the sandbox with the Go profile
(module cache read-only, proxy off, assay's shared build cache warm). Measured against gremlins and
go-mutesting (bench/README.md): same statuses, and the overlay keeps the tree untouched.

One coverage run first gives NoCoverage without a build, and proves the tests green (a red
baseline would make every mutant look killed)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path, PurePosixPath
from typing import Any

from assay._assay_sandbox.mutation.protocol import EARLY_STOP, Status
from assay.languages.go import GO, module_cache
from assay.languages.go_source import test_names
from assay.languages.tooling import TEST_ID_SEP, nearest, under
from assay.mutation.model import Mutant, MutantResult, MutationResult
from assay.mutation.tools.base import ToolRequest
from assay.mutation.tools.go_coverage import covered_lines, executed, per_test_lines
from assay.mutation.tools.go_early import Certainty, run_all, run_order
from assay.mutation.tools.scratch_run import ScratchDirs, ToolFailed, run_tool, touched_lines
from assay.sandbox import assay_cache

ENGINE = Path(__file__).with_name("go_engine") / "main.go"


def engine() -> Path:
    """The engine binary, built once per source version into assay's cache (our code, no user
    code: built outside the sandbox)."""
    source = ENGINE.read_bytes()
    exe = assay_cache() / "go-engine" / hashlib.sha256(source).hexdigest()[:16] / "go_engine"
    if not exe.is_file():
        exe.parent.mkdir(parents=True, exist_ok=True)
        # a name of its own: the files of one `verify` reach gate 4 together on a new version
        tmp = exe.with_name(f"go_engine.{os.getpid()}.{threading.get_ident()}.tmp")
        built = subprocess.run(
            ["go", "build", "-o", str(tmp), str(ENGINE)],
            capture_output=True,
            text=True,
            cwd=exe.parent,
            env={**os.environ, "GOFLAGS": "", "GO111MODULE": "off"},
            timeout=300,
        )
        if built.returncode != 0:
            raise ToolFailed(f"could not build assay's Go mutation engine: {built.stderr.strip()}")
        tmp.replace(exe)
    return exe


def _chars(data: bytes, at: int) -> int:
    return len(data[:at].decode("utf-8", errors="replace"))


class GoEngine:
    name = "go-overlay"
    language = "go"
    per_test_kills = True

    def unavailable(self, request: ToolRequest) -> str | None:
        return None  # every project of its language

    def problem(self, request: ToolRequest) -> str | None:
        if shutil.which("go") is None:
            return "go is not installed (https://go.dev/dl/ or apt install golang)"
        if not request.targets:
            return "no Go source file to mutate"
        return None

    def run(self, request: ToolRequest) -> MutationResult:
        root = request.root
        module = nearest(root, request.targets[0], ("go.mod",)) or "."
        dirs = ScratchDirs.of(root, "go-mutants")
        gomod = (root / module / "go.mod").read_text(encoding="utf-8", errors="replace")
        module_path = (
            found.group(1) if (found := re.search(r"^module\s+(\S+)", gomod, re.M)) else ""
        )
        env = {"GOMODCACHE": cache} if (cache := module_cache()) else {}
        owner = {  # test function -> its test id
            n: f"{t}{TEST_ID_SEP}{n}"
            for t in request.tests
            for n in test_names((root / t).read_text(encoding="utf-8", errors="replace"))
        }
        names = sorted(owner)
        pkgs = sorted(
            {"./" + under(module, PurePosixPath(t).parent.as_posix()) for t in request.tests}
        )
        if not names:
            raise ToolFailed("the test files hold no Test functions")
        run_re = "^(" + "|".join(re.escape(n) for n in names) + ")$"

        listed = subprocess.run(
            [str(engine()), *(str(root / t) for t in request.targets)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if listed.returncode != 0:
            raise ToolFailed(f"the Go mutation engine could not parse: {listed.stderr.strip()}")
        data = {t: (root / t).read_bytes() for t in request.targets}
        sources = {t: b.decode("utf-8", errors="replace") for t, b in data.items()}
        by_path = {str(root / t): t for t in request.targets}
        mutants: list[Mutant] = []
        bodies: dict[tuple[str, str], range] = {}  # (file, function) -> its body's lines
        for i, line in enumerate(listed.stdout.splitlines()):
            raw: dict[str, Any] = json.loads(line)
            rel = by_path[raw["file"]]
            text, blob = sources[rel], data[rel]
            a, b = _chars(blob, raw["start"]), _chars(blob, raw["end"])
            after = text[:a] + raw["replacement"] + text[b:]
            bodies[rel, raw["function"]] = range(raw["body_from"], raw["body_to"] + 1)
            mutants.append(
                Mutant(
                    id=f"go-{i}",
                    file=rel,
                    operator=raw["operator"],
                    start=a,
                    end=b,
                    line=raw["line"],
                    col=a - (text.rfind("\n", 0, a) + 1),
                    end_line=raw["line"],
                    end_col=b - (text.rfind("\n", 0, a) + 1),
                    original=raw["original"],
                    replacement=raw["replacement"],
                    function=raw["function"],
                    stmt_line=raw["line"],
                    before=touched_lines(text, raw["line"], raw["line"]),
                    after=touched_lines(after, raw["line"], raw["line"]),
                )
            )
        result = MutationResult(mutants=mutants, results={}, sources=sources)
        scope = [
            m
            for m in mutants
            if request.lines is None or m.line in request.lines.get(m.file, frozenset())
        ]
        if not scope:
            return result
        cwd = root / module
        timeout = f"-timeout={max(10, int(request.timeout_s))}s"
        profile = dirs.out / "cover.out"
        coverpkg = ",".join(
            sorted(
                {"./" + under(module, PurePosixPath(t).parent.as_posix()) for t in request.targets}
            )
        )
        baseline = run_tool(
            request,
            [
                "go",
                "test",
                "-count=1",
                timeout,
                "-run",
                run_re,
                f"-coverpkg={coverpkg}",
                f"-coverprofile={profile}",
                *pkgs,
            ],
            cwd,
            GO.profile,
            dirs,
            env,
        )
        if baseline.returncode != 0 or not profile.is_file():
            tail = (baseline.stdout + baseline.stderr).strip().splitlines()[-3:]
            raise ToolFailed("the tests do not pass unmutated: " + " / ".join(tail))
        covered = covered_lines(profile.read_text(encoding="utf-8"), module_path, module)
        profiles = per_test_lines(
            request, names, pkgs, coverpkg, max(10, int(request.timeout_s)), cwd, dirs, env
        )
        each = {
            n: covered_lines(text, module_path, module, init)
            for n, (text, init) in (profiles or {}).items()
        }
        if request.executed_only:  # by the tests, not only by the package's initialisation
            by_tests: dict[str, set[int]] = {}
            for lines in each.values():
                for file, numbers in lines.items():
                    by_tests.setdefault(file, set()).update(numbers)
            scope = executed(scope, bodies, by_tests if each else covered, result, bool(each))
        per_mutant = max(10.0, baseline.duration_s * 5)

        def judge(m: Mutant, among: list[str]) -> MutantResult:
            if m.line not in covered.get(m.file, set()):
                return MutantResult(Status.NO_COVERAGE, reason="no test reaches this line")
            here = dirs.out / m.id
            here.mkdir(exist_ok=True)
            copy = here / PurePosixPath(m.file).name
            copy.write_text(sources[m.file][: m.start] + m.replacement + sources[m.file][m.end :])
            overlay = here / "overlay.json"
            overlay.write_text(json.dumps({"Replace": {str(root / m.file): str(copy)}}))

            def go_test(among: list[str]) -> tuple[MutantResult, list[str]]:
                pattern = "^(" + "|".join(re.escape(n) for n in among) + ")$"
                ran = run_tool(
                    request,
                    [
                        "go",
                        "test",
                        "-json",
                        "-count=1",
                        "-vet=off",  # gate 1 vetted the file; 10% of a mutant's CPU
                        f"-overlay={overlay}",
                        f"-timeout={int(per_mutant)}s",
                        "-run",
                        pattern,
                        *pkgs,
                    ],
                    cwd,
                    GO.profile,
                    dirs,
                    env,
                    timeout=per_mutant + 60,
                )
                out = _status(ran.stdout, ran.returncode, ran.timed_out, ran.duration_s)
                return out, unfinished(ran.stdout, among) if out.status is Status.KILLED else []

            first, left = go_test(among)
            # a panic ends the test binary: the tests after it never ran under this mutant, and
            # one of them would be `low_value` for kills it never had the chance to make
            # (semver's TestValidatePrerelease, after TestParts' nil dereference)
            while left:
                more, rest = go_test(left)
                first.duration_s += more.duration_s
                first.killed_by = sorted({*first.killed_by, *more.killed_by})
                left = rest if len(rest) < len(left) else []
            return first

        result.per_test_coverage = len(names) == 1 or bool(each)
        if each:
            ran = {n for n in names if any(each.get(n, {}).get(t) for t in request.targets)}
        elif len(names) == 1 and any(map(covered.get, request.targets)):
            ran = set(names)  # one test: the baseline's profile is its own
        else:
            ran = set()
        result.ran_targets = {owner[n] for n in ran}
        jobs = max(1, min(2, request.settings.jobs or 2))
        early = (
            Certainty.of(scope, request, sources)
            if request.executed_only
            and request.lines is None
            and request.settings.mutation.early_stop
            else None
        )
        judged = run_all(run_order(scope), names, each, covered, judge, jobs, early)
        # after an early stop the kill sets are partial: no test can be told redundant
        result.per_test_kills = not any(r.reason == EARLY_STOP for r in judged.values())
        for m in scope:
            r = judged[m.id]
            if r.status is not Status.NO_COVERAGE:
                running = [n for n in names if m.line in each.get(n, {}).get(m.file, ())]
                # a line Go's profile gives no block of its own (a `case` expression) is
                # known to run only through the tests that failed on its mutant
                near = set(running) | set(r.killed_by)
                r.covered_by = [owner[n] for n in names if n in near or not each]
            r.killed_by = [owner.get(n, n) for n in r.killed_by]
            result.results[m.id] = r
        result.duration_s = baseline.duration_s + sum(r.duration_s for r in result.results.values())
        return result


def unfinished(stdout: str, names: list[str]) -> list[str]:
    """The test functions `go test -json` never ended (pass, fail or skip): a panic in an
    earlier test stopped the binary before them."""
    ended = set()
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("Action") in ("pass", "fail", "skip") and event.get("Test"):
            ended.add(event["Test"])
    return [n for n in names if n not in ended]


def _status(stdout: str, returncode: int, timed_out: bool, duration: float) -> MutantResult:
    """A mutant's verdict from `go test -json`: failed tests kill it; a build failure makes it
    CompileError (not counted); a test timeout is Timeout."""
    failed, output = [], []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            output.append(line)
            continue
        if event.get("Action") == "fail" and event.get("Test"):
            failed.append(event["Test"])
        if event.get("Action") == "output":
            output.append(event.get("Output", ""))
        if event.get("Action") == "build-fail" or event.get("FailedBuild"):
            return MutantResult(Status.COMPILE_ERROR, duration_s=duration, reason="does not build")
    text = "".join(output)
    if timed_out or "panic: test timed out" in text:
        return MutantResult(Status.TIMEOUT, killed_by=failed, duration_s=duration)
    if returncode == 0:
        return MutantResult(Status.SURVIVED, duration_s=duration)
    if "[build failed]" in text or "[setup failed]" in text:
        return MutantResult(Status.COMPILE_ERROR, duration_s=duration, reason="does not build")
    return MutantResult(Status.KILLED, killed_by=sorted(set(failed)), duration_s=duration)
