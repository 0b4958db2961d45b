"""A cargo build that cannot write its files is the machine's, not the test's: base64 0.22.1's
tests/tests.rs was rejected at gate 1 with "COMPILE ERROR: error: could not write output to
/tmp/assay-ws-.../cargo-target/debug/deps/async_attributes-....rcgu.o: Permission denied", a
span-less rustc error that was taken for the candidate's own."""

from __future__ import annotations

from pathlib import Path

from assay.languages.rust import _diagnostic

# the compiler message as `cargo test --message-format=json` printed it (paths shortened)
NOT_WRITTEN = {
    "level": "error",
    "message": "could not write output to /tmp/assay-ws-1/cache/cargo-target/debug/deps/"
    "async_attributes-ee04.async_attributes.e9ce-cgu.0.rcgu.o: Permission denied",
    "code": None,
    "spans": [],
}
UNRESOLVED = {
    "level": "error",
    "message": "cannot find function `encode` in this scope",
    "code": {"code": "E0425"},
    "spans": [
        {"is_primary": True, "file_name": "tests/tests.rs", "line_start": 3, "label": "nope"}
    ],
}


def test_a_build_that_cannot_write_is_an_environment_problem_not_a_compile_error(tmp_path):
    written = _diagnostic(NOT_WRITTEN, ".", (str(tmp_path),), Path(tmp_path))
    assert written is not None and written.kind == "environment"
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/tests.rs").write_text("")
    code = _diagnostic(UNRESOLVED, ".", (str(tmp_path),), Path(tmp_path))
    assert code is not None
    assert (code.kind, code.where, code.line) == ("compile", "tests/tests.rs", 3)
