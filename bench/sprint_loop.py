"""The sprint loop on a real project's history (issue 30): tasks named by commit subjects
(`... (#123)`), classified, tests written for the core ones onto a branch; against what a user would
otherwise run, `assay generate --since START` (change-driven generation over the same range, no
tasks).

  python bench/sprint_loop.py REPO --range dce2189^..HEAD [--writer offline] [--budget 60s]

REPO is a git repository (e.g. the snapshot of un33k/python-slugify); it is cloned twice into a temp
directory and never changed. Prints both runs: targets, tests kept, commits, wall and CPU time.
See bench/README.md for the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ASSAY = [sys.executable, "-m", "assay"]
MARKERS = 'markers = ["assay_generated: written by assay", "characterization: pins behaviour"]\n'


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def timed(cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The command's result, wall seconds, CPU seconds (its children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([*ASSAY, *args], cwd=cwd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, time.monotonic() - start, cpu


def clone(repo: Path, dest: Path) -> Path:
    sh(dest.parent, "git", "clone", "-q", str(repo), str(dest))
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
        sh(dest, "git", "config", key, value)
    pyproject = dest / "pyproject.toml"
    text = pyproject.read_text() if pyproject.is_file() else ""
    if "[tool.pytest.ini_options]\n" in text and "assay_generated" not in text:
        # the one-time set-up a team does: pytest under filterwarnings=error refuses unknown marks
        pyproject.write_text(text.replace("[tool.pytest.ini_options]\n",
                                          "[tool.pytest.ini_options]\n" + MARKERS, 1))  # fmt: skip
        sh(dest, "git", "commit", "-qam", "register assay's pytest markers")
    return dest


def tasks_from_history(root: Path, revs: str, sprint: str, out: Path) -> int:
    tasks = []
    for subject in sh(root, "git", "log", "--no-merges", "--format=%s", revs).splitlines():
        if m := re.search(r"\(#(\d+)\)\s*$", subject):
            tasks.append({"id": f"#{m.group(1)}", "title": subject[: m.start()].strip(),
                          "sprint": sprint})  # fmt: skip
    out.write_text(json.dumps({"tasks": tasks}, indent=1))
    return len(tasks)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("--range", required=True, dest="revs")
    parser.add_argument("--sprint", default="bench")
    parser.add_argument("--writer", default="offline")
    parser.add_argument("--budget", default="60s")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="assay-sprint-bench-") as tmp:
        base = Path(tmp)
        root = clone(args.repo.resolve(), base / "loop")
        n = tasks_from_history(root, args.revs, args.sprint, base / "tasks.json")
        tracker = f"file:{base / 'tasks.json'}"
        proc, wall, cpu = timed(root, "tasks", "--tracker", tracker, "--sprint", args.sprint,
                                "--range", args.revs, "-f", "json")  # fmt: skip
        listed = json.loads(proc.stdout)["tasks"]
        classes = Counter(t["class"] for t in listed)
        print(
            f"assay tasks: {n} tasks in {args.revs}: {dict(classes)}; {wall:.1f} s, {cpu:.1f} s CPU"
        )
        for t in listed:
            print(
                f"  {t['id']:<6} {t['class']:<12} {t['title'][:60]:<60} {len(t['targets'])} targets"
            )
        proc, wall, cpu = timed(
            root, "generate", "--sprint", args.sprint, "--tracker", tracker, "--range", args.revs,
            "--writer", args.writer, "--budget", args.budget, "-q", "-f", "json",
        )  # fmt: skip
        if not proc.stdout.strip():
            sys.exit(f"generate --sprint failed: {proc.stderr.strip()}")
        loop = json.loads(proc.stdout)
        kept = sum(t["kept"] for t in loop["tasks"])
        targets = sum(len(t["targets"]) for t in loop["tasks"])
        commits = sh(root, "git", "rev-list", "--count", f"HEAD..assay/sprint-{args.sprint}") \
            if loop["branch"] else "0"  # fmt: skip
        print(f"generate --sprint ({args.writer}): {len(loop['tasks'])} core tasks, "
              f"{targets} targets, "
              f"{kept} tests kept, {commits.strip()} commits on {loop['branch']}; "
              f"{wall:.1f} s, {cpu:.1f} s CPU; exit {proc.returncode}")  # fmt: skip
        for t in loop["tasks"]:
            debt = len(t["docs_debt"])
            print(f"  {t['id']:<6} kept {t['kept']:>3}  targets {len(t['targets'])}  "
                  f"docs debt {debt}"
                  f"  {t['note'][:80]}")  # fmt: skip
        # what a user would otherwise run: the changed functions of the whole range, no tasks
        other = clone(args.repo.resolve(), base / "since")
        start = args.revs.split("..")[0]
        proc, wall, cpu = timed(other, "generate", "--since", start, "--writer", args.writer,
                                "--budget", args.budget, "-q", "-f", "json")  # fmt: skip
        since = json.loads(proc.stdout) if proc.stdout.strip() else {}
        modules = since.get("modules", [])
        written = sum(len(m.get("tests", [])) for m in modules)
        changed = sh(other, "git", "status", "--porcelain").strip().splitlines()
        print(f"generate --since {start} ({args.writer}): {len(modules)} modules, {written} tests; "
              f"{wall:.1f} s, {cpu:.1f} s CPU; exit {proc.returncode}; "
              f"{len(changed)} files left in the working tree, "
              "no task or sprint on them")  # fmt: skip
        if proc.returncode not in (0, 1):
            print(f"  {proc.stderr.strip()[:300]}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
