"""A Rust file compiled out by a cargo feature the build does not set (hex's tests/serde.rs,
`#![cfg(all(feature = "serde", feature = "alloc"))]`): `unvalidated`, naming the cfg; it was
rejected "COMPILE ERROR: no tests collected"."""

from __future__ import annotations

import shutil

import pytest

from assay import api
from assay.gates.compile import compiled_out
from assay.model import Verdict

MANIFEST = """[package]
name = "price"
version = "0.1.0"
edition = "2021"

[features]
serde = []
"""


def test_a_file_gated_on_a_feature_that_is_off_is_unvalidated_not_rejected(tmp_path):
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    root = tmp_path / "crate"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "Cargo.toml").write_text(MANIFEST)
    (root / "src/lib.rs").write_text("pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n")
    (root / "tests/serde.rs").write_text(
        '#![cfg(feature = "serde")]\n\n#[test]\n'
        "fn adds() {\n    assert_eq!(price::add(2, 3), 5);\n}\n"
    )
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
