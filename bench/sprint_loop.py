"""The sprint loop on a real project's history (issue 30): tasks named by commit subjects
(`... (#123)`), classified, tests written for the core ones onto a branch; with the offline writer,
against what a user would otherwise run, `assay generate --since START` (change-driven generation
over the same range, no tasks).

  python bench/sprint_loop.py REPO --range dce2189^..HEAD [--writer offline] [--budget 60s]
  OPENAI_BASE_URL=http://127.0.0.1:8741/v1 python bench/sprint_loop.py REPO --range ... \
      --writer openai:local --budget 1800s --record bench/llm/replay/slugify-sprint.jsonl
  python bench/sprint_loop.py REPO --range ... --writer replay:bench/llm/replay/slugify-sprint.jsonl

REPO is a git repository (e.g. the snapshot of un33k/python-slugify); it is cloned into a temp
directory and never changed. Prints the runs: tasks per class, targets, tests kept per task, model
answers per target, commits, wall and CPU time. A model's answers recorded once (`--record`) replay
by target and order (`replay_match = "order"` in the clone's set-up commit), so the bench repeats
without the model even after assay's prompts change. See bench/README.md for the figures.
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
# a small local model needs long calls; a recording answers by target and order
LLM = """
[tool.assay.llm]
timeout_s = 900
retries = 1
max_output_tokens = 1000
replay_match = "order"
"""


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
        text = text.replace("[tool.pytest.ini_options]\n", "[tool.pytest.ini_options]\n" + MARKERS)
    if "[tool.assay" not in text:
        text += LLM + '\n[tool.assay.python]\ninterpreter = ".venv/bin/python"\n'
    pyproject.write_text(text)
    # README step 1: the project's own venv with its dependencies (slugify imports text_unidecode)
    venv = dest / ".venv"
    sh(dest, sys.executable, "-m", "venv", str(venv))
    sh(dest, str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-e", ".", "pytest")
    sh(dest, "git", "add", "pyproject.toml")
    sh(dest, "git", "commit", "-qm", "assay's set-up: pytest markers, model limits")
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
    parser.add_argument("--record", type=Path, help="a model writer's answers to this JSONL file")
    parser.add_argument("--max-attempts", help="answers per target (a slow model: fewer)")
    args = parser.parse_args()
    provider, _, arg = args.writer.partition(":")
    if provider == "replay":  # the run happens in a clone: the recording as seen from here
        args.writer = f"replay:{Path(arg).resolve()}"
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
        record = (args.record or base / "answers.jsonl").resolve()
        proc, wall, cpu = timed(
            root, "generate", "--sprint", args.sprint, "--tracker", tracker, "--range", args.revs,
            "--writer", args.writer, "--budget", args.budget, "-q", "-f", "json",
            *(["--record", str(record)] if args.writer != "offline" else []),
            *(["--max-attempts", args.max_attempts] if args.max_attempts else []),
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
        answers = Counter(
            json.loads(line)["subject"] for line in
            (record.read_text().splitlines() if record.is_file() else [])
        )  # fmt: skip
        if answers:
            tested = sum(len(t["targets"]) - t["rejected"] for t in loop["tasks"])
            classify = sum(v for k, v in answers.items() if k.startswith("task "))
            print(f"  model answers: {sum(answers.values())} ({classify} to classify); "
                  f"targets with a kept test: {tested}/{targets}")  # fmt: skip
        for t in loop["tasks"]:
            debt = len(t["docs_debt"])
            print(f"  {t['id']:<6} kept {t['kept']:>3}  targets {len(t['targets'])}  "
                  f"answers {sum(answers[x] for x in t['targets']):>2}  "
                  f"rejected at {t['rejected_at'] or '-'}  docs debt {debt}"
                  f"  {t['note'][:80]}")  # fmt: skip
        if args.writer != "offline":
            return  # the recording holds the sprint's answers only: --since would ask others
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
