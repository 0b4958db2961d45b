"""`assay prism run --writer provider:model`: a test writer gets each task's `instruction.md` and
its `original/` tree - never the reference or any panel member - and answers with the suite. The
suites are kept under `--out` and then judged like given ones, so test writers are compared on the
same panels. One answer per task and no repair loop: the panel is the judge, and a loop that ran the
suite on the reference would leak the answer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.config import Settings
from assay.llm import Budget, BudgetExhausted, LLMClient, LLMError, Prompt, make_client
from assay.llm.extract import extract
from assay.llm.prompts import Prompts
from assay.prism.task import Task
from assay.store import Store

CONTEXT_CHARS = 24_000  # of original/ put in the prompt: source files first, smallest first
SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", "node_modules", ".venv", "venv"}
SOURCE_SUFFIXES = {"python": (".py",)}


@dataclass
class WrittenSuite:
    """What the writer did for one task: where its suite went, what it cost, or why there
    is none."""

    task: str
    writer: str
    suite: str | None = None  # the written test file, relative to --out
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # the provider gave no token counts
    problem: str | None = None
    rationale: str = ""
    # files of original/ left out of the prompt (size)
    omitted: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "writer": self.writer,
            "suite": self.suite,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.tokens,
            "estimated": self.estimated,
            "problem": self.problem,
            "rationale": self.rationale,
            "omitted": self.omitted,
        }


def context_files(task: Task) -> tuple[list[tuple[str, str]], list[str]]:
    """(path, text) of original/ for the prompt within CONTEXT_CHARS, and the paths left out. The
    suite's own directory is left out: it is where the answer goes."""
    suffixes = SOURCE_SUFFIXES.get(task.language, ())
    dest = task.suite_dest.strip("/") + "/"
    files: list[tuple[str, str]] = []
    for path in sorted(task.original.rglob("*")):
        rel = path.relative_to(task.original).as_posix()
        if (
            not path.is_file()
            or SKIP_DIRS & set(rel.split("/")[:-1])
            or (rel + "/").startswith(dest)
        ):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # binary: not for a prompt
        files.append((rel, text if text.endswith("\n") else text + "\n"))
    files.sort(key=lambda f: (not f[0].endswith(suffixes), len(f[1]), f[0]))
    kept, omitted, used = [], [], 0
    for rel, text in files:
        if used + len(text) > CONTEXT_CHARS:
            omitted.append(rel)
            continue
        kept.append((rel, text))
        used += len(text)
    return sorted(kept), omitted


def suite_file(task: Task) -> str:
    return f"{task.id}/test_{re.sub(r'[^0-9A-Za-z_]', '_', task.id)}.py"


def write_suites(
    tasks: list[Task],
    spec: str,
    out: Path,
    settings: Settings,
    store: Store | None,
    use_cache: bool = True,
) -> dict[str, WrittenSuite]:
    """One suite per valid task under `out` (`out/<task-id>/`); a task the writer could
    not serve has none, and its WrittenSuite says why. Token and cost limits are those
    of `[tool.assay.generate]`."""
    budget = Budget(settings.generate.max_tokens, settings.generate.max_cost)
    templates = settings.generate.templates
    prompts = Prompts(Path(templates) if templates else None)
    client = make_client(
        spec, settings.llm, role="writer", store=store, use_cache=use_cache, budget=budget
    )
    written: dict[str, WrittenSuite] = {}
    try:
        for task in tasks:
            if task.problem is not None:
                continue
            ws = written[task.id] = WrittenSuite(task.id, client.spec)
            if task.language != "python":
                ws.problem = (
                    f"the writer writes Python suites only (task language: {task.language})"
                )
                continue
            _write_one(task, ws, client, prompts, out)
    finally:
        client.close()
    return written


def _write_one(
    task: Task, ws: WrittenSuite, client: LLMClient, prompts: Prompts, out: Path
) -> None:
    files, ws.omitted = context_files(task)
    try:
        instruction = (task.dir / "instruction.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        ws.problem = "the task has no readable instruction.md"
        return
    system = prompts.render("prism_writer_system")
    user = prompts.render(
        "prism_write",
        instruction=instruction,
        files=files,
        omitted=ws.omitted,
        suite_dest=task.suite_dest,
        test_command=task.test_command or "python -m pytest",
    )
    prompt = Prompt(system, user, "prism-write")
    try:
        completion = client.complete(prompt)
    except (BudgetExhausted, LLMError) as err:
        ws.problem = str(err)
        return
    call = client.record(prompt, completion)
    ws.calls += 1
    ws.prompt_tokens += call.prompt_tokens
    ws.completion_tokens += call.completion_tokens
    ws.estimated = ws.estimated or call.estimated
    found = extract(completion.text, completion.finish, "python")
    ws.rationale = found.rationale
    if found.code is None:
        ws.problem = (found.problem or "no test file in the answer").splitlines()[0]
        return
    rel = suite_file(task)
    dest = out / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(found.code, encoding="utf-8")
    ws.suite = rel
