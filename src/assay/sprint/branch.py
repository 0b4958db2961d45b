"""The sprint's tests onto a new branch, one commit per task, with git plumbing: blobs, a tree
built in a temporary index (`GIT_INDEX_FILE`), `commit-tree`, and one new ref at the end. The
user's current branch, index and working tree are never touched."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from assay.errors import InputError
from assay.sprint.git import git


def check_new(root: Path, branch: str) -> None:
    """A usable branch name that does not exist yet (an existing one would be someone's work)."""
    if git(root, "check-ref-format", "--branch", branch, check=False).strip() == "":
        raise InputError(f"--branch {branch!r} is not a valid branch name")
    if git(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False).strip():
        raise InputError(f"branch {branch} exists already; delete it or give another --branch")


class BranchWriter:
    """Commits files on top of `base`, one commit at a time; `finish` creates the branch."""

    def __init__(self, root: Path, base: str, branch: str):
        self.root = root
        self.branch = branch
        self.head = git(root, "rev-parse", "--verify", f"{base}^{{commit}}").strip()
        self.base = self.head

    def commit(self, files: dict[str, bytes], message: str) -> str:
        """A commit of `files` (repo-relative path -> content) on the last one; its sha."""
        with tempfile.TemporaryDirectory(prefix="assay-index-") as tmp:
            env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
            git(self.root, "read-tree", self.head, env=env)
            for rel, data in sorted(files.items()):
                blob_path = Path(tmp) / "blob"
                blob_path.write_bytes(data)
                blob = git(self.root, "hash-object", "-w", "--", str(blob_path)).strip()
                git(
                    self.root,
                    "update-index",
                    "--add",
                    "--cacheinfo",
                    f"100644,{blob},{rel}",
                    env=env,
                )
            tree = git(self.root, "write-tree", env=env).strip()
        self.head = git(
            self.root, "commit-tree", tree, "-p", self.head, "-F", "-", stdin=message
        ).strip()
        return self.head

    def finish(self) -> bool:
        """Create the branch at the last commit; False when nothing was committed."""
        if self.head == self.base:
            return False
        git(self.root, "update-ref", f"refs/heads/{self.branch}", self.head, "")
        return True
