"""`assay stats`: what review made of the generated tests, from git history alone. The commits of
`generate --sprint` (trailers `Assay-Task`, `Assay-Sprint`, `Assay-Writer`) name the tests they
added (marked `assay_generated`); each is looked up at the reviewed revision: unchanged (same
code, formatting aside), edited, or deleted. Acceptance = tests kept (unchanged or edited) over
tests generated, per task, sprint and writer, and per day of generation (over time)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.sprint.git import git, show

RECORD, UNIT = "\x1e", "\x1f"
STATUSES = ("unchanged", "edited", "deleted")


@dataclass(frozen=True)
class GeneratedTest:
    path: str
    name: str  # test_x, or TestX.test_y
    task: str
    sprint: str
    writer: str
    commit: str
    day: str  # YYYY-MM-DD the commit was made
    status: str  # one of STATUSES

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class Tally:
    key: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def acceptance(self) -> float:
        """Share of the generated tests that review kept (unchanged or edited)."""
        return (self.total - self.counts["deleted"]) / self.total if self.total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, **self.counts, "total": self.total,
                "acceptance": round(self.acceptance, 3)}  # fmt: skip


@dataclass
class StatsReport:
    rev: str
    since: str | None
    tests: list[GeneratedTest]

    def by(self, attr: str) -> list[Tally]:
        groups: dict[str, Tally] = {}
        for t in sorted(self.tests, key=lambda t: (t.day, getattr(t, attr))):
            key = getattr(t, attr)
            groups.setdefault(key, Tally(key)).counts[t.status] += 1
        return list(groups.values())

    @property
    def overall(self) -> Tally:
        tally = Tally("all")
        for t in self.tests:
            tally.counts[t.status] += 1
        return tally

    def to_json(self) -> dict[str, Any]:
        return {
            "rev": self.rev,
            "since": self.since,
            "overall": self.overall.to_json(),
            "by_task": [t.to_json() for t in self.by("task")],
            "by_sprint": [t.to_json() for t in self.by("sprint")],
            "by_writer": [t.to_json() for t in self.by("writer")],
            "over_time": [t.to_json() for t in self.by("day")],
            "tests": [t.to_json() for t in self.tests],
        }


def _marked(source: str) -> dict[str, tuple[ast.AST, dict[str, str]]]:
    """Tests marked `assay_generated` -> (node, the marker's keyword values)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, tuple[ast.AST, dict[str, str]]] = {}

    def visit(body: list[ast.stmt], prefix: str, inherited: dict[str, str] | None) -> None:
        for node in body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            mark = inherited
            for deco in node.decorator_list:
                call = deco if isinstance(deco, ast.Call) else None
                target = call.func if call else deco
                if isinstance(target, ast.Attribute) and target.attr == "assay_generated":
                    mark = {
                        k.arg: str(k.value.value)
                        for k in (call.keywords if call else [])
                        if k.arg and isinstance(k.value, ast.Constant)
                    }
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", mark)
            elif node.name.startswith("test") and mark is not None:
                out[prefix + node.name] = (node, mark)

    visit(tree.body, "", None)
    return out


def _shape(node: ast.AST) -> str:
    """The test's code without its decorators and formatting: what an edit changes."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        node = type(node)(**{**node.__dict__, "decorator_list": []})
    return ast.dump(node)


def _trailers(message: str) -> dict[str, str]:
    out = {}
    for line in message.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.startswith("Assay-"):
            out[key[6:].lower()] = value.strip()
    return out


def collect(root: Path, rev: str = "HEAD", since: str | None = None) -> StatsReport:
    if rev.startswith("-") or (since or "").startswith("-"):
        raise InputError("--rev and --since take a revision and a date")
    if not git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False):
        raise InputError(f"--rev {rev!r}: no such revision")
    args = ["log", "--relative", f"--format={RECORD}%H{UNIT}%cs{UNIT}%B", "-E",
            "--grep=^Assay-Sprint:", rev]  # fmt: skip
    if since:
        args.insert(1, f"--since={since}")
    later: dict[str, dict[str, tuple[ast.AST, dict[str, str]]]] = {}
    tests = []
    for record in git(root, *args).split(RECORD)[1:]:
        sha, day, message = record.split(UNIT, 2)
        trailers = _trailers(message)
        added = git(root, "diff-tree", "-r", "--relative", "--no-commit-id", "--name-only",
                    "--diff-filter=A", sha).split()  # fmt: skip
        for path in (p for p in added if p.endswith(".py")):
            if path not in later:
                later[path] = _marked(show(root, rev, path) or "")
            for name, (node, mark) in _marked(show(root, sha, path) or "").items():
                now = later[path].get(name)
                status = (
                    "deleted" if now is None
                    else "unchanged" if _shape(now[0]) == _shape(node)
                    else "edited"
                )  # fmt: skip
                tests.append(
                    GeneratedTest(
                        path,
                        name,
                        mark.get("task") or trailers.get("task", "?"),
                        mark.get("sprint") or trailers.get("sprint", "?"),
                        trailers.get("writer", "?"),
                        sha,
                        day,
                        status,
                    )
                )
    return StatsReport(rev, since, tests)
