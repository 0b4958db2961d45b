"""A module of generators only (funcy's `butlast`, issue 25 finding): `yield x` had no mutant, so a
test that checks every value yielded was `low_value` "kills none". With `yield_value` the tests of a
generator are judged by what they kill: the exact one is accepted, the one that only checks a
generator came back stays low value."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

FILES = {
    "seqs.py": """
        def butlast(seq):
            it = iter(seq)
            try:
                prev = next(it)
            except StopIteration:
                pass
            else:
                for item in it:
                    yield prev
                    prev = item
        """,
    "tests/test_seqs.py": """
        from seqs import butlast


        def test_butlast():
            assert list(butlast("abc")) == ["a", "b"]


        def test_butlast_is_lazy():
            assert butlast("abc") is not None
        """,
}


@pytest.mark.slow
def test_the_tests_of_a_generator_are_judged_by_their_kills(project, tmp_path):
    root = project(
        files=FILES, pyproject="[tool.assay]\ngates = ['compile', 'green', 'mutation']\n"
    )
    out = tmp_path / "r.json"
    proc = run_cli("verify", "tests", "-f", "text", "-f", f"json={out}", cwd=root)
    tests = {
        t["id"].split("::")[1]: t for f in json.loads(out.read_text())["files"] for t in f["tests"]
    }
    assert tests["test_butlast"]["verdict"] == "accepted", (tests, proc.stdout[-3000:])
    assert tests["test_butlast_is_lazy"]["verdict"] == "low_value"
