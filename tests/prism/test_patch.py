"""The strict unified-diff applier: what applies, what does not, and in one line why."""

from __future__ import annotations

import pytest

from assay.prism.patch import PatchError, apply, changed_lines, unified

OLD = "a\nb\nc\nd\ne\nf\ng\n"


def test_a_diff_written_by_unified_applies_back_exactly():
    new = "a\nB\nc\nd\ne\nf\ng\nh\n"
    assert apply(unified("x.py", OLD, new), {"x.py": OLD}) == {"x.py": new}


def test_files_are_created_and_deleted_through_dev_null():
    diff = unified("new.py", None, "hello\n") + unified("x.py", OLD, None)
    assert apply(diff, {"x.py": OLD}) == {"new.py": "hello\n", "x.py": None}


def test_a_missing_final_newline_survives_the_round_trip():
    new = OLD + "last"
    diff = unified("x.py", OLD, new)
    assert "\\ No newline at end of file" in diff
    assert apply(diff, {"x.py": OLD}) == {"x.py": new}


def test_a_hunk_found_at_an_offset_applies():
    diff = unified("x.py", OLD, OLD.replace("e\n", "E\n"))
    shifted = "zero\n" * 5 + OLD
    assert apply(diff, {"x.py": shifted})["x.py"] == shifted.replace("e\n", "E\n")


def test_git_style_headers_are_understood():
    diff = (
        "diff --git a/x.py b/x.py\nindex 123..456 100644\n--- a/x.py\n+++ b/x.py\n"
        "@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    )
    assert apply(diff, {"x.py": OLD})["x.py"] == OLD.replace("b\n", "B\n")


@pytest.mark.parametrize(
    "diff, files, message",
    [
        (
            "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-X\n+Y\n",
            {"x.py": OLD},
            "x.py: hunk 1 (@@ -1,2 +1,2 @@) does not",
        ),
        ("--- a/gone.py\n+++ b/gone.py\n@@ -1 +1 @@\n-a\n+b\n", {}, "gone.py: no such file"),
        (
            "--- /dev/null\n+++ b/x.py\n@@ -0,0 +1 @@\n+a\n",
            {"x.py": OLD},
            "x.py: the patch creates it, but it already",
        ),
        ("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n", {"x.py": OLD}, "ends early"),
        ("just some text\n", {}, "not a unified diff"),
        ("Binary files a/x.png and b/x.png differ\n", {}, "binary patches are not supported"),
    ],
)
def test_a_patch_that_does_not_apply_says_why_in_one_line(diff, files, message):
    with pytest.raises(PatchError) as err:
        apply(diff, files)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_changed_lines_are_added_in_new_and_removed_from_old():
    added, removed = changed_lines("a\nb\nc\n", "a\nB\nB2\nc\nd\n")
    assert (added, removed) == ({2, 3, 5}, {2})
