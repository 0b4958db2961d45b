"""Gate 1 of Go judges a file as `go test` builds it, vetting with `go test`'s own subset of vet's
checks (`go help test`), not all of `go vet`'s: cespare/xxhash's test files were "REJECT: Gate 1 —
COMPILE ERROR ... collection did not finish: go vet exited with status 1", for `asmdecl`'s finding
in the project's assembly (`xxhash_amd64.s:189:1: [amd64] writeBlocks: unknown variable s`), which
`go test` never runs; and a test copying a lock (`copylocks`) was a compile error that `go test`
builds and passes."""

from __future__ import annotations

import platform
import shutil
from pathlib import Path

import pytest

from assay import api

SHAPE = (
    "package shape\n\n// Point is a place on the plane.\ntype Point struct{ X, Y int }\n\n"
    "// Add sums two points.\n"
    "func Add(a, b Point) Point { return Point{X: add(a.X, b.X), Y: add(a.Y, b.Y)} }\n"
)
# the assembly names its first argument `x` where the Go declaration says `a`: vet's asmdecl
# reports it, the assembler and `go test` do not care
ASSEMBLY = {
    "add_amd64.go": "package shape\n\nfunc add(a, b int) int\n",
    "add_amd64.s": (
        '#include "textflag.h"\n\n// func add(a, b int) int\n'
        "TEXT ·add(SB), NOSPLIT, $0-24\n\tMOVQ x+0(FP), AX\n\tMOVQ b+8(FP), BX\n"
        "\tADDQ BX, AX\n\tMOVQ AX, ret+16(FP)\n\tRET\n"
    ),
    "add_other.go": (
        "//go:build !amd64\n\npackage shape\n\nfunc add(a, b int) int { return a + b }\n"
    ),
}
CHECK = (
    "\tif got := Add(Point{X: 3, Y: 5}, Point{X: 1, Y: 1}); got != (Point{X: 4, Y: 6}) {\n"
    '\t\tt.Fatalf("got %v", got)\n\t}\n'
)
TESTS = {
    "add_test.go": (
        f'package shape\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {{\n{CHECK}}}\n'
    ),
    # `go vet`'s copylocks, not one of `go test`'s checks
    "locks_test.go": (
        'package shape\n\nimport (\n\t"sync"\n\t"testing"\n)\n\n'
        "type guarded struct {\n\tmu sync.Mutex\n\tp  Point\n}\n\n"
        "func shifted(g guarded) Point { return Add(g.p, Point{X: 1, Y: 1}) }\n\n"
        "func TestShifted(t *testing.T) {\n"
        "\tif got := shifted(guarded{p: Point{X: 3, Y: 5}}); got != (Point{X: 4, Y: 6}) {\n"
        '\t\tt.Fatalf("got %v", got)\n\t}\n}\n'
    ),
    # printf is one of `go test`'s checks: still the file's error, at its line
    "printf_test.go": (
        'package shape\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n'
        "func TestPrinted(t *testing.T) {\n"
        '\tif fmt.Sprintf("%d", "x") == "" {\n\t\tt.Fatal("empty")\n\t}\n}\n'
    ),
}


@pytest.mark.slow
def test_a_go_file_is_vetted_as_go_test_vets_it(tmp_path: Path) -> None:
    """Slow: Go builds of a small package, three files (50-80 s at load 30)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "shape"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/shape\n\ngo 1.21\n")
    (root / "shape.go").write_text(SHAPE)
    if platform.machine().lower() in ("x86_64", "amd64"):
        for name, text in ASSEMBLY.items():
            (root / name).write_text(text)
    else:  # the asmdecl half needs amd64's assembler; the copylocks half runs anywhere
        (root / "add.go").write_text("package shape\n\nfunc add(a, b int) int { return a + b }\n")
    for name, text in TESTS.items():
        (root / name).write_text(text)
    report = api.verify(
        [root / name for name in TESTS],
        root=root,
        use_cache=False,
        overrides={"stability.reruns": 1, "gates": ["compile", "green"]},
    )
    by_name = {Path(f.path).name: f for f in report.files}
    for name in ("add_test.go", "locks_test.go"):
        f = by_name[name]
        assert f.verdict.value == "accepted", (name, [g.feedback for g in f.gates])
    printed = by_name["printf_test.go"]
    assert printed.verdict.value == "rejected"
    assert printed.gates[0].gate == "compile"
    assert "printf_test.go:9" in printed.gates[0].feedback, printed.gates[0].feedback
    assert "Sprintf format %d has arg" in printed.gates[0].feedback
