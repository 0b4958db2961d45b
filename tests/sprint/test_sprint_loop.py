"""The whole loop on the fixture repository (issue 30): tasks classified by rules, tests for the
core tasks onto a new branch with one commit per task, marked with task and sprint, the
merge-request description, and the acceptance after a scripted review."""

from __future__ import annotations

import ast
import json

from assay import api
from assay.sprint.stats_render import stats_text
from tests.conftest import run_cli
from tests.sprint.fixture import EXPECTED, git, sprint_repo


def test_tasks_classifies_every_task_by_rules(tmp_path):
    root = sprint_repo(tmp_path / "shop")
    proc = run_cli(
        "tasks", "--tracker", "file:../tasks.json", "--sprint", "S42", "--no-coverage",
        "-f", "json", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert listed["sprint"] == "S42"
    tasks = {t["id"]: t for t in listed["tasks"]}
    assert {i: t["class"] for i, t in tasks.items()} == EXPECTED
    # word-bounded: the SPAN-10 commit is not SPAN-1's
    assert tasks["SPAN-1"]["files"] == ["src/shop/pricing.py"]
    assert tasks["SPAN-1"]["targets"] == ["src/shop/pricing.py::apply_discount"]
    assert tasks["SPAN-2"]["targets"] == ["src/shop/stock.py::Stock.refund"]
    assert tasks["SPAN-3"]["reason"].startswith("files:")
    assert tasks["SPAN-6"]["reason"] == "type 'Incident'"
    assert "give --writer" in tasks["SPAN-7"]["reason"] and tasks["SPAN-7"]["commits"] == []
    assert all(len(t["commits"]) == 1 for i, t in tasks.items() if i != "SPAN-7")
    assert tasks["SPAN-8"]["files"] == ["src/shop/pricing.py"] and tasks["SPAN-8"]["targets"] == []
    assert tasks["SPAN-8"]["reason"].startswith(
        "no rule decides (its commits touch only tests, docs"
    )


def test_generate_sprint_writes_a_branch_and_leaves_the_tree_alone(sprint_run):
    root = sprint_run.root
    assert sprint_run.after == sprint_run.before  # working tree byte-identical
    assert sprint_run.head_after == sprint_run.head_before
    assert git(root, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git(root, "status", "--porcelain").strip() == "?? notes.txt"
    log = git(root, "log", "--format=%s", "main..assay/sprint-S42").splitlines()
    assert log == [
        "SPAN-2: tests for Stock goes negative on refunds",
        "SPAN-1: tests for Discount must not exceed the price",
    ]
    tasks = {t["id"]: t for t in sprint_run.report["tasks"]}
    assert set(tasks) == {"SPAN-1", "SPAN-2"}
    assert {t["id"] for t in sprint_run.report["skipped"]} == {f"SPAN-{n}" for n in range(3, 9)}
    # the model is asked only where no rule decides, and its non-answer keeps it unclassified
    span7 = next(t for t in sprint_run.report["skipped"] if t["id"] == "SPAN-7")
    assert span7["class"] == "unclassified" and "model answered 'unsure'" in span7["reason"]
    for task_id, path in (("SPAN-1", "tests/test_pricing_generated.py"),
                          ("SPAN-2", "tests/test_stock_generated.py")):  # fmt: skip
        assert tasks[task_id]["files"] == [path] and tasks[task_id]["kept"] > 0
        source = git(root, "show", f"assay/sprint-S42:{path}")
        tree = ast.parse(source)
        tests = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert tests and all(
            ast.unparse(n.decorator_list[0])
            == f"pytest.mark.assay_generated(task='{task_id}', sprint='S42')"
            for n in tests
        )
        message = git(root, "log", "-1", "--format=%B", tasks[task_id]["commit"])
        assert f"Assay-Task: {task_id}\nAssay-Sprint: S42\nAssay-Writer: command:" in message


def test_stale_docstring_is_withheld_and_listed(sprint_run):
    # the scripted writer answers no code when it sees the stale docstring: kept > 0 says withheld
    span1 = next(t for t in sprint_run.report["tasks"] if t["id"] == "SPAN-1")
    assert [(d["symbol"], d["days_older"] > 600) for d in span1["docs_debt"]] == [
        ("apply_discount", True)
    ]
    assert "documentation debt (withheld from the writer): src/shop/pricing.py::apply_discount" in (
        sprint_run.mr
    )


def test_merge_request_description_and_command(sprint_run):
    mr = sprint_run.mr
    assert mr.startswith("# Tests for sprint S42")
    assert "## SPAN-1: Discount must not exceed the price" in mr
    assert "- tested: `src/shop/pricing.py::apply_discount`" in mr
    assert "- gates: " in mr and "## Not tested" in mr and "SPAN-3 (frontend)" in mr
    # no gh/glab run without --open-mr: the command is given instead
    assert sprint_run.report["mr_command"].startswith("git push -u origin assay/sprint-S42 && ")


def test_second_run_refuses_to_overwrite_the_branch(sprint_run):
    proc = run_cli(
        "generate", "--sprint", "S42", "--tracker", "file:../tasks.json", cwd=sprint_run.root
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "assay: error: branch assay/sprint-S42 exists already; delete it or give another --branch"
    ]


def test_stats_after_review(reviewed):
    proc = run_cli("stats", "-f", "json", cwd=reviewed)
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout)
    status = {t["name"]: t["status"] for t in stats["tests"]}
    assert status == {
        "test_discount_takes_percentage_off": "edited",
        "test_discount_bounds_are_allowed": "unchanged",
        "test_discount_out_of_range_is_refused": "unchanged",
        "test_refund_puts_items_back": "unchanged",
        "test_refund_of_nothing_is_refused": "deleted",
    }
    by_task = {t["key"]: (t["total"], t["acceptance"]) for t in stats["by_task"]}
    assert by_task == {"SPAN-1": (3, 1.0), "SPAN-2": (2, 0.5)}
    assert stats["by_sprint"][0]["key"] == "S42" and stats["overall"]["acceptance"] == 0.8
    assert stats["by_writer"][0]["key"].startswith("command:")
    text = run_cli("stats", cwd=reviewed).stdout
    assert "5 generated tests: 3 unchanged, 1 edited, 1 deleted; acceptance 80.0%" in text
    # in process (the CLI above is the same call): before review, and a window with none
    assert api.stats(root=reviewed, rev="HEAD~1").overall.acceptance == 1.0
    later = api.stats(root=reviewed, since="2099-01-01")
    assert later.tests == [] and stats_text(later).startswith("no generated tests in the history")


def test_bad_input_is_one_line(sprint_run):
    cases = [
        (["tasks", "--tracker", "nope:x", "--sprint", "S"], "--tracker 'nope:x': expected"),
        (["generate", "--sprint", "S42"], "--sprint and --tracker go together"),
        (["stats", "--rev", "no-such-rev"], "--rev 'no-such-rev': no such revision"),
    ]
    for args, expected in cases:
        proc = run_cli(*args, cwd=sprint_run.root)
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and expected in proc.stderr, args
