"""The library functions of `assay tasks`, `assay generate --sprint` and `assay stats`, re-exported
by `assay.api` (as `prism`'s are). Heavy imports wait for the call: `assay.api` imports this
module for every command."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.project import find_root, project_settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from assay.events import ProgressEvent
    from assay.sprint.model import TasksReport
    from assay.sprint.run import SprintReport
    from assay.sprint.stats import StatsReport
    from assay.writers.base import WriterReport


def _repo_root(root: Path | str | None) -> Path:
    from assay.sprint.git import toplevel

    found = Path(root).resolve() if root else find_root(Path.cwd())
    toplevel(found)  # the sprint steps read git history: outside a repository is bad input
    return found


def tasks(
    tracker: str,
    sprint: str,
    *,
    root: Path | str | None = None,
    rev_range: str = "HEAD",
    writer: str | None = None,
    coverage: bool = True,
    use_cache: bool = True,
    config: Path | None = None,
) -> TasksReport:
    """The sprint's tasks from `tracker` (`file:PATH`, `github:O/R`, `gitlab:G/P`, `jira:URL`),
    each with its commits in `rev_range`, its targets and its class; a model (`writer`) only
    where no rule decides."""
    from assay.sprint.ask import model_classifier
    from assay.sprint.tasks import tasks_report

    root = _repo_root(root)
    settings = project_settings(root, None, config, None)
    model = model_classifier(writer, settings, root) if writer else None
    return tasks_report(root, settings, tracker, sprint, rev_range, model, coverage, use_cache)


def generate_sprint(
    tracker: str,
    sprint: str,
    *,
    root: Path | str | None = None,
    rev_range: str = "HEAD",
    branch: str | None = None,
    mr_file: Path | None = None,
    open_mr: bool = False,
    docs_debt_days: int = 180,
    use_cache: bool = True,
    record: Path | None = None,
    config: Path | None = None,
    overrides: dict[str, Any] | None = None,
    on_event: Callable[[ProgressEvent], None] | None = None,
) -> SprintReport:
    """Tests for each core task of the sprint (the writer `generate.writer` on its targets, in a
    private copy of HEAD), committed onto `branch` (default `assay/sprint-NAME`), one commit per
    task, and a merge-request description. `record`: every model answer of the run (the
    classifier's and every task's) to this JSONL file, for `replay:FILE`."""
    from assay.llm import PROVIDERS, Recorder
    from assay.sprint import mr
    from assay.sprint.ask import model_classifier
    from assay.sprint.branch import check_new
    from assay.sprint.git import git, toplevel
    from assay.sprint.run import run_sprint
    from assay.sprint.tasks import tasks_report
    from assay.writers import DEFAULT_WRITER, writer_kind
    from assay.writers.base import GenerateRequest

    root = _repo_root(root)
    top = toplevel(root)
    branch = branch or f"assay/sprint-{sprint}"
    check_new(top, branch)  # before any work: an existing branch is someone's
    settings = project_settings(root, None, config, overrides)
    writer = settings.generate.writer or DEFAULT_WRITER
    reads_tasks = writer.split(":")[0] in PROVIDERS  # the offline writer reads no task text
    recorder = Recorder(record) if record is not None and reads_tasks else None
    writes = _absolute_replay(writer, root)  # each task's writer runs in a private copy
    model = model_classifier(writes, settings, root, recorder) if reads_tasks else None
    listed = tasks_report(root, settings, tracker, sprint, rev_range, model, True, use_cache)
    config = config.resolve() if config else None
    if settings.python.interpreter:  # `.venv/bin/python` is the project's, not the private copy's
        overrides = {**(overrides or {}), "python.interpreter": settings.python.interpreter}

    def write_tests(work: Path, specs: list[str], task: str) -> WriterReport:
        request = GenerateRequest(
            work,
            project_settings(work, None, config, overrides),
            [str(work / spec) for spec in specs],
            writes,
            task=task if reads_tasks else None,
            use_cache=use_cache,
            recorder=recorder,
            on_event=on_event,
        )
        return writer_kind(writes).generate(request)

    report = run_sprint(root, listed, write_tests, writer, branch, docs_debt_days)
    report.description = mr.description(report)
    if mr_file is None:
        git_dir = Path(git(top, "rev-parse", "--absolute-git-dir").strip())
        mr_file = git_dir / "assay" / f"mr-{branch.replace('/', '-')}.md"
    mr_file.parent.mkdir(parents=True, exist_ok=True)
    mr_file.write_text(report.description, encoding="utf-8")
    report.mr_file = str(mr_file)
    if report.branch_made:
        commands = mr.open_command(top, branch, f"Tests for sprint {sprint}", mr_file)
        opened = mr.open_mr(top, commands) if open_mr else None
        if opened is None:
            report.mr_command = mr.shown(commands, mr_file)
        else:
            report.mr_url = opened
    return report


def _absolute_replay(writer: str, root: Path) -> str:
    """`replay:FILE` with FILE as `make_client` finds it (the working directory, else the
    project), made absolute; any other writer as it is."""
    provider, _, path = writer.partition(":")
    if provider != "replay" or Path(path).is_absolute():
        return writer
    found = Path(path).resolve() if Path(path).exists() else (root / path).resolve()
    return f"replay:{found}"


def stats(
    *, root: Path | str | None = None, rev: str = "HEAD", since: str | None = None
) -> StatsReport:
    """How the tests `generate --sprint` wrote fared in review, from git history: unchanged,
    edited or deleted at `rev`, per task, sprint, writer and day."""
    from assay.sprint.git import toplevel
    from assay.sprint.stats import collect

    found = Path(root).resolve() if root else Path.cwd()
    toplevel(found)
    return collect(found, rev, since)


__all__ = ["generate_sprint", "stats", "tasks"]
