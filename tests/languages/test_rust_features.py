"""A Rust file compiled out by a cargo feature the build does not set (hex's tests/serde.rs,
`#![cfg(all(feature = "serde", feature = "alloc"))]`): `unvalidated`, naming the cfg; it was
rejected "COMPILE ERROR: no tests collected"."""

from __future__ import annotations

from assay import api
from assay.gates.compile import compiled_out
from assay.model import Verdict
from tests.languages.conftest import price_crate

MANIFEST = """[package]
name = "price"
version = "0.1.0"
edition = "2021"

[features]
serde = []
"""


def test_a_file_gated_on_a_feature_that_is_off_is_unvalidated_not_rejected(tmp_path):
    serde = (
        '#![cfg(feature = "serde")]\n\n#[test]\n'
        "fn adds() {\n    assert_eq!(price::add(2, 3), 5);\n}\n"
    )
    root = price_crate(tmp_path / "crate", MANIFEST, {"serde.rs": serde})
    report = api.verify(
        [root / "tests/serde.rs"], root=root, use_cache=False, overrides={"gates": ["compile"]}
    )
    f = report.files[0]
    assert f.verdict is Verdict.UNVALIDATED, [g.feedback for g in f.gates]
    assert 'tests/serde.rs: #![cfg(feature = "serde")]' in f.gates[0].feedback


def test_only_a_file_wide_cfg_naming_a_feature_counts():
    assert compiled_out('#![cfg(all(feature = "serde", feature = "alloc"))]\n') == (
        '#![cfg(all(feature = "serde", feature = "alloc"))]'
    )
    assert compiled_out("#![cfg(test)]\n") is None
    assert compiled_out('#[cfg(feature = "serde")]\nmod x {}\n') is None
