"""Warm builds (`languages.warm`): a workspace starts from a copy of the pristine project's build,
made once outside the sandbox, so a candidate compiles only what it adds; nothing a workspace's
runs write reaches that build."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.languages.java_warm import jdk_version
from assay.languages.rust_warm import built_from, rust_version
from assay.languages.warm import linkable, location, seed, state_of
from assay.project import Project
from assay.sandbox import Sandbox
from assay.sandbox.namespaces import TEST_GID, TEST_UID
from tests.conftest import REPO

EXTRA = "use price::total;\n\n#[test]\nfn one_price() {\n    assert_eq!(total(&[5]), Ok(5));\n}\n"


@pytest.mark.slow
def test_a_rust_workspace_starts_warm_and_builds_only_the_candidate(tmp_path, monkeypatch):
    """Slow: three cargo builds of a small crate (about 5 s, more under load)."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # assay's cache, this test's
    root = tmp_path / "rust"
    shutil.copytree(REPO / "examples/rust", root, ignore=shutil.ignore_patterns("target"))
    for broken in ("typo", "wrong", "flaky", "weak"):
        (root / "tests" / f"{broken}.rs").unlink()
    settings = Settings(cache=False)
    runner = LANGUAGES["rust"].runner(
        Sandbox(settings.sandbox, protect=root), Project.load(root), settings
    )
    with Workspace(root) as first:
        assert runner.compile(first, ["tests/price.rs"]).ok
    warm = location("cargo", root, ".", rust_version(root)) / "cargo-target/debug/deps"
    lib = next(warm.glob("libprice-*.rlib"))
    before = sorted(p.name for p in warm.iterdir())
    with Workspace(root) as second:
        second.apply({"tests/extra.rs": EXTRA})
        built = runner.compile(second, ["tests/extra.rs"])
        assert built.ok and built.collected == ["tests/extra.rs::one_price"]
        deps = second.cache_dir / "cargo-target/debug/deps"
        # the library came from the warm build, not from a rebuild
        assert (deps / lib.name).stat().st_mtime_ns == lib.stat().st_mtime_ns
        assert any(p.name.startswith("extra-") for p in deps.iterdir())
        assert runner.run(second, ["tests/extra.rs"]).passed()
    # the workspace's build and run wrote their own copy only
    assert sorted(p.name for p in warm.iterdir()) == before


VANDAL = """use std::io::Write;

#[test]
fn writes_over_the_build() {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let mut written = 0;
    for entry in std::fs::read_dir(&deps).unwrap() {
        let path = entry.unwrap().path();
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) {
            if f.write_all(b"vandal").is_ok() {
                written += 1;
            }
        }
    }
    println!("wrote {written} files");
}
"""


@pytest.mark.slow
def test_a_rust_test_writing_over_the_target_dir_leaves_the_next_build_as_it_was(
    tmp_path, monkeypatch
):
    """Slow: three cargo builds of a small crate. A workspace's target directory is linked to the
    warm build where the tests run as another uid (no 237 MB copy); a test that writes every file
    it finds there changes neither the warm build nor the next workspace's build, and the warm
    build's rebuild after an edit of the library leaves the linked workspace's files as they
    were."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "rust"
    shutil.copytree(REPO / "examples/rust", root, ignore=shutil.ignore_patterns("target"))
    for other in (root / "tests").glob("*.rs"):
        other.unlink()
    (root / "tests/vandal.rs").write_text(VANDAL)
    settings = Settings(cache=False)
    runner = LANGUAGES["rust"].runner(
        Sandbox(settings.sandbox, protect=root), Project.load(root), settings
    )
    with Workspace(root) as ws:
        assert runner.compile(ws, ["tests/vandal.rs"]).ok
        target = ws.cache_dir / "cargo-target"
        lib = next((target / "debug/deps").glob("libprice-*.rlib"))
        warm = location("cargo", root, ".", rust_version(root)) / "cargo-target/debug/deps"
        kept = (warm / lib.name).read_bytes()
        if linkable(ws.cache_dir):  # root, tests as another uid: linked, not copied
            assert lib.stat().st_ino == (warm / lib.name).stat().st_ino
        assert runner.run(ws, ["tests/vandal.rs"]).passed()
        assert (warm / lib.name).read_bytes() == kept
        files = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
        # the library edited: the warm build is rebuilt in place, never through this workspace
        (root / "src/lib.rs").write_text((root / "src/lib.rs").read_text() + "// edited\n")
        with Workspace(root) as second:
            second.apply({"tests/extra.rs": EXTRA})
            assert runner.compile(second, ["tests/extra.rs"]).ok
            assert runner.run(second, ["tests/extra.rs"]).passed()
        assert {p: p.read_bytes() for p in files} == files


@pytest.mark.slow
def test_a_java_workspace_starts_from_the_warm_classes_and_javac_compiles_the_candidate(
    tmp_path, monkeypatch
):
    """Slow: one Maven build of the example's main classes, then javac and the JUnit launcher."""
    if (
        shutil.which("mvn") is None
        or not (Path.home() / ".m2/repository/org/junit/jupiter/junit-jupiter-api").is_dir()
    ):
        pytest.skip("Maven or JUnit 5 in ~/.m2 is missing (.ci/toolchains)")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "java"
    shutil.copytree(REPO / "examples/java", root, ignore=shutil.ignore_patterns("target"))
    tests = root / "src/test/java/com/acme"
    for other in tests.glob("Price*Test.java"):
        if other.name != "PriceTest.java":
            other.unlink()
    settings = Settings(cache=False)
    runner = LANGUAGES["java"].runner(
        Sandbox(settings.sandbox, protect=root), Project.load(root), settings
    )
    rel = "src/test/java/com/acme/PriceTest.java"
    with Workspace(root) as ws:
        built = runner.compile(ws, [rel])
        assert built.ok and len(built.collected) == 3, built
        warm = location("maven", root, ".", jdk_version()) / "target/classes/com/acme/Price.class"
        copied = ws.path("target/classes/com/acme/Price.class")
        # the main class is the warm build's (no Maven in the workspace), the test javac's own
        assert copied.stat().st_mtime_ns == warm.stat().st_mtime_ns
        assert ws.path("target/test-classes/com/acme/PriceTest.class").is_file()
        assert not ws.path("target/maven-status").exists()
        assert len(runner.run(ws, [rel]).passed()) == 3
    assert not (warm.parents[3] / "test-classes/com/acme/PriceTest.class").exists()


def test_editing_a_test_file_leaves_the_rust_warm_build_as_it_is(tmp_path):
    """The warm build never compiles the crate's tests, benches or examples: editing one (a
    candidate) checked it again, a scratch copy and a cargo start (0.2-0.4 s of CPU)."""
    root = tmp_path / "crate"
    for rel in ("Cargo.toml", "src/lib.rs", "tests/price.rs", "benches/b.rs", "tests/util/mod.rs"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("// x\n")
    before = state_of(root, built_from(root, "."))
    for rel in ("tests/price.rs", "benches/b.rs", "tests/util/mod.rs"):
        (root / rel).write_text("// edited\n")
    assert state_of(root, built_from(root, ".")) == before
    (root / "src/lib.rs").write_text("// edited\n")
    assert state_of(root, built_from(root, ".")) != before


@pytest.mark.parametrize("where", ["same", "other"])
def test_a_linked_target_is_the_tests_uids_to_add_to_but_not_to_write_through(tmp_path, where):
    """Large files of a Rust warm build are hard links that stay assay's (`seed(link_from=…)`),
    small ones copies of the workspace's uid; on another file system than the warm build's (no
    links across) the target is copied, as before, instead of not seeded at all."""
    if os.geteuid() != 0:
        pytest.skip("links are made only when assay runs as root and tests as another uid")
    base = Path("/dev/shm") if where == "other" else tmp_path
    if where == "other" and (not base.is_dir() or base.stat().st_dev == tmp_path.stat().st_dev):
        pytest.skip("no second file system at /dev/shm")
    warm = Path(tempfile.mkdtemp(dir=base))
    try:
        (warm / "t/deps").mkdir(parents=True)
        (warm / "t/deps/liba.rlib").write_bytes(b"r" * 4096)
        (warm / "t/deps/a.d").write_text("a.rs:\n")
        os.utime(warm / "t/deps/a.d", ns=(1_600_000_000_123_456_789,) * 2)
        ws = tmp_path / "ws"
        ws.mkdir()
        os.chown(ws, TEST_UID, TEST_GID)  # as the sandbox hands a workspace over
        assert seed(warm, "t", ws / "t", link_from=1024)
        big, small = ws / "t/deps/liba.rlib", ws / "t/deps/a.d"
        linked = big.stat().st_ino == (warm / "t/deps/liba.rlib").stat().st_ino
        assert linked == (where == "same")
        if linked:
            assert big.stat().st_uid == 0 and not big.stat().st_mode & 0o022
        assert small.stat().st_uid == TEST_UID and small.read_text() == "a.rs:\n"
        assert small.stat().st_ino != (warm / "t/deps/a.d").stat().st_ino
        # cargo compares mtimes: the copies keep them, to the nanosecond
        assert small.stat().st_mtime_ns == (warm / "t/deps/a.d").stat().st_mtime_ns
        assert (warm / "t/deps/a.d").stat().st_nlink == 1  # the warm build's file left alone
        assert (ws / "t/deps").stat().st_uid == TEST_UID
    finally:
        shutil.rmtree(warm, ignore_errors=True)
        warm.with_name(warm.name + ".lock").unlink(missing_ok=True)
