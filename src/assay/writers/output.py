"""Where accepted tests go, and how: next to the module's existing tests (or `output_dir`), under a
name no file has - a user's file is never overwritten - marked `@pytest.mark.assay_generated` (with
the task id when there is one); suspected bugs as xfail(strict=True) tests plus
`assay-suspected-bugs.md` / `.json`. Other languages choose their own place (`Language.plan_tests`)
and carry a header comment instead of markers."""

from __future__ import annotations

import ast
import json
import threading
from pathlib import PurePosixPath

from assay.errors import InputError
from assay.languages import LANGUAGES, WritePlan
from assay.llm.context import tests_of
from assay.project import Project
from assay.targets.model import Target
from assay.writers.edit import mark
from assay.writers.report import SuspectedBug

BUGS_HEADER = "# assay: suspected bugs"


def marker(target: Target) -> str:
    task_id = target.task_id
    return (
        f"pytest.mark.assay_generated(task={task_id!r})"
        if task_id
        else "pytest.mark.assay_generated"
    )


class Output:
    """Plans unique output paths for a run (thread-safe) and writes files that do not exist yet."""

    def __init__(self, project: Project, output_dir: str | None, file_name: str, dry_run: bool):
        self.project = project
        self.output_dir = output_dir
        self.file_name = file_name
        self.dry_run = dry_run
        self._taken: set[str] = set()
        self._lock = threading.Lock()

    def _directory(self, target: Target) -> str:
        if self.output_dir:
            return PurePosixPath(self.output_dir).as_posix().rstrip("/")
        existing = tests_of(self.project, target.module)
        if existing:
            return self.project.rel(existing[0].parent)
        return "tests"

    def plan(self, target: Target) -> str:
        """A project-relative path for the target's test file that neither exists nor is planned by
        another target of this run."""
        directory = self._directory(target)
        module = PurePosixPath(target.module)
        # a package's own module is tested as the package: test_pkg_generated.py
        stem = (
            module.parent.name if module.stem == "__init__" and module.parent.name else module.stem
        )
        base = self.file_name.format(module=stem)
        with self._lock:
            for n in range(1, 1000):
                name = base if n == 1 else base[:-3] + f"_{n}.py"
                rel = f"{directory}/{name}" if directory not in ("", ".") else name
                if rel not in self._taken and not (self.project.root / rel).exists():
                    self._taken.add(rel)
                    return rel
        raise InputError(f"no free file name for tests of {target.module} in {directory}")

    def release(self, rel: str) -> None:
        """A planned name nothing was written to, free again: the next target of the module takes
        it instead of a numbered one."""
        with self._lock:
            self._taken.discard(rel)

    def plan_other(self, target: Target) -> WritePlan:
        """For a target in another language: the language's own choice of file (its test layout, its
        naming), the first one that neither exists nor is planned by another target of this run."""
        lang = LANGUAGES[target.language]
        with self._lock:
            for n in range(1, 1000):
                plan = lang.plan_tests(self.project.root, target.module, n)
                if plan is None:
                    raise InputError(f"assay generate does not write {lang.title} tests yet")
                if plan.path not in self._taken and not (self.project.root / plan.path).exists():
                    self._taken.add(plan.path)
                    return plan
        raise InputError(f"no free file name for tests of {target.module}")

    def write(self, rel: str, text: str) -> None:
        """Create the file; never replace one (a file that appeared since planning is an error, not
        a target)."""
        if self.dry_run:
            return
        path = self.project.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as f:
            f.write(text)

    def write_bugs(self, name: str, bugs: list[SuspectedBug]) -> list[str]:
        """`<name>.md` (a report a person reads) and `<name>.json`; files of that name are replaced
        only when assay wrote them."""
        if self.dry_run or not bugs:
            return []
        md_path = self.project.root / f"{name}.md"
        json_path = self.project.root / f"{name}.json"
        for path in (md_path, json_path):
            if path.exists() and not path.read_text(
                encoding="utf-8", errors="replace"
            ).lstrip().startswith((BUGS_HEADER, '{\n  "schema": "assay.suspected-bugs')):
                raise InputError(
                    f"{path.name} exists and was not written by assay; set [tool.assay.generate] "
                    "bugs_file to another name"
                )
        lines = [
            BUGS_HEADER,
            "",
            "Tests that follow the documented contract (docstring, task, type hints) but fail "
            "on the current code, as judged by the reviewer. "
            "Each is kept as `xfail(strict=True)`: it will "
            "fail loudly once the code is fixed, so remove the mark then.",
            "",
        ]
        for bug in bugs:
            lines += [
                f"## {bug.test}",
                "",
                f"- target: `{bug.target}`",
                f"- test file: `{bug.file}`" if bug.file else "- test file: not written",
                f"- reviewer: {bug.reason}",
                "",
                "```",
                bug.failure.strip(),
                "```",
                "",
            ]
        md_path.write_text("\n".join(lines), encoding="utf-8")
        json_path.write_text(
            json.dumps(
                {"schema": "assay.suspected-bugs/1", "bugs": [b.to_json() for b in bugs]}, indent=2
            )
            + "\n",
            encoding="utf-8",
        )
        return [md_path.name, json_path.name]


def _imports(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    return [
        "\n".join(lines[n.lineno - 1 : n.end_lineno])
        for n in tree.body
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]


def _test_block(source: str, name: str) -> str | None:
    """The source of one top-level test function (with decorators)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            return "\n".join(lines[start - 1 : node.end_lineno])
    return None


def compose_final(
    accepted: str | None, bug_sources: list[tuple[str, str, str]], target: Target
) -> str | None:
    """The file to write: the accepted tests, plus each suspected-bug test (name, its file, reason)
    copied with the imports it needs, every test marked; None when there is nothing to write."""
    if accepted is None and not bug_sources:
        return None
    text = accepted or ""
    xfail: dict[str, str] = {}
    for name, source, reason in bug_sources:
        block = _test_block(source, name)
        if block is None:
            continue
        if not text:
            text = "\n".join(_imports(source)) + "\n"
        missing = [imp for imp in _imports(source) if imp not in text]
        if missing:
            text = "\n".join(missing) + "\n" + text
        text = text.rstrip("\n") + "\n\n\n" + block + "\n"
        xfail[name] = f"suspected bug: {reason}"[:300]
    return mark(text, marker(target), xfail)
