"""The classification rules one by one, and the word-bounded task id (in process: no git)."""

from __future__ import annotations

import pytest

from assay.sprint.classify import classify
from assay.sprint.commits import names
from assay.sprint.model import Task


@pytest.mark.parametrize(
    ("task", "files", "expected", "reason"),
    [
        # a label naming a class beats the files: the hotfix of an incident is SRE work
        (Task("A-1", "Hotfix", labels=("incident",)), ["src/app/pay.py"], "incident", "label"),
        (Task("A-2", "x", type="Bug"), ["src/app/pay.py", "templates/pay.html"], "core", "files"),
        (Task("A-3", "x", type="Bug"), ["web/components/Cart.tsx"], "frontend", "files"),
        (Task("A-4", "x"), ["src/app/integrations/stripe.py", "a.css"], "adapters", "files"),
        (Task("A-5", "x"), ["migrations/0042_add.py"], "technical", "files"),
        (Task("A-6", "x"), ["poetry.lock", "pyproject.toml"], "technical", "files"),
        (Task("A-7", "x", type="Feature"), [], "core", "type"),
        (Task("A-8", "Outage of the checkout"), [], "incident", "title"),
        (Task("A-9", "Slack webhook retries"), ["tests/test_hook.py"], "adapters", "title"),
        (Task("A-10", "Tidy up"), ["README.md", "tests/test_x.py"], "unclassified", "no rule"),
    ],
)  # fmt: skip
def test_rules(task, files, expected, reason):
    decided = classify(task, files, named=bool(files))
    assert decided.task_class.value == expected
    assert decided.reason.startswith(reason)


def test_a_model_decides_only_where_no_rule_does():
    asked = []

    def model(task):
        asked.append(task.id)
        return None

    assert classify(Task("B-1", "x", type="Bug"), [], model).task_class.value == "core"
    decided = classify(Task("B-2", "Tidy up"), [], model)
    assert asked == ["B-2"] and decided.reason.endswith("the model gave no class")


@pytest.mark.parametrize(
    ("message", "found"),
    [("SPAN-1: fix", True), ("Fix (SPAN-1)", True), ("SPAN-12 fix", False),
     ("XSPAN-1 fix", False), ("span-1 fix", False), ("see #12.", True), ("see #123", False)],
)  # fmt: skip
def test_task_id_is_word_bounded(message, found):
    task_id = "#12" if "#" in message else "SPAN-1"
    assert bool(names(task_id).search(message)) is found
