"""What the view shows back through the hidden roots, run for real: a test interpreter whose venv
reaches its packages through a `.pth` file and an editable-install finder, a `node_modules` linked
from elsewhere with a tool linked from another package; and whether nobody can get there."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

import pytest

from assay.config import SandboxConfig
from assay.sandbox import Sandbox, bwrap
from assay.sandbox.shown import blocked, shown_dirs
from tests.conftest import bare_venv

FINDER = """
import os, sys
from importlib.machinery import PathFinder

MAPPING = {{"victim": {victim!r}}}


class _EditableFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname in MAPPING:
            return PathFinder.find_spec(fullname, [os.path.dirname(MAPPING[fullname])])
        return None


def install():
    sys.meta_path.append(_EditableFinder)
"""


def sandbox_or_skip(protect: Path) -> Sandbox:
    sandbox = Sandbox(SandboxConfig(), protect=protect)
    if not sandbox.use_unshare:
        pytest.skip("no namespaces here: nothing is hidden, so nothing needs showing back")
    return sandbox


def venv_with_pth_and_finder(base: Path) -> str:
    """A venv (under a hidden root: tmp_path) that reaches `helper_mod` only through a `.pth`
    file (and `linked_pkg` through a link in that directory, as assay lends its coverage.py),
    `victim` only through a setuptools-style editable finder, all outside the project; and
    pytest's site-packages through another `.pth`, as a venv layered on another one does."""
    python, purelib = bare_venv(base)
    deps = base / "elsewhere" / "site"
    deps.mkdir(parents=True)
    (deps / "helper_mod.py").write_text("WHERE = 'pth'\n")
    store = base / "store" / "linked_pkg"
    store.mkdir(parents=True)
    (store / "__init__.py").write_text("WHERE = 'link'\n")
    (deps / "linked_pkg").symlink_to(store, target_is_directory=True)
    victim = base / "checkout" / "src" / "victim"
    victim.mkdir(parents=True)
    (victim / "__init__.py").write_text("WHERE = 'editable'\n")
    site = Path(purelib)
    (site / "00_base.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (site / "deps.pth").write_text(f"{deps}\n")
    (site / "__editable___victim_0_1_finder.py").write_text(FINDER.format(victim=str(victim)))
    (site / "__editable__.victim-0.1.pth").write_text(
        "import __editable___victim_0_1_finder; __editable___victim_0_1_finder.install()\n"
    )
    return python


def test_the_interpreter_reaches_its_pth_targets_and_editable_roots(tmp_path):
    """The CI clone under /tmp: tests as nobody behind a hidden /tmp could import nothing reached
    through a `.pth` file or an editable finder ("No module named pytest"). Run under umask 077,
    as a user's shell may set it: the view's way to what it shows stays traversable for nobody."""
    python = venv_with_pth_and_finder(tmp_path)
    project = tmp_path / "proj"
    project.mkdir()
    sandbox = sandbox_or_skip(project)
    code = (
        "import helper_mod, linked_pkg, victim, pytest; "
        "print(helper_mod.WHERE, linked_pkg.WHERE, victim.WHERE)"
    )
    env = sandbox.env_for(tmp_path / "home")
    old = os.umask(0o077)
    try:
        named = sandbox.run([python, "-c", code], cwd=project, env=env, timeout=60)
    finally:
        os.umask(old)
    assert (named.returncode, named.stdout.strip()) == (0, "pth link editable"), named.stderr
    # started by name from the venv's bin on PATH, as prism's shell commands do
    env["PATH"] = f"{Path(python).parent}:{env['PATH']}"
    by_path = sandbox.run(["sh", "-c", f'python -c "{code}"'], cwd=project, env=env, timeout=60)
    assert (by_path.returncode, by_path.stdout.strip()) == (0, "pth link editable"), by_path.stderr


def test_a_linked_node_modules_and_its_linked_tools_are_shown(tmp_path):
    """`node_modules` linked from a shared checkout (as the language tests and monorepos do), with
    a tool in `.bin` linked to another package: both run in the sandbox."""
    shared = tmp_path / "shared" / "node_modules"
    (shared / "lib").mkdir(parents=True)
    (shared / "lib" / "index.js").write_text("module.exports = 1\n")
    tool = tmp_path / "tools" / "fmt"
    (tool / "bin").mkdir(parents=True)
    (tool / "package.json").write_text('{"name": "fmt"}\n')
    script = tool / "bin" / "fmt.sh"
    script.write_text("#!/bin/sh\necho formatted\n")
    script.chmod(0o755)
    (shared / ".bin").mkdir()
    (shared / ".bin" / "fmt").symlink_to(script)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "node_modules").symlink_to(shared)
    sandbox = sandbox_or_skip(project)
    result = sandbox.run(
        ["sh", "-c", "cat node_modules/lib/index.js && node_modules/.bin/fmt"],
        cwd=project,
        env=sandbox.env_for(tmp_path / "home"),
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["module.exports", "=", "1", "formatted"]


def test_a_directory_nobody_cannot_reach_is_named(tmp_path):
    """A shown directory the test's uid cannot read would fail its run as an import error: it is
    named, so the run falls back to the weaker profile and the report says so. Its parents under a
    hidden root do not count: the view makes that way itself, traversable."""
    locked = tmp_path / "locked"
    inner = locked / "venv"
    inner.mkdir(parents=True)
    locked.chmod(0o700)
    hidden = (str(tmp_path),)
    assert blocked([str(locked)], hidden) == str(locked)
    assert blocked([str(inner)], hidden) is None
    locked.chmod(0o755)
    assert blocked([str(locked)], hidden) is None


def test_a_run_that_needs_what_nobody_cannot_read_falls_back_and_says_so(tmp_path):
    """As root, a directory the run names that is itself 0700 cannot be read by uid nobody: the
    run goes on under the weaker profile, and the report's sandbox line names the directory."""
    if os.geteuid() != 0:
        pytest.skip("tests drop to uid nobody only when assay runs as root")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "data.txt").write_text("readable\n")
    project = tmp_path / "proj"
    project.mkdir()
    sandbox = sandbox_or_skip(project)
    result = sandbox.run(
        ["cat", str(private / "data.txt")],
        cwd=project,
        env=sandbox.env_for(tmp_path / "home"),
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (0, "readable\n"), result.stderr
    warning = sandbox.info.warning or ""
    assert (
        warning.startswith("sandbox: WEAKER PROFILE for runs that need ")
        and str(private) in warning
    )
    assert sandbox.info.filesystem.startswith("all but the runs above: ")


def test_a_venv_and_the_base_interpreter_it_links_to_are_both_shown(tmp_path):
    """A venv under /tmp whose python links to a base interpreter under /root (pyenv): the run
    needs both prefixes, not the first one found."""
    base = tmp_path / "pyenv" / "versions" / "3.11"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python3.11").write_text("")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(base / "bin" / "python3.11")
    shown = shown_dirs([str(venv / "bin" / "python"), "-c", "pass"], {}, taken=[])
    assert set(shown) == {str(venv), str(base)}


def test_an_interpreter_behind_a_wrapper_script_is_shown(tmp_path):
    """`interpreter = ".venv/bin/python"` may be a script (a pyenv shim, `exec /elsewhere/python
    "$@"`): the interpreter it starts, under a hidden /tmp here, was "not found" in the sandbox and
    every file was rejected at compile."""
    elsewhere = tmp_path / "elsewhere" / "bin"
    elsewhere.mkdir(parents=True)
    # two links on the way, both under the hidden /tmp (a venv's python links on to its base)
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    (elsewhere / "python").symlink_to(tmp_path / "venv" / "bin" / "python")
    project = tmp_path / "proj"
    wrapper = project / ".venv" / "bin" / "python"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/bin/sh\nexec "{elsewhere / "python"}" "$@"\n')
    wrapper.chmod(0o755)
    sandbox = sandbox_or_skip(project)
    ran = sandbox.run(
        [str(wrapper), "-c", "import pytest; print('ran')"],
        cwd=project,
        env=sandbox.env_for(tmp_path / "home"),
        timeout=60,
    )
    assert (ran.returncode, ran.stdout.strip()) == (0, "ran"), ran.stderr


@pytest.mark.parametrize("backend", ["builtin", "bwrap"])
def test_a_toolchain_named_only_by_its_variable_that_nobody_cannot_read_falls_back(
    backend, tmp_path, monkeypatch
):
    """GOROOT (or JAVA_HOME, CARGO_HOME, RUSTUP_HOME) naming a 0700 directory, the command naming
    no path in it: the run falls back to the weaker profile and says which directory, instead of
    failing with the toolchain unreadable."""
    if os.geteuid() != 0:
        pytest.skip("tests drop to uid nobody only when assay runs as root")
    if backend == "bwrap" and (why := bwrap.usable()):
        pytest.skip(why)
    monkeypatch.setenv(bwrap.ENV_VAR, backend)
    goroot = tmp_path / "sdk" / "go"
    goroot.mkdir(parents=True)
    (goroot / "VERSION").write_text("go1.99\n")
    goroot.chmod(0o700)
    project = tmp_path / "proj"
    project.mkdir()
    sandbox = sandbox_or_skip(project)
    env = {**sandbox.env_for(tmp_path / "home"), "GOROOT": str(goroot)}
    result = sandbox.run(["sh", "-c", 'cat "$GOROOT/VERSION"'], cwd=project, env=env, timeout=60)
    assert (result.returncode, result.stdout) == (0, "go1.99\n"), result.stderr
    assert str(goroot) in (sandbox.info.warning or "")


def test_only_a_python_run_asks_the_interpreters_on_path_what_they_import(tmp_path):
    """Each interpreter on a hidden PATH directory was asked for its `sys.path` on every run of
    every language: with pyenv's shims on PATH, 0.6 s of CPU per assay run of a node, Go or Rust
    file (0.3 s for each shim), which those runs never start by name."""
    from assay.languages.go import GO

    project = tmp_path / "proj"
    project.mkdir()
    sandbox = sandbox_or_skip(project)
    shims = tmp_path / "shims"
    shims.mkdir()
    asked = tmp_path / "asked"
    shim = shims / "python3"
    shim.write_text(f'#!/bin/sh\necho "$@" >> {asked}\nexec {sys.executable} "$@"\n')
    shim.chmod(0o755)
    env = sandbox.env_for(tmp_path / "home")
    env["PATH"] = f"{shims}:{env['PATH']}"
    sandbox.run(["/bin/true"], cwd=project, env=env, timeout=60, profile=GO.profile)
    assert not asked.exists()
    sandbox.run(["/bin/true"], cwd=project, env=env, timeout=60)  # the Python profile asks
    assert asked.exists()
