"""Crates with `autotests = false` (common in real crates) build only the `[[test]]` targets they
list: a new `tests/NAME.rs` is registered as one in the scratch copy, never in the user's tree."""

from __future__ import annotations

import shutil

import pytest

from assay import api
from assay.languages.rust_manifest import with_test_target
from tests.conftest import tree_digest

MANIFEST = """[package]
name = "price"
version = "0.1.0"
edition = "2021"
autotests = false

[[test]]
name = "listed"
path = "tests/listed.rs"
"""


def test_a_new_integration_test_of_an_autotests_false_crate_is_verified(tmp_path):
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    root = tmp_path / "crate"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "Cargo.toml").write_text(MANIFEST)
    (root / "src/lib.rs").write_text("pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n")
    (root / "tests/listed.rs").write_text("#[test]\nfn listed() {}\n")
    (root / "tests/add_assay.rs").write_text(
        "use price::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n"
    )
    before = tree_digest(root)
    report = api.verify(
        [root / "tests/add_assay.rs"],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": ["compile", "green", "stability"]},
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
    assert [t.id for t in f.tests] == ["tests/add_assay.rs::adds"]
    assert tree_digest(root) == before


def test_the_manifest_is_extended_only_when_cargo_would_not_build_the_file():
    extended = with_test_target(MANIFEST, "tests/new.rs")
    assert extended == MANIFEST + '\n[[test]]\nname = "new"\npath = "tests/new.rs"\n'
    assert with_test_target(MANIFEST, "tests/listed.rs") is None
    assert with_test_target(MANIFEST.replace("autotests = false", ""), "tests/new.rs") is None
    assert with_test_target(MANIFEST, "src/lib.rs") is None
