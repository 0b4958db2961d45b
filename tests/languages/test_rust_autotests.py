"""Crates with `autotests = false` (common in real crates) build only the `[[test]]` targets they
list: a new `tests/NAME.rs` is registered as one in the scratch copy, never in the user's tree."""

from __future__ import annotations

from assay import api
from assay.languages.rust_manifest import with_test_target
from tests.conftest import tree_digest
from tests.languages.conftest import price_crate

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
    root = price_crate(
        tmp_path / "crate",
        MANIFEST,
        {
            "listed.rs": "#[test]\nfn listed() {}\n",
            "add_assay.rs": "use price::add;\n\n#[test]\n"
            "fn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n",
        },
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
