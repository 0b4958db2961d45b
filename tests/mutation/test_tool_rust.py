"""The Rust mutation tool (`REGISTRY["rust"]`, cargo-mutants) on the bundled example, called
directly as gate 4 will: one real run in the sandbox, `--in-place` in the scratch copy only."""

from __future__ import annotations

import shutil

import pytest

from assay._assay_sandbox.mutation.protocol import Status
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.mutation.tools import REGISTRY, ToolRequest
from assay.mutation.tools.cargo_mutants import executable, selection
from assay.project import Project
from assay.sandbox import Sandbox
from tests.conftest import REPO, tree_digest


@pytest.mark.slow
def test_cargo_mutants_statuses_are_read_back_and_the_tree_is_untouched(tmp_path):
    """Slow lane: a whole cargo build and cargo-mutants run, an end-to-end toolchain run as the
    lane is for (where cargo-mutants is installed); the selection below stays in the fast lane."""
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    root = tmp_path / "rust"
    # typo.rs does not compile, wrong.rs fails: siblings the candidate's run must not touch
    shutil.copytree(REPO / "examples" / "rust", root, ignore=shutil.ignore_patterns("target"))
    before = tree_digest(root)
    settings = Settings(cache=False)
    with Workspace(root) as ws:
        request = ToolRequest(
            ws.project,
            Project.load(root),
            settings,
            Sandbox(settings.sandbox, protect=root),
            ("tests/price.rs",),
            ("src/lib.rs",),
            timeout_s=600,
        )
        runner = LANGUAGES["rust"].runner(request.sandbox, request.project, settings)
        assert runner.compile(ws, ["tests/price.rs"]).ok  # gates 1-3's build, then gate 4
        assert REGISTRY["rust"].problem(request) is None
        result = REGISTRY["rust"].run(request)
        scratch_after = (ws.project / "src/lib.rs").read_text()
        # the next candidate in this workspace: the source back with its old mtime must not meet
        # a mutant's build (cargo would find it fresh)
        ws.reset()
        assert runner.compile(ws, ["tests/price.rs"]).ok
        assert len(runner.run(ws, ["tests/price.rs"]).passed()) == 3
    assert tree_digest(root) == before
    assert scratch_after == (root / "src/lib.rs").read_text()  # --in-place put it back
    statuses = {(m.line, m.original, m.replacement): r.status for m, r in result.scored}
    assert statuses, result.mutants
    assert set(statuses.values()) <= {
        Status.KILLED,
        Status.SURVIVED,
        Status.TIMEOUT,
        Status.COMPILE_ERROR,
    }
    assert statuses[(7, "<", "==")] is Status.KILLED
    assert statuses[(7, "<", "<=")] is Status.SURVIVED  # no test tries a price of 0
    assert statuses[(10, "+=", "-=")] is Status.KILLED
    assert result.counts["Killed"] == 16 and result.counts["Survived"] == 1
    for m, _ in result.scored:
        assert result.sources[m.file][m.start : m.end] == m.original


def test_the_candidates_tests_alone_are_selected():
    assert selection(".", "tests/price.rs") == (["--test", "price"], [])
    assert selection("crates/p", "crates/p/src/money/mod.rs") == (["--lib"], ["money"])
    assert selection(".", "src/lib.rs") == (["--lib"], [])


PARSE_CRATE = {
    "Cargo.toml": '[package]\nname = "num"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub fn show(n: i64) -> String {\n    n.to_string()\n}\n",
    # no library module: only tests/parse.rs compiles it, by `#[path]` (ryu's src/s2d.rs)
    "src/parse.rs": "pub fn parse_num(s: &str) -> i64 {\n    if s.is_empty() {\n        return 0;\n"
    "    }\n    s.parse().unwrap()\n}\n",
    "tests/parse.rs": '#[path = "../src/parse.rs"]\nmod parse;\n\n#[test]\nfn parses() {\n'
    '    parse::parse_num("12");\n}\n',
}


def _crate(root, files: dict[str, str]):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def compiled_request(ws: Workspace, root, timeout_s: float, **kw) -> ToolRequest:
    """Gate 4's request for a crate whose `src/lib.rs` holds both the code and its tests, after
    gates 1-3's build of it in `ws`."""
    settings = Settings(cache=False)
    request = ToolRequest(
        ws.project,
        Project.load(root),
        settings,
        Sandbox(settings.sandbox, protect=root),
        ("src/lib.rs",),
        ("src/lib.rs",),
        timeout_s=timeout_s,
        workspace=ws,
        **kw,
    )
    runner = LANGUAGES["rust"].runner(request.sandbox, request.project, settings)
    assert runner.compile(ws, ["src/lib.rs"]).ok
    return request


def test_a_file_only_a_test_compiles_is_named_as_what_cargo_mutants_cannot_mutate(tmp_path):
    """cargo-mutants mutates the library's and binaries' code: ryu's `src/s2d.rs`, which only
    its test includes by `#[path]`, gave no mutant at all, and gate 4 measured nothing."""
    root = _crate(tmp_path / "num", PARSE_CRATE)
    settings = Settings(cache=False)
    request = ToolRequest(
        root,
        Project.load(root),
        settings,
        Sandbox(settings.sandbox, protect=root),
        ("tests/parse.rs",),
        ("src/parse.rs",),
    )
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    problem = REGISTRY["rust"].problem(request) or ""
    assert "src/parse.rs is not part of it (compiled only into tests by `#[path]`" in problem
    both = ToolRequest(**{**request.__dict__, "targets": ("src/parse.rs", "src/lib.rs")})
    assert REGISTRY["rust"].problem(both) is None  # src/lib.rs is mutated, src/parse.rs named


@pytest.mark.slow
def test_a_test_of_a_file_only_it_compiles_is_unvalidated_at_gate_4(tmp_path):
    """Slow lane: gates 1-3 build the crate. The test asserts nothing of `parse_num`: with no
    mutant to measure it was accepted; gate 4 cannot judge it, and says why."""
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    from assay import api
    from assay.model import Verdict

    root = _crate(tmp_path / "num", PARSE_CRATE)
    report = api.verify([root / "tests/parse.rs"], root=root, use_cache=False)
    (entry,) = report.files
    assert entry.targets == ["src/parse.rs"]
    assert entry.verdict is Verdict.UNVALIDATED, entry
    gate = next(g for g in entry.gates if g.gate == "mutation")
    assert "compiled only into tests by `#[path]`" in gate.details["reason"]


@pytest.mark.slow
def test_a_test_whose_measurable_targets_give_no_mutant_is_unvalidated(tmp_path):
    """Slow lane: ryu's d2s_table_test tests `compute_pow5` of a table the library compiles only
    with `feature = "small"` against the full table (constants: no mutant). Gate 4 measured
    nothing and the file was accepted."""
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    from assay import api
    from assay.model import Verdict

    files = {
        "Cargo.toml": '[package]\nname = "num"\nversion = "0.1.0"\nedition = "2021"\n\n'
        "[features]\nsmall = []\n",
        "src/lib.rs": 'pub mod table;\n#[cfg(feature = "small")]\nmod small;\n',
        "src/table.rs": "pub const POW: [u64; 3] = [1, 5, 25];\n",
        "src/small.rs": "pub fn pow5(i: u32) -> u64 {\n    5u64.pow(i)\n}\n",
        "tests/table.rs": '#[path = "../src/small.rs"]\nmod small;\n\n#[test]\nfn same() {\n'
        "    for (i, p) in num::table::POW.iter().enumerate() {\n"
        "        let _ = (small::pow5(i as u32), p);\n    }\n}\n",
    }
    root = _crate(tmp_path / "num", files)
    report = api.verify([root / "tests/table.rs"], root=root, use_cache=False)
    (entry,) = report.files
    assert entry.targets == ["src/small.rs", "src/table.rs"]
    assert entry.verdict is Verdict.UNVALIDATED, entry
    reason = next(g for g in entry.gates if g.gate == "mutation").details["reason"]
    assert "src/small.rs is not part of it" in reason
    assert reason.endswith("; src/table.rs has no mutant to count")


MACRO_CRATE = {
    "Cargo.toml": '[package]\nname = "answer"\nversion = "0.1.0"\nedition = "2021"\n\n'
    "[lib]\nproc-macro = true\n",
    "src/lib.rs": "use proc_macro::TokenStream;\n\n"
    'fn digits() -> String {\n    "42".to_string()\n}\n\n'
    "#[proc_macro]\npub fn answer(_: TokenStream) -> TokenStream {\n"
    "    digits().parse().unwrap()\n}\n\n"
    "#[proc_macro]\npub fn unused(_: TokenStream) -> TokenStream {\n"
    '    "0".parse().unwrap()\n}\n',
    "tests/answer.rs": "use answer::answer;\n\n#[test]\nfn is_a_number() {\n"
    "    let n: i32 = answer!();\n    assert!(n >= 0);\n}\n",
}


@pytest.mark.slow  # gates 1-4 of a proc-macro crate: a build per mutant (30-90 s under load)
def test_a_proc_macro_mutant_that_breaks_the_tests_build_is_caught_by_the_test(tmp_path):
    """A proc macro runs while its tests compile: cargo-mutants calls a mutant whose expansion
    does not compile in the test "unviable" (not counted), and indoc 2.0.0's tests/test_indoc.rs
    was rejected at 0% (18 of 23 mutants unviable, the 5 others in macros it never uses). Such a
    mutant is caught by the test that no longer builds; one whose library does not build stays
    unviable. A macro the test never expands never runs for it: out of the file's scope."""
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    from assay import api

    root = _crate(tmp_path / "answer", MACRO_CRATE)
    report = api.verify(
        [root / "tests/answer.rs"],
        root=root,
        use_cache=False,
        overrides={"gates": ["compile", "green", "mutation"]},
    )
    (entry,) = report.files
    gate = next(g for g in entry.gates if g.gate == "mutation")
    d = gate.details
    # `digits` -> String::new() / "xyzzy": `let n: i32 = ;` and an unknown name; `answer` ->
    # Default::default(): nothing. `unused!` is expanded by no test: its mutant never runs for
    # this file (it survived, and was charged)
    assert d["killed"] >= 3 and d["survived"] == 0, (d, gate.feedback)
    assert entry.verdict.value == "accepted", gate.feedback


HANG_CRATE = {
    "Cargo.toml": '[package]\nname = "count"\nversion = "0.1.0"\nedition = "2021"\n',
    # `i *= step()` (and `step` -> 0) loop for ever: each such mutant runs to cargo-mutants' own
    # per-mutant timeout, past the whole run's limit
    "src/lib.rs": "pub fn count_to(n: u64) -> u64 {\n    let mut i = 0;\n    while i < n {\n"
    "        i += step();\n    }\n    i\n}\n\npub fn step() -> u64 {\n    1\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    #[test]\n    fn counts() {\n"
    "        assert_eq!(super::count_to(5), 5);\n    }\n}\n",
}


@pytest.mark.slow  # a cargo build, then cargo-mutants cut at its 12 s limit
def test_a_run_cut_at_the_time_limit_is_no_verdict_on_the_mutants_it_measured(tmp_path):
    """humantime 2.2.0's src/date.rs was accepted at 98 % on the 101 of its 438 mutants that
    cargo-mutants finished before gate 4's limit: the outcomes file is written as it goes, and a
    part of it was read as the whole."""
    if shutil.which("cargo") is None or executable() is None:
        pytest.skip("cargo-mutants is not installed (cargo install --locked cargo-mutants)")
    from assay.mutation.tools.scratch_run import ToolFailed

    root = _crate(tmp_path / "count", HANG_CRATE)
    with Workspace(root) as ws:
        request = compiled_request(ws, root, timeout_s=12)
        with pytest.raises(ToolFailed) as failed:
            REGISTRY["rust"].run(request)
    assert "cargo mutants timed out after" in str(failed.value)
    assert "mutants measured" in str(failed.value)
