"""`--since` on a real project's history: for each of the last N commits that touch its tests, the
diff scope and the test-diff integrity findings of that commit against its parent, next to what a
user runs without a diff scope (every test file, every mutant of the changed files).

    python bench/diff_history.py [--repo GIT_DIR] [--rev REV] [-n 20] [--verify]

`--repo`: a git repository (a `fetch`ed mirror under /work/.mirror works; default humanize's); it
is cloned (`--shared`, no network) to bench/.cache/diff_history/<name> and each commit checked out
there. `--verify` also runs `assay verify --since <parent>` per commit (slow: real test runs).
The findings are printed in full to be read by hand (bench/README.md lists them)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from assay.diff import changes, integrity, scope
from assay.diff.changes import Kind
from assay.diff.integrity import changed_code
from assay.errors import InputError
from assay.languages import LANGUAGES
from assay.mutation.mutants import generate
from assay.project import Project, discover

HERE = Path(__file__).resolve().parent
DEFAULT = Path("/work/.mirror/python-humanize+humanize/repo")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def clone(repo: Path) -> Path:
    name = repo.parent.name if repo.name in ("repo", ".git") else repo.name
    dest = HERE / ".cache" / "diff_history" / name
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "-q", "--shared", "--no-checkout", str(repo), str(dest)], check=True
        )
    return dest


def mutants_of(root: Path, rel: str, lines: frozenset[int] | None) -> int:
    text = (root / rel).read_text(encoding="utf-8")
    found = generate(rel, text)
    if lines is None:
        return len(found)
    return sum(any(n in lines for n in range(m.line, m.end_line + 1)) for m in found)


def one(root: Path, commit: str, run_verify: bool) -> dict:
    git(root, "checkout", "-q", "--force", commit)
    git(root, "clean", "-fdxq", "-e", ".assay")
    parent = f"{commit}^"
    project = Project.load(root)
    start = time.monotonic()
    found = changes(root, parent)
    try:
        tests = discover([root], root, [LANGUAGES["python"]])
    except InputError:  # an old layout without test_*.py files
        tests = []
    in_scope = scope(project, found, tests)
    findings = integrity(project, found)
    took = time.monotonic() - start
    code = [
        rel
        for rel in sorted(changed_code(project, found))
        if rel in found.files
        and found.files[rel].kind is not Kind.DELETED
        and rel in project.modules.values()
    ]
    row = {
        "commit": commit[:10],
        "subject": git(root, "log", "-1", "--format=%s", commit).strip(),
        "changed": len(found.files),
        "tests_all": len(tests),
        "in_scope": [s.to_json() for s in in_scope],
        "mutants_changed": sum(mutants_of(root, r, found.lines_of(r)) for r in code),
        "mutants_whole": sum(mutants_of(root, r, None) for r in code),
        "findings": [f.to_json() for f in findings],
        "check_s": round(took, 2),
    }
    if run_verify:
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "assay", "verify", "--since", parent, "-q", "-f", "json"],
            cwd=root,
            capture_output=True,
            text=True,
        )
        row["verify_s"] = round(time.monotonic() - start, 1)
        try:
            files = json.loads(proc.stdout)["files"]
            row["verdicts"] = {f["path"]: f["verdict"] for f in files}
        except (json.JSONDecodeError, KeyError):
            row["verdicts"] = {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=DEFAULT)
    ap.add_argument("--rev", default=None, help="newest commit (default: the repository's HEAD)")
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    if not args.repo.exists():
        sys.exit(f"no repository at {args.repo}: pass --repo (a git dir or a clone)")
    root = clone(args.repo)
    rev = args.rev or git(args.repo, "rev-parse", "HEAD").strip()
    commits = git(root, "rev-list", "--no-merges", f"-n{args.n}", rev, "--", "tests").split()
    rows = [one(root, c, args.verify) for c in commits]
    print(
        f"{'commit':10}  {'files':>5}  {'tests in scope':>14}  {'mutants':>13}  findings  subject"
    )
    for r in rows:
        scoped = f"{len(r['in_scope'])}/{r['tests_all']}"
        mutants = f"{r['mutants_changed']}/{r['mutants_whole']}"
        rules = ",".join(sorted({f["rule"] for f in r["findings"]})) or "-"
        print(
            f"{r['commit']}  {r['changed']:>5}  {scoped:>14}  {mutants:>13}  {rules:8}  "
            f"{r['subject'][:60]}"
        )
    scoped = sum(len(r["in_scope"]) for r in rows)
    every = sum(r["tests_all"] for r in rows)
    changed = sum(r["mutants_changed"] for r in rows)
    whole = sum(r["mutants_whole"] for r in rows)
    print(
        f"\n{len(rows)} commits: {scoped} test files in scope of {every} a whole-suite run judges "
        f"({scoped / max(every, 1):.0%}); {changed} mutants on changed lines of {whole} in the "
        f"changed files ({changed / max(whole, 1):.0%}); integrity check "
        f"{max(r['check_s'] for r in rows):.2f} s at most per commit"
    )
    print("\nfindings (read by hand):")
    for r in rows:
        for f in r["findings"]:
            print(
                f"  {r['commit']} {f['path']}:{f['line']} {f['rule']} {f['level']} "
                f"{f['test']}: {f['message']} | {f['old']!r} -> {f['new']!r}"
            )
        if args.verify:
            print(f"  {r['commit']} verify --since: {r.get('verdicts')} ({r.get('verify_s')} s)")
    out = HERE / ".cache" / "diff_history.json"
    out.write_text(json.dumps(rows, indent=2))
    print(f"\nall rows: {out}")


if __name__ == "__main__":
    main()
