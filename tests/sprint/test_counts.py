"""Counts in the sprint views read as English: "1 commit, 1 file", not "1 commits, 1 files"."""

from assay.sprint.model import ClassifiedTask, Task, TaskClass, TasksReport
from assay.sprint.render import tasks_text
from assay.words import counted


def test_one_task_of_one_commit_and_one_file_is_counted_in_the_singular():
    task = ClassifiedTask(
        Task("SPAN-1", "Round prices half up"),
        TaskClass.CORE,
        "type: story",
        commits=["a" * 40],
        files=["src/shop/pricing.py"],
    )
    text = tasks_text(TasksReport("S42", "file", [task]))
    assert "sprint S42 (file): 1 task\n" in text
    assert "1 commit, 1 file" in text


def test_counted_takes_the_plural_only_when_the_count_is_not_one():
    assert [counted(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert counted(2, "child", "children") == "2 children"
