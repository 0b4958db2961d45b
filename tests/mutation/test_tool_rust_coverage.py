"""Rust's gate-4 scope from LLVM coverage (`mutation.tools.cargo_coverage`): the functions a test
module runs are in scope, a function no test calls is not (bytesize 2.0.1's free `kb()` …
`pib()`, rejected 50 % with survivors only there), and a mutant on a line no test runs is
`NoCoverage` without a build."""

from __future__ import annotations

import shutil

import pytest

from assay._assay_sandbox.mutation.protocol import Status
from assay.execution.workspace import Workspace
from assay.mutation.model import Mutant, MutationResult
from assay.mutation.tools import REGISTRY
from assay.mutation.tools.cargo_coverage import Coverage, llvm_tools, narrowed, read_lcov
from assay.mutation.tools.cargo_mutants import executable
from tests.mutation.test_tool_rust import _crate, compiled_request

SIZE_CRATE = {
    "Cargo.toml": '[package]\nname = "size"\nversion = "0.1.0"\nedition = "2021"\n',
    # the test calls `Size::kb` (never its large branch), never the free `kb` of the same name
    "src/lib.rs": "pub struct Size(pub u64);\n\nimpl Size {\n    pub fn kb(n: u64) -> Size {\n"
    "        if n > 1_000_000 {\n            return Size(n * 1024 - 1);\n        }\n"
    "        Size(n * 1000)\n    }\n}\n\npub fn kb(n: u64) -> u64 {\n    n * 1000\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn size_kb() {\n"
    "        assert_eq!(Size::kb(2).0, 2000);\n    }\n}\n",
}


@pytest.mark.slow  # a coverage build and a cargo-mutants run of a tiny crate (20-60 s under load)
def test_a_function_no_test_runs_is_out_of_gate_4s_scope(tmp_path):
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    root = _crate(tmp_path / "size", SIZE_CRATE)
    if llvm_tools(root) is None:
        pytest.skip("no LLVM coverage tools for rustc's LLVM (llvm-tools, or Debian's llvm-N)")
    with Workspace(root) as ws:
        request = compiled_request(ws, root, timeout_s=600, executed_only=True)
        result = REGISTRY["rust"].run(request)
    assert result.scope == {"src/lib.rs": ["Size::kb"]}, result.scope_note
    assert result.scope_note == ""
    scored = {(m.line, m.original, m.replacement): r.status for m, r in result.scored}
    assert all(m.function == "Size::kb" for m, _ in result.scored)  # the free `kb` is out
    assert len(result.mutants) == 14 and len(scored) == 10
    # the large branch never runs: its four mutants are not built
    assert [scored[k] for k in scored if k[0] == 6] == [Status.NO_COVERAGE] * 4
    assert scored[(5, ">", "<")] is Status.KILLED
    assert scored[(5, ">", ">=")] is Status.SURVIVED
    assert scored[(8, "*", "+")] is Status.KILLED


def _mutant(i: int, line: int, function: str, body: tuple[int, int]) -> tuple[dict, Mutant]:
    raw = {
        "function": {
            "function_name": function,
            "span": {"start": {"line": body[0]}, "end": {"line": body[1]}},
        }
    }
    mutant = Mutant(
        id=f"rust-{i}",
        file="src/lib.rs",
        operator="BinaryOperator",
        start=0,
        end=1,
        line=line,
        col=0,
        end_line=line,
        end_col=1,
        original="*",
        replacement="+",
        function=function,
    )
    return raw, mutant


LCOV = "SF:{root}/src/lib.rs\nDA:4,1\nDA:5,1\nDA:6,0\nDA:8,1\nDA:12,0\nDA:13,0\nend_of_record\n"


def test_the_lines_that_ran_scope_the_mutants(tmp_path):
    """Functions by their lines (a same-named method is another function), then unrun lines."""
    cov = Coverage(lines=read_lcov(LCOV.format(root=tmp_path), tmp_path))
    scope = [
        _mutant(0, 5, "Size::kb", (4, 9)),
        _mutant(1, 6, "Size::kb", (4, 9)),
        _mutant(2, 13, "kb", (12, 14)),
    ]
    result = MutationResult(mutants=[m for _, m in scope], results={}, sources={})
    to_run, known = narrowed(scope, cov, result)
    assert [m.id for _, m in to_run] == ["rust-0"]
    assert {i: r.status for i, r in known.items()} == {"rust-1": Status.NO_COVERAGE}
    assert result.scope == {"src/lib.rs": ["Size::kb"]}


def test_without_coverage_the_whole_file_stays_and_a_note_says_so(tmp_path):
    scope = [_mutant(0, 13, "kb", (12, 14))]
    result = MutationResult(mutants=[m for _, m in scope], results={}, sources={})
    missing = Coverage(missing="no LLVM coverage tools for rustc's LLVM 22")
    assert narrowed(scope, missing, result) == (scope, {})
    assert result.scope is None
    assert result.scope_note == (
        "gate 4's scope is the whole file (no Rust coverage: no LLVM coverage tools for "
        "rustc's LLVM 22)"
    )
    # a coverage that names no line of the target was not measured there: the whole file too
    other = Coverage(lines=read_lcov(LCOV.format(root="/elsewhere"), tmp_path))
    assert narrowed(scope, other, result) == (scope, {})
    assert "names no line of src/lib.rs" in result.scope_note
