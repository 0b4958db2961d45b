"""Loading tasks: member forms, the one-line reasons that make a task invalid, how test
commands run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.prism.command import plan
from assay.prism.task import load_task
from tests.prism.conftest import BENCH, copy_task


def test_the_bundled_tasks_load_with_every_member_form():
    slug = load_task(BENCH / "slugify-unicode")  # reference.patch, X.patch and full trees
    merge = load_task(BENCH / "interval-merge")  # reference/ tree, X/X.patch
    roman = load_task(BENCH / "roman-numerals")  # reference/reference.patch, src layout
    for task in (slug, merge, roman):
        assert task.problem is None
        assert task.validator is not None
    assert [m.label for m in merge.panel] == [
        "original",
        "reference",
        "correct/generator",
        "correct/index-walk",
        "correct/stack",
        "faulty/mutates-input",
        "faulty/no-max",
        "faulty/no-touch",
        "faulty/unsorted",
    ]
    # a full tree reduces to what differs
    assert set(slug.reference.overlays) == {"slugify/core.py"}
    assert set(next(m for m in slug.correct if m.name == "casefold").overlays) == {
        "slugify/core.py"
    }
    assert roman.entry_points == ["roman.convert:to_roman"]


def empty(directory: Path) -> None:
    for p in directory.iterdir():
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def broken(tmp_path, edit) -> str | None:
    task = copy_task("slugify-unicode", tmp_path)
    edit(task)
    return load_task(task).problem


@pytest.mark.parametrize(
    "edit, reason",
    [
        (lambda t: (t / "task.toml").unlink(), "missing task.toml"),
        (
            lambda t: (t / "task.toml").write_text("id = 'x'\ntimeout = 3\n"),
            "task.toml: unknown key 'timeout'",
        ),
        (lambda t: (t / "task.toml").write_text("id = 'x\n"), "task.toml is not valid TOML"),
        (
            lambda t: (t / "task.toml").write_text("timeout_s = -1\n"),
            "'timeout_s' must be a positive number",
        ),
        (
            lambda t: (t / "task.toml").write_text("suite_dest = '../out'\n"),
            "suite_dest '../out' must be a directory",
        ),
        (
            lambda t: (t / "task.toml").write_text("suite_dest = '.'\n"),
            "suite_dest '.' must be a directory inside",
        ),
        (
            lambda t: (t / "task.toml").write_text("entry_points = ['nocolon']\n"),
            "'entry_points' must be a list",
        ),
        (
            lambda t: (t / "faulty" / "no-collapse.patch").write_text(
                "--- a/slugify/core.py\n+++ b/slugify/core.py\n@@ "
                "-1,2 +1,2 @@\n-nope\n+x\n context\n"
            ),
            "faulty/no-collapse: no-collapse.patch does not apply: slugify/core.py: hunk 1",
        ),
        (lambda t: empty(t / "faulty"), "no faulty implementations: faulty/ is empty"),
        (lambda t: shutil.rmtree(t / "correct"), "no correct implementations: correct/ is missing"),
        (lambda t: (t / "reference").mkdir(), "both reference/ and reference.patch exist"),
        (
            lambda t: (t / "correct" / "notes.txt").write_text("x"),
            "correct/notes.txt: neither a directory nor",
        ),
    ],
)
def test_a_broken_task_is_invalid_with_one_line(tmp_path, edit, reason):
    problem = broken(tmp_path, edit)
    assert problem is not None and reason in problem
    assert "\n" not in problem


@pytest.mark.parametrize(
    "language, command, kind, args",
    [
        (
            "python",
            "python -m pytest -q -p no:cacheprovider {suite}",
            "runner",
            ("-q", "-p", "no:cacheprovider"),
        ),
        ("python", "pytest -x {suite}", "runner", ("-x",)),
        ("python", None, "runner", ()),
        ("python", "cd {suite} && python -m pytest", "shell", ()),
        ("python", "python -m pytest {suite}/test_a.py", "shell", ()),
        ("go", "go test ./... {suite}", "shell", ()),
    ],
)
def test_standard_pytest_commands_go_to_the_runner_and_others_to_the_shell(
    language, command, kind, args
):
    p = plan(language, command)
    assert p.kind == kind
    assert p.pytest_args == args


def test_a_shell_pytest_command_gets_junit_appended_only_when_safe():
    assert plan("python", "python -m pytest {suite}/test_a.py").append_junit
    assert not plan("python", "cd x && pytest").append_junit
    assert not plan("python", "pytest --junitxml={junit} {suite}/t.py").append_junit
