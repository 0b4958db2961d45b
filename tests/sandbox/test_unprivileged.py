"""The hostile corpus's core attacks with assay itself running as an unprivileged user (uid nobody,
through `setpriv`), under each backend: the view is then built in a user namespace, not by root.
The same attack run as nobody without the sandbox first, to show it is a real one."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import assay
from assay.sandbox import bwrap

NOBODY = 65534
AS_NOBODY = [
    "setpriv",
    f"--reuid={NOBODY}",
    f"--regid={NOBODY}",
    "--clear-groups",
    "--inh-caps=-all",
    "--",
]

ATTACK = """
import os, socket, sys
sock, mark, project = sys.argv[1:4]
out = []
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sock)
    s.sendall(b"escaped")
    out.append("connected")
except OSError as e:
    out.append("no-socket")
for where in ("/tmp", "/dev/shm"):
    try:
        with open(os.path.join(where, mark), "w") as f:
            f.write("left")
        out.append("wrote-" + where)
    except OSError:
        pass
try:
    with open(os.path.join(project, "victim.txt"), "w") as f:
        f.write("changed")
    out.append("wrote-project")
except OSError:
    pass
print(" ".join(out))
"""

SCRIPT = """
import json, shutil, sys, tempfile
from pathlib import Path
from assay.config import SandboxConfig
from assay.sandbox import Sandbox
project, backend, attack, *args = sys.argv[1:]
sandbox = Sandbox(SandboxConfig(backend=backend), protect=Path(project))
run = Path(tempfile.mkdtemp(prefix="assay-ws-"))
try:
    result = sandbox.run(
        [sys.executable, "-I", "-c", attack, *args], cwd=run, env=sandbox.env_for(run / "home")
    )
finally:
    shutil.rmtree(run, ignore_errors=True)  # the scratch dir this script made: nothing left behind
print(json.dumps({"isolated": sandbox.use_unshare, "backend": sandbox.info.backend,
                  "out": result.stdout, "err": result.stderr}))
"""


def _nobody_python() -> tuple[str, dict[str, str]]:
    """An interpreter of this Python version that uid nobody can start, with assay and its
    dependencies on its path; skips when there is none (a venv under a 0700 home)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    paths = [str(Path(assay.__file__).parents[1]), sysconfig.get_paths()["purelib"]]
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.pathsep.join(paths), "LANG": "C.UTF-8"}
    for python in (sys.executable, os.path.realpath(sys.executable), f"/usr/bin/python{version}"):
        # the interpreter's real file readable by nobody, not only started (some file systems
        # start a binary under a 0700 directory all the same, and then the view cannot show it)
        probe = "import os, sys; assert os.access(os.path.realpath(sys.executable), os.R_OK)"
        check = [*AS_NOBODY, python, "-c", probe + "; import assay.sandbox, assay.config"]
        try:
            if subprocess.run(check, env=env, capture_output=True, timeout=60).returncode == 0:
                return python, env
        except OSError:
            continue
    pytest.skip(f"no Python {version} with assay importable that uid nobody can start here")


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory uid nobody can reach (pytest's tmp_path is under a 0700 directory as root)."""
    path = Path(tempfile.mkdtemp(prefix="assay-nobody-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("backend", ["builtin", "bwrap"])
def test_the_attacks_fail_when_assay_runs_as_an_unprivileged_user(backend, open_dir):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root (and setpriv) to become uid nobody")
    if backend == "bwrap" and (why := bwrap.usable()):
        pytest.skip(why)
    python, env = _nobody_python()
    project = open_dir / "proj"
    project.mkdir()
    (project / "victim.txt").write_text("original")
    os.chown(project / "victim.txt", NOBODY, NOBODY)  # nobody's own file: only the view protects it
    sock = open_dir / "host.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    sock.chmod(0o777)
    server.listen(5)
    server.setblocking(False)
    mark = f"assay-attack-{uuid.uuid4().hex[:8]}"
    args = [str(sock), mark, str(project)]
    try:
        # without the sandbox, as nobody: every attack gets through
        bare = subprocess.run(
            [*AS_NOBODY, python, "-I", "-c", ATTACK, *args], env=env, capture_output=True, text=True
        )
        assert bare.stdout.split() == [
            "connected",
            "wrote-/tmp",
            "wrote-/dev/shm",
            "wrote-project",
        ], bare.stderr
        server.accept()[0].close()
        for path in (Path("/tmp", mark), Path("/dev/shm", mark)):
            path.unlink()
        (project / "victim.txt").write_text("original")

        run = subprocess.run(
            [*AS_NOBODY, python, "-c", SCRIPT, str(project), backend, ATTACK, *args],
            env={**env, bwrap.ENV_VAR: ""},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        seen = json.loads(run.stdout)
        if not seen["isolated"]:
            pytest.skip("no user namespaces for uid nobody here: the weaker profile")
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    # inside, /tmp and /dev/shm are private tmpfs: writable, and gone with the run
    assert seen["out"].split()[0] == "no-socket" and "wrote-project" not in seen["out"], seen
    assert seen["backend"].startswith({"builtin": "built-in", "bwrap": "bwrap"}[backend])
    for where in ("/tmp", "/dev/shm"):
        assert not os.path.exists(os.path.join(where, mark)), where
    assert (project / "victim.txt").read_text() == "original"
