"""The hostile corpus in Python: one verify run of a file whose tests each try one way out (a host
Unix socket, files left in /tmp and /dev/shm, raising the pids limit, /proc/sys, the real home, the
user's secrets), every outcome checked from the host side; and a relative write, which must be
accepted."""

from __future__ import annotations

import json
import os
import re
import socket
import uuid
from pathlib import Path

import pytest

from assay.api import verify
from assay.config import SandboxConfig, Settings
from assay.report.text import render
from assay.sandbox import Sandbox, bwrap
from tests.conftest import tree_digest

LIB = {"src/victim/__init__.py": "", "src/victim/core.py": "def answer():\n    return 42\n"}
LIMIT = 64
SECRETS = {
    "DATABASE_URL": "postgres://app:Hunter2-db-pass@db.internal:5432/app",
    "NPM_AUTH": "npm_Zq8vL2mN4pR6tX1yB3cD5fG7hJ9kW0sAeUiO",
    "DEPLOY_HOOK": "https://bot:Xk4-pw-9Lm2@deploy.example.com/hook",
    "PLAIN_SETTING": "plain-value-known-only-to-the-host",
}

ATTACKS = """
import glob, os, socket, time

SOCK, MARK, HOME_FILE = {sock!r}, {mark!r}, {home_file!r}


def test_host_unix_socket():
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(SOCK)
        s.sendall(b"escaped")
    except OSError:
        pass


def test_leave_files_behind():
    for where in ("/tmp", "/dev/shm", "/var/tmp", "/run"):
        try:
            with open(os.path.join(where, MARK), "w") as f:
                f.write("left")
        except OSError:
            pass


def test_raise_the_pids_limit():
    for path in glob.glob("/sys/fs/cgroup/**/cgroup.procs", recursive=True)[:200]:
        try:
            with open(path, "w") as f:
                f.write(str(os.getpid()))
        except OSError:
            pass
    for path in glob.glob("/sys/fs/cgroup/**/pids.max", recursive=True)[:200]:
        try:
            with open(path, "w") as f:
                f.write("max")
        except OSError:
            pass
    kids = []
    for _ in range({tries}):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(3)
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert False, f"spawned {{len(kids)}} processes"


def test_write_proc_sys():
    try:
        with open("/proc/sys/kernel/domainname", "w") as f:
            f.write("assay-escaped")
    except OSError:
        pass


def test_read_the_real_home_and_the_secrets():
    seen = []
    try:
        seen.append(open(HOME_FILE).read())
    except OSError:
        pass
    seen.append(repr(sorted(os.environ.items())))
    seen.append("var-lib-seen" if os.path.isdir("/var/lib") else "var-lib-absent")
    assert False, "saw " + " ".join(seen) + " " + {literals!r}
"""

RELATIVE = """
from pathlib import Path


def test_relative_write():
    Path("out.txt").write_text("ok")
    assert Path("out.txt").read_text() == "ok"
"""


@pytest.fixture
def listener(tmp_path):
    path = tmp_path / "host.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(5)
    server.setblocking(False)
    yield path, server
    server.close()


@pytest.mark.parametrize("backend", ["builtin", "bwrap"])
def test_python_attacks_fail_and_a_relative_write_is_accepted(
    backend, project, tmp_path, listener, monkeypatch
):
    if not Sandbox(SandboxConfig(), protect=tmp_path).use_unshare:
        pytest.skip("no namespaces here: the weaker profile does not claim these")
    if backend == "bwrap" and (why := bwrap.usable()):
        pytest.skip(why)
    monkeypatch.delenv(bwrap.ENV_VAR, raising=False)
    sock, server = listener
    mark = f"assay-attack-{uuid.uuid4().hex[:8]}"
    home = tmp_path / "realhome"
    home.mkdir()
    (home / ".netrc").write_text("machine x login me password home-file-secret-77\n")
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OLDPWD", str(home))
    domain = Path("/proc/sys/kernel/domainname").read_text()
    source = ATTACKS.format(
        sock=str(sock),
        mark=mark,
        home_file=str(home / ".netrc"),
        tries=LIMIT + 40,
        literals=" ".join(SECRETS.values()),
    )
    root = project({**LIB, "tests/test_attacks.py": source, "tests/test_relative.py": RELATIVE})
    before = tree_digest(root)
    settings = Settings(gates=["compile", "green"], cache=False)
    settings.sandbox.timeout_s = 30
    settings.sandbox.max_processes = LIMIT
    settings.sandbox.backend = backend
    settings.sandbox.env = [
        "DEPLOY_HOOK",
        "PLAIN_SETTING",
    ]  # named, yet credential-shaped: withheld
    report = verify([root / "tests/test_attacks.py", root / "tests/test_relative.py"], settings)

    assert tree_digest(root) == before
    attacks, relative = report.files
    assert relative.verdict.value == "accepted", relative.gates[-1].feedback
    with pytest.raises(BlockingIOError):
        server.accept()  # no connection ever reached the host's socket
    for where in ("/tmp", "/dev/shm", "/var/tmp", "/run"):
        assert not os.path.exists(os.path.join(where, mark)), where
    assert Path("/proc/sys/kernel/domainname").read_text() == domain
    feedback = attacks.gates[-1].feedback
    spawned = re.search(r"spawned (\d+) processes", feedback)
    assert spawned, feedback
    if "pids" in Sandbox(SandboxConfig(), protect=tmp_path).cgroups:
        assert int(spawned.group(1)) < LIMIT
    reports = json.dumps(report.to_json()) + render(report)
    assert "home-file-secret-77" not in reports
    assert "PLAIN_SETTING" in feedback  # named in config and harmless: passed
    for name in ("DATABASE_URL", "NPM_AUTH", "DEPLOY_HOOK"):
        assert SECRETS[name] not in reports, name
        assert f"[redacted: {name}]" in reports, name
    assert str(home) not in reports  # OLDPWD: neither passed nor printed
    named = {"builtin": "built-in", "bwrap": "bwrap"}[backend]
    assert report.sandbox is not None and report.sandbox.backend.startswith(named)
    if backend == "bwrap" and os.path.isdir("/var/lib"):  # a path nobody thought of hiding
        assert "var-lib-absent" in feedback, feedback
