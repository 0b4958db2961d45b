"""Go: a package's test binary kept across workspaces and runs (`kept_binary`), so that an unchanged
candidate is neither vetted nor compiled nor linked again, as `go test` finds its build in its
cache (every workspace has a new directory, which Go's build cache keys by: each run compiled the
package and linked its test binary anew, 0.6-1.0 s of CPU).

The key: the `go` command (its real path, size and mtime; the profile sets `GOTOOLCHAIN=local`),
every file of the scratch copy but the candidate by name, size and mtime (the module's other
packages, go.mod and go.sum, embedded files; a copy keeps the user's mtimes, a file written over
it has a new one), the build's environment and command; the candidate's content is checked
against the record. Only a clean build is kept: `go vet` passed and no sibling test file had to
be taken out.

A Go binary names the directory it was built in (its function table holds absolute source paths):
a reused binary's output has that directory replaced by this workspace's (`rebase`), and a module
whose code asks for its own source path (`runtime.Caller`, `runtime.FuncForPC`: test data found
next to a source file) gets no kept binary, since it would look in a directory that is gone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from assay.languages import kept_binary
from assay.languages.kept_binary import Kept
from assay.languages.tooling import Ran, module_files

if TYPE_CHECKING:
    from assay.execution.workspace import Workspace
    from assay.languages.go import GoRunner

KIND = "go"
_OWN_PATH = re.compile(rb"\bruntime\.(Caller|FuncForPC)\b")


def _go_identity() -> str:
    go = shutil.which("go")
    if go is None:
        return "go ?"
    real = os.path.realpath(go)
    st = os.stat(real)
    return f"{real}\0{st.st_size}\0{st.st_mtime_ns}"


def key_of(runner: GoRunner, ws: Workspace, rel: str, argv: list[str]) -> str | None:
    """What the package's test binary depends on besides the candidate's content; None for a
    project too large to list cheaply."""
    state = kept_binary.project_state(ws, rel)
    if state is None:
        return None
    h = hashlib.sha256(f"{runner.project.root.resolve()}\0{_go_identity()}\0{state}\0".encode())
    h.update(kept_binary.environment(runner, ws).encode())
    h.update("\0".join(argv).replace(str(ws.base), "<ws>").encode())
    return h.hexdigest()[:32]


def reuse(ws: Workspace, key: str) -> Kept | None:
    return kept_binary.reuse(ws, KIND, key)


def keep(ws: Workspace, key: str, rel: str, exe: Path) -> None:
    """Keep the test binary just built for the candidate `rel`, unless the module's code looks up
    its own source path."""
    for go_file in module_files(ws.project, ".", (".go",), (), limit=kept_binary.MOST_FILES):
        try:
            if _OWN_PATH.search((ws.project / go_file).read_bytes()):
                return
        except OSError:
            return
    found = kept_binary.digest(ws.path(rel))
    if found is not None:
        kept_binary.keep(ws, KIND, key, exe, {rel: found})


def rebase(ran: Ran, built_in: str | None, project: Path) -> Ran:
    """A reused binary's output with the directory it was built in named as this workspace's."""
    if not built_in or built_in == str(project):
        return ran
    result = dataclasses.replace(
        ran.result,
        stdout=ran.result.stdout.replace(built_in, str(project)),
        stderr=ran.result.stderr.replace(built_in, str(project)),
    )
    return Ran(result, ran.roots)
