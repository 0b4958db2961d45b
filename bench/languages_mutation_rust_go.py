"""Gate 4's mutation tools for Rust and Go (`assay.mutation.tools.REGISTRY`) against the native
tool a user would run directly on the same module and tests: cargo-mutants for Rust, gremlins for
Go. Prints, per project, each side's mutants, statuses and wall, and how many mutants both made
(same file, line, operator) got the same status.

    python bench/languages_mutation_rust_go.py go PROJECT TESTS TARGETS
    python bench/languages_mutation_rust_go.py rust PROJECT TESTS TARGETS

TESTS and TARGETS are comma-separated project-relative files. The project is copied; nothing of
it is written. Needs `gremlins` (go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0)
or `cargo-mutants` on PATH.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path, PurePosixPath

from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.mutation.tools import REGISTRY, ToolRequest
from assay.project import Project
from assay.sandbox import Sandbox

GREMLINS = {
    "KILLED": "Killed",
    "LIVED": "Survived",
    "NOT COVERED": "NoCoverage",
    "TIMED OUT": "Timeout",
    "NOT VIABLE": "CompileError",
}
CARGO = {
    "CaughtMutant": "Killed",
    "MissedMutant": "Survived",
    "Timeout": "Timeout",
    "Unviable": "CompileError",
}


def assay_side(lang: str, root: Path, tests: list[str], targets: list[str]) -> tuple[dict, float]:
    settings = Settings(cache=False)
    start = time.monotonic()
    with Workspace(root) as ws:
        request = ToolRequest(
            ws.project,
            Project.load(root),
            settings,
            Sandbox(settings.sandbox, protect=root),
            tuple(tests),
            tuple(targets),
            timeout_s=1800,
        )
        result = REGISTRY[lang].run(request)
    wall = time.monotonic() - start
    out = {}
    for m, r in result.scored:
        key = (m.file, m.line, m.col + 1, m.operator, m.replacement)
        out[key] = r.status.value
    return out, wall


def gremlins_side(root: Path, targets: list[str]) -> tuple[dict, float]:
    scratch = Path(tempfile.mkdtemp()) / "p"
    shutil.copytree(root, scratch)
    report = scratch.parent / "gremlins.json"
    pkgs = sorted({"./" + PurePosixPath(t).parent.as_posix() for t in targets})
    others = [
        a
        for p in (scratch / pkgs[0]).glob("*.go")
        if p.relative_to(scratch).as_posix() not in targets and not p.name.endswith("_test.go")
        for a in ("--exclude-files", re.escape(p.name) + "$")
    ]
    start = time.monotonic()
    subprocess.run(
        ["gremlins", "unleash", "--output", str(report), *others, *pkgs[:1]],
        cwd=scratch,
        capture_output=True,
        check=True,
    )
    wall = time.monotonic() - start
    data = json.loads(report.read_text())
    out = {}
    base = PurePosixPath(targets[0]).parent
    for f in data["files"]:
        rel = (base / f["file_name"]).as_posix() if base.as_posix() != "." else f["file_name"]
        if rel not in targets:
            continue
        for m in f["mutations"]:
            out[(rel, m["line"], m["column"], m["type"], "")] = GREMLINS.get(
                m["status"], m["status"]
            )
    shutil.rmtree(scratch.parent)
    return out, wall


def cargo_side(root: Path, tests: list[str], targets: list[str]) -> tuple[dict, float]:
    scratch = Path(tempfile.mkdtemp()) / "p"
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns("target"))
    argv = ["cargo", "mutants", "--no-shuffle", "--output", str(scratch.parent)]
    for t in targets:
        argv += ["--file", t]
    for t in tests:
        if t.startswith("tests/"):
            argv.append(f"--cargo-test-arg=--test={PurePosixPath(t).stem}")
    start = time.monotonic()
    subprocess.run(argv, cwd=scratch, capture_output=True)
    wall = time.monotonic() - start
    data = json.loads((scratch.parent / "mutants.out" / "outcomes.json").read_text())
    out = {}
    for o in data["outcomes"]:
        sc = o["scenario"]
        if not isinstance(sc, dict):
            continue
        m = sc["Mutant"]
        start_ = m["span"]["start"]
        out[(m["file"], start_["line"], start_["column"], m["genre"], m["replacement"])] = (
            CARGO.get(o["summary"], o["summary"])
        )
    shutil.rmtree(scratch.parent)
    return out, wall


def main() -> None:
    lang, root = sys.argv[1], Path(sys.argv[2]).resolve()
    tests, targets = sys.argv[3].split(","), sys.argv[4].split(",")
    ours, our_wall = assay_side(lang, root, tests, targets)
    print(
        f"assay: {len(ours)} mutants, {dict(Counter(ours.values()))}, {our_wall:.1f} s", flush=True
    )
    if lang == "go":
        native, native_wall, name = *gremlins_side(root, targets), "gremlins"
        # gremlins names no replacement: match on file, line, column, operator
        ours_cmp = {k[:4]: v for k, v in ours.items()}
        native_cmp = {k[:4]: v for k, v in native.items()}
    else:
        native, native_wall, name = *cargo_side(root, tests, targets), "cargo-mutants"
        ours_cmp, native_cmp = ours, native
    both = set(ours_cmp) & set(native_cmp)
    same = sum(ours_cmp[k] == native_cmp[k] for k in both)
    print(f"{'tool':<22}{'mutants':>8}  statuses{'':<40}{'wall s':>8}")
    for label, res, wall in (
        ("assay " + REGISTRY[lang].name, ours, our_wall),
        (name + " (direct)", native, native_wall),
    ):
        counts = ", ".join(f"{k} {v}" for k, v in sorted(Counter(res.values()).items()))
        print(f"{label:<22}{len(res):>8}  {counts:<48}{wall:>8.1f}")
    print(f"mutants both made: {len(both)}, same status: {same}")
    for k in sorted(both):
        if ours_cmp[k] != native_cmp[k]:
            print("  differs:", k, "assay", ours_cmp[k], name, native_cmp[k])


if __name__ == "__main__":
    main()
