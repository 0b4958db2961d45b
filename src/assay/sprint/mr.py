"""The merge request: a markdown description (per task what was tested, kept and rejected counts,
suspected bugs, the gates' rejections, documentation debt), and the command that opens it: run
with `--open-mr` when `gh`/`glab` is installed, else printed for the user to run."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import RunFailed
from assay.sprint.git import git
from assay.words import counted

if TYPE_CHECKING:
    from assay.sprint.run import SprintReport


def description(report: SprintReport) -> str:
    kept = sum(r.kept for r in report.results)
    lines = [
        f"# Tests for sprint {report.sprint}",
        "",
        f"Written by `assay generate --sprint` with `{report.writer}` for "
        f"{counted(len(report.results), 'core task')}: {counted(kept, 'test')} kept by the gates. "
        "Each test is marked "
        "`@pytest.mark.assay_generated(task=..., sprint=...)`; edit or delete what you would not "
        "keep: `assay stats` counts what survives review.",
        "",
    ]
    for r in report.results:
        t = r.task
        lines += [f"## {t.task.id}: {t.task.title}", ""]
        lines.append(f"- tested: {', '.join(f'`{x}`' for x in r.targets) or 'nothing'}")
        lines.append(
            f"- kept: {counted(r.kept, 'test')}; targets without a kept test: {r.rejected}"
        )
        if r.files:
            lines.append(f"- files: {', '.join(f'`{f}`' for f in r.files)}")
        rejected = ", ".join(f"{g} ×{n}" for g, n in sorted(r.gates.items())) or "none"
        lines.append(f"- gates: {counted(r.checked, 'file')} judged; rejected at: {rejected}")
        for bug in r.suspected_bugs:
            lines.append(f"- suspected bug: {bug}")
        for debt in r.docs_debt:
            lines.append(f"- documentation debt (withheld from the writer): {debt.describe()}")
        if r.note:
            lines.append(f"- note: {r.note}")
        lines.append("")
    if report.skipped:
        lines += ["## Not tested", ""]
        lines += [f"- {t.task.id} ({t.task_class.value}): {t.task.title}" for t in report.skipped]
        lines.append("")
    return "\n".join(lines)


def _tool(root: Path) -> str:
    remote = git(root, "remote", "get-url", "origin", check=False)
    return "glab" if "gitlab" in remote else "gh"


def open_command(root: Path, branch: str, title: str, body_file: Path) -> list[list[str]]:
    """The commands that push the branch and open the merge request."""
    push = ["git", "push", "-u", "origin", branch]
    if _tool(root) == "glab":
        body = body_file.read_text(encoding="utf-8")
        return [push, ["glab", "mr", "create", "--source-branch", branch, "--title", title,
                       "--description", body]]  # fmt: skip
    return [push, ["gh", "pr", "create", "--head", branch, "--title", title,
                   "--body-file", str(body_file)]]  # fmt: skip


def shown(commands: list[list[str]], body_file: Path) -> str:
    """The commands as a shell line (glab's description read from the file)."""
    body = body_file.read_text(encoding="utf-8") if body_file.is_file() else None
    parts = [
        " ".join(
            f'"$(cat {shlex.quote(str(body_file))})"' if a == body else shlex.quote(a) for a in c
        )
        for c in commands
    ]
    return " && ".join(parts)


def open_mr(root: Path, commands: list[list[str]]) -> str | None:
    """Run the commands when their tool is installed; the URL printed, None when not installed."""
    if shutil.which(commands[-1][0]) is None:
        return None
    for argv in commands:
        proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300)
        if proc.returncode:
            tail = (proc.stderr.strip().splitlines() or ["failed"])[-1]
            raise RunFailed(f"{argv[0]} {argv[1]}: {tail}")
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
