"""A Go example function with an output comment is a test (`go test` runs it and compares what it
prints): fatih/camelcase's only test is `ExampleSplit`, and its file was "REJECT: Gate 1 — COMPILE
ERROR ... no tests collected (no test found)"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import api
from assay.languages import go as golang

EXAMPLES = """package split

import "fmt"

func ExampleSplit() {
	fmt.Println(Split("a,b"))
	// Output: [a b]
}

func ExampleSplit_unordered() {
	fmt.Println("x")
	// Unordered output:
	// x
}

func ExampleNotRun() {
	fmt.Println(Split(""))
}

func TestSplit(t *testing.T) {}
"""


def test_examples_with_an_output_comment_are_tests_and_others_are_not():
    assert golang.test_names(EXAMPLES) == ["ExampleSplit", "ExampleSplit_unordered", "TestSplit"]


@pytest.mark.slow
def test_a_file_of_examples_is_verified_as_tests(tmp_path: Path) -> None:
    """Slow: a Go build of a small package (3 s, 12 s on a loaded machine)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "split"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/split\n\ngo 1.21\n")
    (root / "split.go").write_text(
        'package split\n\nimport "strings"\n\n'
        'func Split(s string) []string { return strings.Split(s, ",") }\n'
    )
    (root / "split_test.go").write_text(EXAMPLES.split("func ExampleSplit_unordered")[0])
    report = api.verify(
        [root / "split_test.go"],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": ["compile", "green", "stability"]},
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
    assert [t.id for t in f.tests] == ["split_test.go::ExampleSplit"]
