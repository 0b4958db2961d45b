"""A Go test that starts another process runs the project's code out of gate 4's sight (a `go`
command builds the package afresh, without the mutant's overlay): when it kills nothing it gets a
note, not `low_value`, as Python's tests that start a process do. cespare/xxhash's TestInlining,
which runs `go test -gcflags=-m` to check what the compiler inlines, was `low_value`, "reaches no
mutant: none of the project lines it runs has one"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay import api
from assay.languages import go_source

SPAWNING = """package price

import (
	"os"
	"os/exec"
	"testing"
)

func TestInlined(t *testing.T) {
	out, err := exec.Command("go", "env", "GOVERSION").CombinedOutput() // runs `go`
	if err != nil || len(out) == 0 {
		t.Fatal(err)
	}
}

func TestViaHelper(t *testing.T) { build(t) }

func build(t *testing.T) { start(t) }

func start(t *testing.T) {
	if _, err := os.StartProcess("/bin/true", nil, &os.ProcAttr{}); err != nil {
		t.Skip(err)
	}
}

// exec.Command("go") in a comment starts nothing
func TestTotal(t *testing.T) {
	if Total(2, 3) != 5 {
		t.Fatal("total")
	}
}
"""


def test_the_go_tests_that_start_a_process_and_how():
    assert go_source.spawning_tests(SPAWNING) == {
        "TestInlined": "calls exec.Command",
        "TestViaHelper": "calls os.StartProcess",
    }


@pytest.mark.slow
def test_a_go_test_that_starts_a_process_and_kills_nothing_is_not_low_value(
    tmp_path: Path,
) -> None:
    """Slow: gate 4 on a small package (a Go build per mutant; 30-60 s at load 30)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "price"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/price\n\ngo 1.21\n")
    (root / "price.go").write_text(
        "package price\n\n// Total adds two amounts.\nfunc Total(a, b int) int { return a + b }\n"
    )
    (root / "price_test.go").write_text(
        'package price\n\nimport (\n\t"os/exec"\n\t"testing"\n)\n\n'
        "func TestTotal(t *testing.T) {\n\tif Total(2, 3) != 5 {\n"
        "\t\tt.Fatal(Total(2, 3))\n\t}\n}\n\n"
        "func TestBuilds(t *testing.T) {\n"
        '\tout, err := exec.Command("go", "list", "-f", "{{.Name}}", ".").CombinedOutput()\n'
        '\tif err != nil || string(out) != "price\\n" {\n\t\tt.Fatal(err, string(out))\n\t}\n}\n'
    )
    report = api.verify(
        [root / "price_test.go"],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": ["compile", "green", "mutation"]},
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
    by_id = {t.id: t for t in f.tests}
    builds = by_id["price_test.go::TestBuilds"]
    assert builds.verdict.value == "accepted", builds
    assert "gate 4 cannot judge it" in builds.note, builds
    assert "calls exec.Command" in builds.note, builds
