"""Which class a task is, by rules first: a label or type that names a class, then the files its
commits touch, then a generic type (bug, feature), then words in the title. A model decides only
where no rule does, and only when one is given (`--writer`); else the task is `unclassified`
and its reason says so. Every decision says which rule made it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from assay.sprint.model import Classification, Task, TaskClass

C = TaskClass
# labels and types that name a class outright (lower case)
NAMED: dict[str, TaskClass] = {
    **dict.fromkeys(("incident", "sre", "outage", "postmortem", "on-call", "oncall"), C.INCIDENT),
    **dict.fromkeys(("frontend", "front-end", "ui", "css", "ux", "design"), C.FRONTEND),
    **dict.fromkeys(("adapter", "adapters", "integration", "integrations", "webhook"), C.ADAPTERS),
    **dict.fromkeys(
        (
            "technical",
            "infra",
            "infrastructure",
            "ci",
            "devops",
            "chore",
            "dependencies",
            "tech-debt",
        ),
        C.TECHNICAL,
    ),
    **dict.fromkeys(("backend", "core", "domain"), C.CORE),
}
# generic types: they say "code changes", not where; the files decide first
GENERIC: dict[str, TaskClass] = dict.fromkeys(
    ("bug", "feature", "story", "improvement", "enhancement", "bugfix", "fix"), C.CORE
)
TITLE_WORDS: list[tuple[re.Pattern[str], TaskClass]] = [
    (re.compile(r"\b(incident|outage|postmortem|page[rd]?|on-?call|sev[0-9])\b", re.I), C.INCIDENT),
    (re.compile(r"\b(css|style|layout|button|template|page|component|ui|ux)\b", re.I), C.FRONTEND),
    (
        re.compile(r"\b(webhook|integration|adapter|api client|slack|telegram|stripe)\b", re.I),
        C.ADAPTERS,
    ),
    (
        re.compile(
            r"\b(ci|pipeline|migration|bump|upgrade|docker|deploy|dependenc(y|ies))\b", re.I
        ),
        C.TECHNICAL,
    ),
]

FRONTEND_SUFFIXES = {
    ".css",
    ".scss",
    ".sass",
    ".less",
    ".html",
    ".htm",
    ".jinja",
    ".jinja2",
    ".j2",
    ".vue",
    ".svelte",
    ".jsx",
    ".tsx",
    ".svg",
    ".png",
    ".ico",
}
FRONTEND_DIRS = {"templates", "static", "components", "frontend", "ui", "styles", "assets"}
ADAPTER_DIRS = {"adapters", "integrations", "webhooks", "channels", "connectors", "clients"}
TECHNICAL_DIRS = {
    ".github",
    ".gitlab",
    ".circleci",
    "migrations",
    "alembic",
    "ci",
    "deploy",
    "infra",
    "terraform",
    "helm",
    "k8s",
    "docker",
    ".ci",
}
TECHNICAL_FILES = {
    "dockerfile",
    ".gitlab-ci.yml",
    "requirements.txt",
    "requirements-dev.txt",
    "poetry.lock",
    "uv.lock",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "cargo.lock",
    "go.sum",
    "makefile",
    "tox.ini",
    "noxfile.py",
    "docker-compose.yml",
    "renovate.json",
    ".pre-commit-config.yaml",
    "setup.cfg",
    "pyproject.toml",
    "setup.py",
    "manifest.in",
    "__version__.py",
    "_version.py",
    "version.py",
    ".travis.yml",
    "format.sh",
}
CODE_SUFFIXES = {".py", ".java", ".go", ".rs", ".ts", ".js", ".cs", ".kt", ".rb"}
NEUTRAL_DIRS = {"tests", "test", "docs", "doc"}
TEST_FILES = {"test.py", "tests.py", "conftest.py"}


def is_test_or_doc(name: str) -> bool:
    name = name.lower()
    return (
        name in TEST_FILES
        or name.startswith(("test_", "readme", "license", "changelog"))
        or name.endswith(("_test.py", ".md", ".rst", ".txt"))
    )


def file_class(path: str) -> TaskClass | None:
    """The class one touched file points to; None for tests, docs and other neutral files."""
    p = PurePosixPath(path)
    dirs = {part.lower() for part in p.parts[:-1]}
    name = p.name.lower()
    if name in TECHNICAL_FILES or "requirements" in name:
        return C.TECHNICAL
    if dirs & NEUTRAL_DIRS or is_test_or_doc(name):
        return None
    if dirs & TECHNICAL_DIRS:
        return C.TECHNICAL
    if p.suffix.lower() in FRONTEND_SUFFIXES or dirs & FRONTEND_DIRS:
        return C.FRONTEND
    if dirs & ADAPTER_DIRS or re.search(r"(webhook|_client|_adapter)\b", p.stem.lower()):
        return C.ADAPTERS
    if p.suffix.lower() in CODE_SUFFIXES:
        return C.CORE
    return None


def by_files(files: list[str]) -> Classification | None:
    """Core when backend code changed (with or without UI); else the one class all files share,
    adapters winning over the UI they may come with."""
    found: dict[TaskClass, list[str]] = {}
    for path in files:
        if (cls := file_class(path)) is not None:
            found.setdefault(cls, []).append(path)
    if not found:
        return None
    for cls in (C.CORE, C.ADAPTERS, C.FRONTEND, C.TECHNICAL):
        if cls in found and (cls is C.CORE or len(found) == 1 or cls is C.ADAPTERS):
            example = found[cls][0]
            more = f" and {len(found[cls]) - 1} more" if len(found[cls]) > 1 else ""
            return Classification(cls, f"files: its commits change {example}{more}")
    return None


Model = Callable[[Task], Classification | None]


def classify(
    task: Task, files: list[str], model: Model | None = None, named: bool = False
) -> Classification:
    """`files`: what the task's commits changed (prose-only Python files left out); `named`:
    whether any commit names the task."""
    words = [("label", lab) for lab in task.labels] + [("type", task.type)]
    for kind, word in words:
        if (cls := NAMED.get(word.strip().lower())) is not None:
            return Classification(cls, f"{kind} {word!r}")
    if (decided := by_files(files)) is not None:
        return decided
    for kind, word in words:
        if (cls := GENERIC.get(word.strip().lower())) is not None:
            return Classification(
                cls, f"{kind} {word!r} (no commit names it)" if not named else f"{kind} {word!r}"
            )
    for pattern, cls in TITLE_WORDS:
        if m := pattern.search(task.title):
            return Classification(cls, f"title word {m.group(0)!r}")
    if model is not None and (decided := model(task)) is not None:
        return decided
    why = (
        "no commit names it"
        if not (named or files)
        else "its commits touch only tests, docs or files no rule places"
    )
    return Classification(
        C.UNCLASSIFIED,
        f"no rule decides ({why}; no label, type or title word names a class); "
        + ("the model gave no class" if model else "give --writer to let a model decide"),
    )
