"""Workspaces: overlays, and a reset that leaves nothing of one candidate for the next."""

from __future__ import annotations

import os
import time

import pytest

from assay.errors import InputError
from assay.execution.workspace import Workspace
from assay.sandbox.view import TEST_UID, as_root
from tests.conftest import tree_digest

FILES = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
    "tests/test_ops.py": "from calc.ops import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "data/table.csv": "a,b\n1,2\n",
}


def test_overlays_write_over_the_copy_and_reset_undoes_everything(project):
    root = project(FILES)
    user = tree_digest(root)
    with Workspace(root) as ws:
        pristine = tree_digest(ws.project)
        ws.apply(
            {
                "tests/test_new.py": "def test_x():\n    assert True\n",
                "src/calc/ops.py": "BROKEN = 1\n",
                "data/table.csv": None,
            }
        )
        assert (ws.project / "tests/test_new.py").is_file() and not (
            ws.project / "data/table.csv"
        ).exists()
        # what a hostile or careless run can leave behind
        (ws.project / "src/calc/__pycache__").mkdir()
        (ws.project / "src/calc/__pycache__/ops.cpython-311.pyc").write_bytes(b"\0" * 10)
        (ws.project / "new_dir/deep").mkdir(parents=True)
        (ws.project / "new_dir/deep/f.txt").write_text("x")
        (ws.project / "tests/test_ops.py").chmod(0o600)
        os.symlink("/etc/passwd", ws.project / "link")
        (ws.run_dir / "leftover.json").write_text("{}")
        (ws.cache_dir / "build.o").write_text("kept")
        ws.reset()
        assert tree_digest(ws.project) == pristine
        assert list(ws.run_dir.iterdir()) == []
        # a toolchain's build cache survives
        assert (ws.cache_dir / "build.o").read_text() == "kept"
        assert ws.resets == 1
    assert tree_digest(root) == user  # the user's tree is only ever read


def test_a_rewrite_that_restores_size_and_mtime_is_still_undone(project):
    root = project(FILES)
    with Workspace(root) as ws:
        target = ws.project / "src/calc/ops.py"
        st = target.stat()
        original = target.read_text()
        time.sleep(0.01)
        target.write_text(original.replace("a + b", "a - b"))  # same size
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back; ctime cannot be
        ws.reset()
        assert target.read_text() == original


def test_reset_copies_afresh_when_the_user_changed_a_file_meanwhile(project):
    root = project(FILES)
    with Workspace(root) as ws:
        (ws.project / "src/calc/ops.py").write_text("changed by a test\n")
        (root / "src/calc/ops.py").write_text(
            "def add(a, b):\n    return b + a  # edited by the user\n"
        )
        ws.reset()
        assert "edited by the user" in (ws.project / "src/calc/ops.py").read_text()


def test_reset_gets_through_a_directory_a_test_locked(project):
    root = project(FILES)
    with Workspace(root) as ws:
        locked = ws.project / "locked"
        locked.mkdir()
        (locked / "f").write_text("x")
        locked.chmod(0)
        ws.reset()
        assert not locked.exists()


@pytest.mark.parametrize("bad", ["../outside.py", "/etc/passwd", "tests/../../x.py", ""])
def test_overlay_paths_stay_inside_the_project(project, bad):
    root = project(FILES)
    with Workspace(root) as ws, pytest.raises(InputError):
        ws.apply({bad: "x"})


def test_links_are_served_from_the_user_tree_and_kept_dirs_survive_reset(project):
    root = project(
        {
            **FILES,
            "node_modules/lib/index.js": "module.exports = 1\n",
            "node_modules/.vite-temp/old.mjs": "export default {}\n",
        }
    )
    with Workspace(root, links=["node_modules"], keep=["target"]) as ws:
        # each package is a link to the user's; Vite's bundled-config directory is the copy's own
        assert (ws.project / "node_modules/lib").is_symlink()
        assert not os.path.lexists(ws.project / "node_modules/.vite-temp")
        (ws.project / "node_modules/.vite-temp").mkdir()
        assert (ws.project / "node_modules/lib/index.js").read_text() == "module.exports = 1\n"
        (ws.project / "target/classes").mkdir(parents=True)
        (ws.project / "target/classes/A.class").write_bytes(b"\xca\xfe")
        with pytest.raises(InputError):
            ws.apply({"node_modules/lib/index.js": "hacked"})
        ws.reset()
        assert (ws.project / "target/classes/A.class").exists()
        assert (ws.project / "node_modules/lib").is_symlink()
    assert (root / "node_modules/.vite-temp/old.mjs").exists()
    assert sorted(p.name for p in (root / "node_modules").iterdir()) == [".vite-temp", "lib"]


def test_files_restored_by_a_reset_stay_writable_by_the_tests_uid(project):
    """A reset restored a file a test had rewritten as assay's own (root's): the next file's tests,
    which run under another uid, could no longer write it, and failed where they pass alone."""
    if not as_root():
        pytest.skip("assay hands the scratch copy over to the tests' uid only when it runs as root")
    root = project(FILES)
    with Workspace(root) as ws:
        ops = ws.path("src/calc/ops.py")
        ops.write_text("def add(a, b):\n    return a - b\n")
        ws.apply({"tests/test_ops.py": "def test_x():\n    assert True\n"})
        ws.reset()
        assert ops.stat().st_uid == TEST_UID
        assert ws.path("tests/test_ops.py").stat().st_uid == TEST_UID


def test_a_source_directory_named_like_a_build_output_is_copied(project):
    """commons-io 2.16.1 has a package `org.apache.commons.io.build`: the copy left out every
    directory named `build`, its module did not compile there, and each file was `unvalidated`.
    Outputs are left out where a build puts them: at the root, or beside a build file."""
    root = project(
        {
            "pom.xml": "<project/>\n",
            "target/classes/A.class": "x",
            "build/out.txt": "x",
            "src/main/java/org/io/build/Builder.java": "package org.io.build;\n",
            "src/dist/tables.py": "T = 1\n",
            "web/package.json": "{}\n",
            "web/dist/bundle.js": "x",
            "web/src/target/aim.js": "x",
        }
    )
    with Workspace(root) as ws:
        copied = {
            p.relative_to(ws.project).as_posix() for p in ws.project.rglob("*") if p.is_file()
        }
    extra = {p.name for p in root.iterdir() if p.name == "pyproject.toml"}  # the fixture's
    assert copied - extra == {
        "pom.xml",
        "src/main/java/org/io/build/Builder.java",
        "src/dist/tables.py",
        "web/package.json",
        "web/src/target/aim.js",
    }
