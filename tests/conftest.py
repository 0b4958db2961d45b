"""Shared helpers: small real projects on disk, the real CLI in a subprocess, tree digests."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def write_project(root: Path, files: dict[str, str], pyproject: str = "") -> Path:
    """A project with a pyproject.toml (so it is a root) and the given files, dedented."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "proj"\nversion = "0"\n' + textwrap.dedent(pyproject)
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under root (except assay's own .assay/) with its content hash and mode."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".assay"]
        for name in filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            out[p.relative_to(root).as_posix()] = (
                hashlib.sha256(p.read_bytes()).hexdigest() + f":{st.st_mode:o}"
            )
    return out


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300):
    """The real `assay` CLI in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "assay", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def verify_json(root: Path, rel: str, out: Path) -> tuple[dict, str]:
    """`assay verify REL -f json=OUT` run in `root` by the real CLI: the file's JSON entry, and the
    end of what the terminal showed (for failure messages)."""
    proc = run_cli("verify", rel, "-f", f"json={out}", cwd=root)
    [entry] = json.loads(out.read_text())["files"]
    return entry, proc.stdout[-3000:]


def commit_all(root: Path) -> None:
    """`git init` and one commit of everything under `root`: the project's committed state."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)


def bare_venv(base: Path) -> tuple[str, Path]:
    """A venv without pip under `base`: its python, and its site-packages directory (where a test
    puts the `.pth` files that reach what it should import)."""
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return python, Path(purelib)


@pytest.fixture
def project(tmp_path):
    """Factory: project(files, pyproject='') -> root."""

    def make(files: dict[str, str], pyproject: str = "", name: str = "proj") -> Path:
        return write_project(tmp_path / name, files, pyproject)

    return make


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Group the tests before every other implementation (an xdist worker reads the groups in
    its own), and put each group into its test's node id after them all (below)."""
    group_by_shared_fixtures(items)
    result = yield
    carry_groups_in_node_ids(config, items)
    return result


def group_by_shared_fixtures(items: list[pytest.Item]) -> None:
    """Keep the users of one shared (module or session) fixture of this suite on one xdist worker.

    Each xdist worker builds its own copy of a session fixture: the shared verify, generate and
    prism runs would be paid once per worker that gets one of their tests. Tests are grouped by
    what they share, transitively (a test of `reviewed` and one of `sprint_run` share the sprint
    run under it), and a fixture is known by where it is defined: two modules' `run` fixtures are
    two runs, not one group.
    """
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    shared_by: dict[pytest.Item, list[str]] = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        shared = sorted(
            f"{defs[-1].baseid}::{name}"
            for name, defs in info.name2fixturedefs.items()
            if defs and defs[-1].scope in ("module", "session") and defs[-1].baseid
        )
        if shared:
            shared_by[item] = shared
            for key in shared[1:]:
                parent[root(key)] = root(shared[0])
    for item, shared in shared_by.items():
        item.add_marker(pytest.mark.xdist_group(root(shared[0])))


def carry_groups_in_node_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--dist loadgroup` sends a group to one worker by the `@group` its worker appends to each
    node id; pytest 9.2 builds node ids from a structured id, so xdist 3.8's append to the old
    `_nodeid` field is lost and no test was grouped (pytest-dev/pytest-xdist#1386): every worker
    built every shared run it met. Appended here where xdist's did not take."""
    if not (os.environ.get("PYTEST_XDIST_WORKER") and getattr(config.option, "loadgroup", False)):
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest < 9.2: xdist's append took
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        names = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks}
        )
        nodeid = item.nodeid
        if names and nodeid.rfind("@") <= nodeid.rfind("]"):  # as xdist reads it: no group yet
            item._id = NodeId.parse(f"{nodeid}@{'_'.join(names)}")
