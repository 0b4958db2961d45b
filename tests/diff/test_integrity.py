"""The integrity rules on pairs of old/new test files (no git, no run), and the change set git
gives for deletions, renames and untracked files."""

from __future__ import annotations

import textwrap

import pytest

from assay.diff import changes
from assay.diff.changes import Kind
from assay.diff.docs import render
from assay.diff.integrity import compare
from assay.diff.rules import RULES
from tests.conftest import REPO
from tests.diff.fixture import git


def _found(old: str, new: str, code_changed: bool = True) -> list[tuple[str, str]]:
    found = compare("tests/test_x.py", textwrap.dedent(old), textwrap.dedent(new), code_changed)
    return [(f.rule, f.message) for f in found]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("assert f(1) == 0.5", "assert f(1) == pytest.approx(0.5)", "became approximate"),
        ("assert f(1) == 0.5", "assert math.isclose(f(1), 0.5)", "became approximate"),
        ("assert f(1) == 'a'", "assert 'a' in f(1)", "became membership"),
        ("assert f(1) == 3", "assert f(1)", "truthiness"),
        ("assert f(1) == 3", "assert f(1) is not None", "inequality"),
        ("assert f(1) == 3", "assert f(1) >= 3", "inequality"),
        ("self.assertEqual(f(1), 3)", "self.assertTrue(f(1))", "assertEqual became assertTrue"),
    ],
)
def test_loosened_assertions(old, new, message):
    [(rule, said)] = _found(f"def test_f():\n    {old}\n", f"def test_f():\n    {new}\n")
    assert rule == "AI003" and message in said


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("pytest.raises(KeyError)", "pytest.raises(Exception)", "base exception"),
        ("pytest.raises(KeyError)", "pytest.raises((KeyError, ValueError))", "tuple"),
        ("pytest.raises(KeyError, match='x')", "pytest.raises(KeyError)", "match= removed"),
    ],
)
def test_widened_raises(old, new, message):
    body = "def test_f():\n    with {}:\n        f()\n"
    [(rule, said)] = _found(body.format(old), body.format(new))
    assert rule == "AI003" and message in said


def test_removed_assert_skip_xfail_and_deletion():
    old = """\
    def test_a():
        assert f(1) == 1
        assert f(2) == 2

    def test_b():
        assert f(3) == 3

    class TestC:
        def test_c(self):
            assert f(4) == 4

    def test_d():
        assert f(5) == 5
    """
    new = """\
    import pytest

    def test_a():
        assert f(1) == 1

    @pytest.mark.xfail
    def test_b():
        assert f(3) == 3

    class TestC:
        def test_c(self):
            pytest.skip("later")
            assert f(4) == 4

    def test_e():
        assert f(5) == 5
    """
    assert _found(old, new) == [
        ("AI003", "assertion removed"),
        ("AI002", "test newly skipped or xfailed"),
        ("AI002", "test newly skipped or xfailed"),
    ]  # test_d renamed to test_e with the same body: not a deletion
    assert (
        _found(old, "") == [("AI001", "test deleted (file deleted; line of the base revision)")] * 4
    )


def test_an_edited_expectation_counts_only_when_the_code_changed_and_levels_follow_it():
    old, new = "def test_f():\n    assert f(42) == 10\n", "def test_f():\n    assert f(42) == 9\n"
    assert _found(old, new) == [
        ("AI004", "expected value changed while the code under test changed")
    ]
    assert _found(old, new, code_changed=False) == []
    assert _found(old, "def test_f():\n    assert f(43) == 9\n") == []  # a new case, not an edit
    weak = compare("t.py", old, "def test_f():\n    assert f(42)\n", code_changed=False)
    assert [f.level for f in weak] == ["warn"]
    # stronger, or unchanged: nothing
    assert _found("def test_f():\n    assert f(1)\n", "def test_f():\n    assert f(1) == 2\n") == []


def test_changes_name_deleted_renamed_and_untracked_files_with_changed_lines(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    (root / "gone.py").write_text("pass\n")
    (root / "old_name.py").write_text("".join(f"v{i} = {i}\n" for i in range(20)))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    (root / "a.py").write_text("x = 1\ny = 20\nz = 3\n")
    (root / "gone.py").unlink()
    git(root, "mv", "old_name.py", "new_name.py")
    (root / "fresh.py").write_text("a = 1\nb = 2\n")
    found = changes(root, "HEAD")
    kinds = {p: (c.kind, sorted(c.lines)) for p, c in found.files.items()}
    assert kinds == {
        "a.py": (Kind.MODIFIED, [2]),
        "gone.py": (Kind.DELETED, []),
        "new_name.py": (Kind.RENAMED, []),
        "fresh.py": (Kind.UNTRACKED, [1, 2]),
    }
    assert found.old_text(found.files["new_name.py"]).startswith("v0 = 0")
    assert found.old_text(found.files["fresh.py"]) is None
    # auto: the merge base with the default branch, here `main` (no origin)
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feature work")
    assert changes(root, "auto").base == base
    assert set(changes(root, "auto").files) == {"a.py", "gone.py", "new_name.py", "fresh.py"}


def test_every_rule_is_documented():
    text = (REPO / "docs/integrity.md").read_text()
    assert text == render(), "run: python -m assay.diff.docs > docs/integrity.md"
    assert all(f"## {r.id} {r.name}" in text and "Bad" in r.doc for r in RULES.values())


def test_the_pre_commit_hook_runs_the_staged_check():
    yaml = pytest.importorskip("yaml")

    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["assay-integrity"]["entry"] == "assay integrity --staged"
    assert hooks["assay-integrity"]["pass_filenames"] is False


def test_an_assert_on_the_exception_moved_into_match_is_not_a_removal():
    """humanize 0e02705: `assert str(excinfo.value) == m` became `pytest.raises(..., match=m)`."""
    old = """\
    def test_f():
        with pytest.raises(KeyError) as excinfo:
            f()
        assert str(excinfo.value) == MSG
    """
    new = "def test_f():\n    with pytest.raises(KeyError, match=MSG):\n        f()\n"
    assert _found(old, new) == []


def test_an_edited_expectation_of_a_parametrized_case():
    """humanize 6d89dfa: `(timedelta(hours=23, minutes=50, seconds=50), "23 hours")` -> "a day"."""
    old = """\
    @pytest.mark.parametrize("value, expected", [(1, "one"), (2, "two")])
    def test_f(value, expected):
        assert f(value) == expected
    """
    new = old.replace('(2, "two")', '(2, "deux"), (3, "three")')
    found = compare("t.py", textwrap.dedent(old), textwrap.dedent(new), code_changed=True)
    assert [(f.rule, f.old, f.new) for f in found] == [("AI004", "(2, 'two')", "(2, 'deux')")]
    assert compare("t.py", textwrap.dedent(old), textwrap.dedent(new), code_changed=False) == []


def test_a_deleted_test_file_of_changed_code_is_a_rejected_file_and_a_test_only_one_a_note(
    tmp_path,
):
    from assay.diff.judge import DiffPlan, apply
    from assay.diff.rules import IntegrityFinding
    from assay.model import Report

    gone = IntegrityFinding("AI001", "reject", "tests/test_gone.py", 3, "test deleted", "test_a")
    tidy = IntegrityFinding("AI001", "warn", "tests/test_old.py", 5, "test deleted", "test_b")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text("")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    report = apply(
        Report(str(root), [], None, 0.0), DiffPlan(changes(root, "HEAD"), [], [gone, tidy])
    )
    [file] = report.files
    assert (file.path, file.verdict.value, file.rejected_at) == (
        "tests/test_gone.py",
        "rejected",
        "integrity",
    )
    assert report.exit_code == 1
    assert report.notes[0].startswith("diff scope since HEAD") and "no test file" in report.notes[0]
    assert any("tests/test_old.py:5: AI001" in n for n in report.notes)
