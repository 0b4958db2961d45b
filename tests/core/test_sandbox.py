"""Hostile tests: each must end `rejected` with a clear reason and leave the user's
tree byte-identical."""

from __future__ import annotations

import os
import re
import socket

import pytest

from assay.api import verify
from assay.config import SandboxConfig, Settings
from assay.model import Verdict
from assay.sandbox import Sandbox, scrubbed_env
from tests.conftest import tree_digest

LIB = {
    "src/victim/__init__.py": "VALUE = 1\n",
    "src/victim/core.py": "def answer():\n    return 42\n",
}


def settings(timeout: float = 5.0, memory_mb: int = 1024) -> Settings:
    s = Settings(gates=["compile", "green"], cache=False)
    s.sandbox.timeout_s = timeout
    s.sandbox.memory_mb = memory_mb
    s.sandbox.max_processes = 64
    return s


def check(project, body: str, timeout: float = 5.0, memory_mb: int = 1024):
    root = project({**LIB, "tests/test_hostile.py": body})
    before = tree_digest(root)
    report = verify([root / "tests/test_hostile.py"], settings(timeout, memory_mb))
    assert tree_digest(root) == before, "the user's tree changed"
    return report.files[0]


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_infinite_loop_is_rejected_as_timeout(project):
    f = check(project, "def test_spin():\n    while True:\n        pass\n", timeout=3)
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    assert "timed out after 3 s" in f.gates[-1].feedback
    assert "test_spin" in f.gates[-1].feedback


def test_memory_eater_is_rejected(project):
    # A low limit is reached after a few allocations, and a generous timeout leaves a loaded machine
    # time to reach it: the check stays that the memory limit, not the clock, stops the test.
    f = check(
        project,
        "def test_eat():\n    hog = [bytearray(64 * 1024 "
        "* 1024) for _ in range(64)]\n    assert hog\n",
        timeout=60,
        memory_mb=384,
    )
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    assert "timed out" not in f.gates[-1].feedback
    assert "MemoryError" in f.gates[-1].feedback or "memory" in f.gates[-1].feedback


def test_fork_bomb_is_contained_and_rejected(project):
    f = check(
        project,
        """
        import os, time

        def test_bomb():
            children = 0
            for _ in range(500):
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
                children += 1
            assert children == 500
        """,
        timeout=4,
    )
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    feedback = f.gates[-1].feedback
    assert (
        "BlockingIOError" in feedback
        or "Resource temporarily unavailable" in feedback
        or "timed out" in feedback
    )


def test_deleting_files_is_rejected_and_reaches_only_the_scratch_copy(project):
    f = check(
        project,
        """
        import shutil
        from pathlib import Path
        import victim

        def test_wreck():
            pkg = Path(victim.__file__).parent
            shutil.rmtree(pkg)
            for p in Path.cwd().rglob("*"):
                if p.is_file():
                    p.unlink()
            assert not pkg.exists()
        """,
    )
    assert (f.verdict, f.rejected_at) == (Verdict.REJECTED, "green")
    assert (
        "the tests deleted project files: pyproject.toml, src/victim/__init__.py"
        in f.gates[-1].feedback
    )


def test_absolute_path_into_the_project_cannot_be_written(project, tmp_path):
    root_marker = tmp_path / "proj" / "src" / "victim" / "core.py"
    f = check(
        project,
        f"""
        def test_write_user_file():
            with open({str(root_marker)!r}, "w") as fh:
                fh.write("owned")
        """,
    )
    if not Sandbox(SandboxConfig(), protect=tmp_path).use_unshare:
        pytest.skip("no mount namespace here: the read-only project mount is unavailable")
    assert f.rejected_at == "green"
    assert "Read-only file system" in f.gates[-1].feedback


def test_network_is_cut_where_namespaces_work(project, tmp_path):
    """A server on the host's loopback gets no connection (under bwrap the namespace's own
    loopback is up, so the test sees "refused" rather than "unreachable": either way, not the
    host)."""
    if not Sandbox(SandboxConfig(), protect=tmp_path).use_unshare:
        pytest.skip("no network namespace here")
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        f = check(
            project,
            f"""
            import socket

            def test_connect_out():
                socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"out")
            """,
        )
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    assert f.rejected_at == "green"
    assert re.search(r"OSError|ConnectionRefused|unreachable", f.gates[-1].feedback), f.gates


def test_secrets_never_reach_the_tests(project, monkeypatch):
    monkeypatch.setenv("MY_API_KEY", "k")
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("db_password", "p")
    monkeypatch.setenv("HARMLESS_SETTING", "h")
    f = check(
        project,
        """
        import os

        def test_env():
            names = set(os.environ)
            assert "PATH" in names
            assert not {"MY_API_KEY", "GITHUB_TOKEN", "db_password", "HARMLESS_SETTING"} & names
            assert not {"OLDPWD"} & names
        """,
    )
    assert f.verdict is Verdict.ACCEPTED


def test_scrubbed_env_names_what_it_removed():
    env, removed = scrubbed_env(
        {"AWS_SECRET_ACCESS_KEY": "x", "MyCredentials": "y", "PATH": "/bin"}
    )
    assert env == {"PATH": "/bin"}
    assert removed == ["AWS_SECRET_ACCESS_KEY", "MyCredentials"]


def test_sandbox_info_says_what_was_applied(tmp_path):
    info = Sandbox(SandboxConfig(), protect=tmp_path).info
    assert info.network.startswith(("cut", "not cut"))
    assert info.timeout_s == 60
    assert os.cpu_count()


def test_nothing_outside_the_workspace_is_writable(project, tmp_path):
    if not Sandbox(SandboxConfig(), protect=tmp_path).use_unshare:
        pytest.skip("no mount namespace here")
    outside = tmp_path / "outside.txt"
    f = check(
        project,
        f"""
        import os, tempfile
        from pathlib import Path

        def test_write_outside():
            Path(tempfile.gettempdir(), "fine.txt").write_text("ok")
            Path(os.environ["HOME"], "fine.txt").write_text("ok")
            Path({str(outside)!r}).write_text("owned")
        """,
    )
    said = f.gates[-1].feedback
    assert f.rejected_at == "green"
    assert "Read-only file system" in said or "Permission denied" in said
    assert not outside.exists()


@pytest.mark.slow  # 7 s in the fast lane on 2 cores (the CI simulation)
def test_without_unshare_the_report_says_so_and_limits_still_hold(project, tmp_path):
    """Where namespaces are unavailable (here: `unshare` not on PATH) the run still works, and says
    what it lacks."""
    import json
    import sys

    from tests.conftest import run_cli

    root = project(
        {**LIB, "tests/test_spin.py": "def test_spin():\n    while True:\n        pass\n"},
        "[tool.assay]\ngates = ['compile', 'green']\n[tool.assay.sandbox]\ntimeout_s = 3\n",
    )
    before = tree_digest(root)
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python3").symlink_to(sys.executable)
    proc = run_cli(
        "verify", str(root / "tests"), "-f", "json", env={"PATH": str(bare), "HOME": str(tmp_path)}
    )
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["sandbox"]["network"].startswith("not cut: unshare")
    assert doc["sandbox"]["filesystem"].startswith("scratch copy only")
    assert doc["sandbox"]["warning"].startswith("sandbox: WEAKER PROFILE")  # never silence
    f = doc["files"][0]
    assert f["limits"]["profile"] == "python" and "address space" in f["limits"]["memory"]
    assert f["rejected_at"] == "green" and "timed out after 3 s" in f["gates"][1]["feedback"]
    assert tree_digest(root) == before


def test_a_profile_limits_memory_by_cgroup_where_address_space_would_stop_a_jvm(tmp_path):
    """JVMs and Node reserve far more address space than they use: their profiles limit memory
    by cgroup."""
    from assay.sandbox import Profile

    sandbox = Sandbox(SandboxConfig(memory_mb=256, timeout_s=30), protect=tmp_path)
    jvm_like = Profile(name="jvm-like", memory="cgroup")
    if "memory" not in sandbox.cgroups:
        info = sandbox.info_for(jvm_like).rlimits
        assert "not limited" in info["memory"]
        pytest.skip(
            "no writable memory cgroup on this machine: the limit is reported as not applied"
        )
    assert sandbox.info_for(jvm_like).rlimits["memory_cgroup_mb"] == 256
    # 2 GiB of address space, untouched
    reserve = "import mmap; m = mmap.mmap(-1, 2 << 30); print('reserved')"
    eat = "b = bytearray(600 << 20); b[::4096] = b'x' * len(b[::4096]); print('ate')"
    env = sandbox.env_for(tmp_path / "home", profile=jvm_like)
    import sys

    by_cgroup = [
        sandbox.run([sys.executable, "-c", code], cwd=tmp_path, env=env, profile=jvm_like)
        for code in (reserve, eat)
    ]
    assert by_cgroup[0].returncode == 0 and "reserved" in by_cgroup[0].stdout  # reserving is fine
    assert by_cgroup[1].returncode != 0 and "ate" not in by_cgroup[1].stdout  # using is not
    by_rlimit = sandbox.run(
        [sys.executable, "-c", reserve], cwd=tmp_path, env=sandbox.env_for(tmp_path / "h2")
    )
    # the default profile's address-space limit refuses the reservation
    assert by_rlimit.returncode != 0


def test_profile_environment_names_caches_and_never_secrets(tmp_path, monkeypatch):
    from assay.sandbox import Profile

    monkeypatch.setenv("MY_API_TOKEN", "s3cret")
    sandbox = Sandbox(SandboxConfig(), protect=tmp_path)
    go = Profile(
        name="go", env={"GOCACHE": "{cache}/go-build", "GOMODCACHE": "{user_home}/go/pkg/mod"}
    )
    env = sandbox.env_for(tmp_path / "run" / "home", profile=go, cache=tmp_path / "cache")
    assert env["GOCACHE"] == f"{tmp_path}/cache/go-build"
    assert env["GOMODCACHE"] == os.path.expanduser("~/go/pkg/mod")
    assert "MY_API_TOKEN" not in env and env["HOME"] == str(tmp_path / "run" / "home")


def test_the_view_shows_back_every_directory_the_command_names_under_a_hidden_root(tmp_path):
    """assay's own package installed under /tmp or /home (a CI clone, a user's venv) is named by
    the command's later words, not its first: it must be shown back, or no sandboxed Python run can
    import `_assay_sandbox` (every gate failed in a clone under /tmp)."""
    from assay._assay_sandbox import launch
    from assay.sandbox.shown import shown_dirs

    package = tmp_path / "site" / "assay"
    package.mkdir(parents=True)
    argv = launch.argv("/usr/bin/python3", "pytest", "job.json")
    argv[argv.index(str(launch.PARENT))] = str(package)
    shown = shown_dirs(argv, {}, taken=[], home="/nonexistent")
    assert shown == (str(package),)  # only what was named
