"""The Go mutation tool (`REGISTRY["go"]`) on the bundled example, called directly as gate 4 will:
real `go test -overlay` runs in the sandbox, the user's tree untouched."""

from __future__ import annotations

import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay._assay_sandbox.mutation.protocol import Status
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages.tested_sources import go_sources
from assay.mutation.attribution import REACHES_NONE, attribute
from assay.mutation.tools import REGISTRY, ToolRequest
from assay.mutation.tools.go import _status, engine
from assay.mutation.tools.go_coverage import covered_lines
from assay.project import Project
from assay.sandbox import Sandbox
from tests.conftest import REPO, tree_digest

WEAK = """package price

import "testing"

func TestDiscountRuns(t *testing.T) {
	Discount(95, 30)
}
"""


@pytest.fixture(scope="module")
def go_example(tmp_path_factory) -> Path:
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path_factory.mktemp("go-tool") / "go"
    shutil.copytree(REPO / "examples" / "go", root)
    for broken in ("typo", "wrong", "flaky"):  # gate 1-3 material: the package must build
        (root / "price" / f"{broken}_test.go").unlink()
    (root / "price" / "weak_test.go").write_text(WEAK)
    return root


def _run(
    root: Path,
    test: str,
    lines: dict[str, frozenset[int]] | None = None,
    targets: tuple[str, ...] = ("price/price.go",),
    executed_only: bool = False,
):
    settings = Settings(cache=False)
    with Workspace(root) as ws:
        request = ToolRequest(
            ws.project,
            Project.load(root),
            settings,
            Sandbox(settings.sandbox, protect=root),
            (test,),
            targets,
            lines=lines,
            timeout_s=120,
            executed_only=executed_only,
        )
        assert REGISTRY["go"].problem(request) is None
        return REGISTRY["go"].run(request)


@pytest.mark.slow
def test_good_tests_kill_all_but_the_boundaries_and_the_tree_is_untouched(go_example):
    """Slow lane: real `go test` runs of the example, a whole toolchain end to end; reading
    go's output is the fast test below."""
    before = tree_digest(go_example)
    result = _run(go_example, "price/price_test.go")
    assert tree_digest(go_example) == before
    statuses = {(m.line, m.original, m.replacement): r.status for m, r in result.scored}
    assert statuses[(10, "<", "<=")] is Status.SURVIVED  # Total(0) is never tried
    assert statuses[(13, "+=", "-=")] is Status.KILLED
    assert statuses[(23, "*", "/")] is Status.KILLED
    # the fourth: `pct < 0 || pct > 100` -> `&&` (the out-of-range panic is never tried)
    assert statuses[(20, "||", "&&")] is Status.SURVIVED
    assert result.counts["Killed"] == 7 and result.counts["Survived"] == 4
    killed = dict(result.scored)
    assert any(
        r.killed_by == ["price/price_test.go::TestDiscountRoundsDown"] for r in killed.values()
    )
    survivor = result.survivors()[0][0]
    assert survivor.before.strip() != survivor.after.strip()


@pytest.mark.slow
def test_a_test_without_assertions_kills_nothing_and_uncovered_lines_are_not_run(go_example):
    """Slow lane: real `go test` runs of the example, a whole toolchain end to end; reading
    go's output is the fast test below."""
    result = _run(go_example, "price/weak_test.go", lines={"price/price.go": frozenset({10, 23})})
    by_line = {}
    for m, r in result.scored:
        by_line.setdefault(m.line, set()).add(r.status)
    assert by_line == {10: {Status.NO_COVERAGE}, 23: {Status.SURVIVED}}
    assert result.score == 0.0


def test_statuses_and_coverage_are_read_from_go_output():
    build_failed = '{"Action":"build-fail","ImportPath":"x"}\n'
    assert _status(build_failed, 1, False, 0.1).status is Status.COMPILE_ERROR
    failed = '{"Action":"fail","Test":"TestA"}\n{"Action":"fail"}\n'
    assert _status(failed, 1, False, 0.1).killed_by == ["TestA"]
    assert _status("", 0, False, 0.1).status is Status.SURVIVED
    assert _status("", -9, True, 0.1).status is Status.TIMEOUT
    profile = "mode: set\nexample.com/m/p/a.go:3.2,5.3 2 1\nexample.com/m/p/a.go:7.2,7.9 1 0\n"
    assert covered_lines(profile, "example.com/m", "sub") == {"sub/p/a.go": {3, 4, 5}}


BAG = """package bag

type Bag struct{ Items []int }

func Total(b Bag) int {
	t := 0
	for _, x := range b.Items {
		t += x
	}
	return t
}

func Max(b Bag) int {
	m := 0
	for _, x := range b.Items {
		if x > m {
			m = x
		}
	}
	return m
}
"""
BAG_SORT = """package bag

func (b Bag) Len() int           { return len(b.Items) }
func (b Bag) Swap(i, j int)      { b.Items[i], b.Items[j] = b.Items[j], b.Items[i] }
func (b Bag) Less(i, j int) bool { return b.Items[i] < b.Items[j] }
"""
# names `Bag` and `Total`, never `Less`: sort.Sort runs the methods in bag_sort.go
BAG_TEST = """package bag

import (
	"sort"
	"testing"
)

func TestSortedTotal(t *testing.T) {
	b := Bag{Items: []int{3, 1, 2}}
	sort.Sort(b)
	if b.Items[0] != 1 || b.Items[2] != 3 || Total(b) != 6 {
		t.Fatalf("got %v", b.Items)
	}
}
"""


def _bag(root: Path) -> Path:
    root.mkdir()
    (root / "go.mod").write_text("module example.com/bag\n\ngo 1.21\n")
    for name, text in {"bag.go": BAG, "bag_sort.go": BAG_SORT, "bag_test.go": BAG_TEST}.items():
        (root / name).write_text(text)
    return root


def test_the_files_of_a_used_types_methods_are_targets(tmp_path):
    """sort_test.go of hashicorp/go-multierror sorts an `Error` (sort.go's methods) and was
    judged on multierror.go alone, where it runs nothing: rejected, 0%."""
    root = _bag(tmp_path / "bag")
    assert go_sources(root, BAG_TEST, "bag_test.go") == ["bag.go", "bag_sort.go"]


# xrash/smetrics keeps its tests in `tests/`: a package of its own importing the module's root
OUTSIDE_TEST = """package tests

import (
	"testing"

	bags "example.com/bag"
)

func TestTotalOutside(t *testing.T) {
	if got := bags.Total(bags.Bag{Items: []int{1, 2}}); got != 3 {
		t.Fatalf("got %d", got)
	}
}
"""


def test_the_packages_a_test_imports_from_its_module_are_targets(tmp_path):
    """smetrics' tests/hamming_test.go calls `smetrics.Hamming`; gate 4 mutated only its own
    package's tests/testcases.go (a table of cases) and said "measured nothing"."""
    root = _bag(tmp_path / "bag")
    (root / "tests").mkdir()
    (root / "tests/cases.go").write_text("package tests\n\nvar sizes = []int{1, 2}\n")
    (root / "tests/total_test.go").write_text(OUTSIDE_TEST)
    found = go_sources(root, OUTSIDE_TEST, "tests/total_test.go")
    assert found == ["bag.go", "bag_sort.go"]  # and the methods of the type it builds
    # an import of another module, or of the standard library, is not the project's code
    other = OUTSIDE_TEST.replace('bags "example.com/bag"', '"example.com/bagger"')
    assert go_sources(root, other, "tests/total_test.go") == ["tests/cases.go"]


@pytest.mark.slow
def test_gate_4_mutates_the_imported_package_of_a_test_outside_it(tmp_path):
    """Slow lane: real `go test` runs; the targets found above are measured through the test's
    own package (`-coverpkg`), only the function it runs in scope."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = _bag(tmp_path / "bag")
    (root / "tests").mkdir()
    (root / "tests/total_test.go").write_text(OUTSIDE_TEST)
    targets = tuple(go_sources(root, OUTSIDE_TEST, "tests/total_test.go"))
    gate = _run(root, "tests/total_test.go", targets=targets, executed_only=True)
    assert gate.scope == {"bag.go": ["Total"]}
    assert {r.status for _, r in gate.scored} >= {Status.KILLED}


@pytest.mark.slow
def test_gate_4_counts_only_the_functions_the_tests_run(tmp_path):
    """Slow lane: real `go test` runs. As Python's gate 4: a test of `Total` and the sort methods
    is not charged for `Max` (go-multierror's append_test.go was rejected for `ErrorOrNil` and
    `Unwrap`, in the file declaring the type it builds); `assay mutate` still counts them."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = _bag(tmp_path / "bag")
    (root / "none_test.go").write_text(
        'package bag\n\nimport "testing"\n\nfunc TestNothing(t *testing.T) {\n'
        '\tif len("ab") != 2 {\n\t\tt.Fatal("len")\n\t}\n}\n'
    )

    def run(executed_only: bool, test: str = "bag_test.go"):
        return _run(root, test, targets=("bag.go", "bag_sort.go"), executed_only=executed_only)

    gate = run(True)
    functions = {m.function for m, _ in gate.scored}
    assert functions == {"Total", "Bag.Less"}, functions
    assert gate.scope == {"bag.go": ["Total"], "bag_sort.go": ["Bag.Less"]}  # those with mutants
    whole = run(False)
    assert {r.status for m, r in whole.scored if m.function == "Max"} == {Status.NO_COVERAGE}
    # a file that runs no function of the code is still held to all of it: 0%, never a pass
    idle = run(True, "none_test.go")
    assert idle.scope is None and idle.score == 0.0 and len(idle.scored) == len(whole.scored)


def test_concurrent_first_uses_build_the_engine_once_each_without_failing(tmp_path, monkeypatch):
    """The files of one `verify` reach gate 4 together on a new assay version: each build wrote
    the same temporary name and the later rename failed ("No such file or directory ...
    go_engine.tmp", exit 2)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    gocache = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True).stdout
    monkeypatch.setenv("GOCACHE", gocache.strip())  # Go's own cache stays warm
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # assay's cache starts empty
    start = threading.Barrier(3)

    def build() -> Path:
        start.wait()
        return engine()

    with ThreadPoolExecutor(3) as pool:
        built = list(pool.map(lambda _: build(), range(3)))
    assert len(set(built)) == 1 and built[0].is_file()
    assert [p.name for p in built[0].parent.iterdir()] == ["go_engine"]


LEX = """package lex

var classes = map[rune]string{' ': "space", 'a': "letter"}

func Class(r rune) string { return classes[r] }

func Split(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if r == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
"""

LEX_TEST = """package lex

import (
	"reflect"
	"testing"
)

func TestClass(t *testing.T) {
	if Class('a') != "letter" {
		t.Fatal("a is a letter")
	}
}

func TestSplit(t *testing.T) {
	if got := Split("a  bc "); !reflect.DeepEqual(got, []string{"a", "bc"}) {
		t.Fatalf("got %q", got)
	}
}
"""


@pytest.mark.slow
def test_each_test_is_named_only_under_the_mutants_of_the_code_it_runs(tmp_path):
    """Slow lane: real `go test` runs. shlex's TestClassifier checks a map lookup (no mutant) and
    was said to kill "none of the 10 mutants of the code it runs": the engine had one profile for
    the file, so every test ran every covered mutant. Now each test's own profile says which."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "lex"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/lex\n\ngo 1.21\n")
    (root / "lex.go").write_text(LEX)
    (root / "lex_test.go").write_text(LEX_TEST)
    result = _run(root, "lex_test.go", targets=("lex.go",), executed_only=True)
    covered = [r for _, r in result.scored if r.status is not Status.NO_COVERAGE]
    assert covered and result.per_test_coverage
    assert all(r.covered_by == ["lex_test.go::TestSplit"] for r in covered), covered
    judged = attribute(result, ["lex_test.go::TestClass", "lex_test.go::TestSplit"])
    assert judged.low_value == {"lex_test.go::TestClass": REACHES_NONE}


FIND = """package find

// Find points at the first x in xs, or is nil.
func Find(xs []int, x int) *int {
	for i := range xs {
		if xs[i] == x {
			return &xs[i]
		}
	}
	return nil
}
"""
# under `==` -> `!=`, the first two tests dereference nil: each panic ends the test binary before
# the tests after it run, and the last fails on the same mutant too
FIND_TEST = """package find

import "testing"

func TestFindDereferences(t *testing.T) {
	if *Find([]int{5}, 5) != 5 {
		t.Fatal("not 5")
	}
}

func TestFindDereferencesAgain(t *testing.T) {
	if *Find([]int{5, 5}, 5) != 5 {
		t.Fatal("not 5")
	}
}

func TestFindIsNotNil(t *testing.T) {
	if Find([]int{5}, 5) == nil {
		t.Fatal("nil")
	}
}
"""


def _verify_package(tmp_path, name: str, code: str, tests: str):
    """Gates 1-4 of a Go module of one package, `name.go` tested by `name_test.go`: its file's
    report (skips where go is not installed)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    from assay import api

    root = tmp_path / name
    root.mkdir(parents=True)
    (root / "go.mod").write_text(f"module example.com/{name}\n\ngo 1.21\n")
    (root / f"{name}.go").write_text(code)
    (root / f"{name}_test.go").write_text(tests)
    (entry,) = api.verify([root / f"{name}_test.go"], root=root, use_cache=False).files
    return entry


@pytest.mark.slow  # gates 1-4 of a Go package: builds, a coverage run, one mutant (15-40 s)
def test_a_test_after_a_panic_is_run_again_not_called_low_value(tmp_path):
    """semver's TestValidatePrerelease was `low_value` ("kills none of the mutants of the code it
    runs"): under a mutant of validatePrerelease, TestParts dereferenced nil, the panic ended the
    test binary, and the tests after it never ran. They now run on that mutant on their own."""
    from assay.model import Verdict

    entry = _verify_package(tmp_path, "find", FIND, FIND_TEST)
    gate = next(g for g in entry.gates if g.gate == "mutation")
    assert gate.details["killed"] == 1 and gate.details["survived"] == 0, gate.details
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]
    assert [t.verdict for t in entry.tests] == [Verdict.ACCEPTED] * 3


KINDS = """package kinds

// Label: a switch returning strings, which no operator of the engine changes.
func Label(s string) string {
	switch s {
	case "x", "X", "*":
		return "ex"
	default:
		return "other"
	}
}

func Double(n int) int {
	return n * 2
}
"""
KINDS_TEST = """package kinds

import "testing"

func TestLabel(t *testing.T) {
	if Label("x") != "ex" || Label("a") != "other" {
		t.Fatal("label")
	}
}

func TestDouble(t *testing.T) {
	if Double(3) != 6 {
		t.Fatal("double")
	}
}
"""


@pytest.mark.slow  # gates 1-4 of a Go package: builds, coverage runs, two mutants (15-40 s)
def test_a_test_of_code_with_no_mutant_is_not_judged_not_low_value(tmp_path):
    """semver's TestIsX and cast's TestToSliceE were `low_value` ("reaches no mutant: none of the
    project lines it runs has one"): they test switches returning values, where the engine's
    operators change nothing. Gate 4 cannot judge them; it says so in a note. A file of such tests
    alone is not charged with the functions it never calls (slug's TestSubstituteRuneLang alone
    was rejected at 0% on the lines of MakeLang, "no test runs this line")."""
    from assay.gates.mutation_tool import NO_MUTANT_THERE
    from assay.model import Verdict

    entry = _verify_package(tmp_path, "kinds", KINDS, KINDS_TEST)
    assert entry.verdict is Verdict.ACCEPTED, [g.feedback for g in entry.gates]
    verdicts = {t.id: t.verdict for t in entry.tests}
    assert verdicts == {
        "kinds_test.go::TestLabel": Verdict.ACCEPTED,
        "kinds_test.go::TestDouble": Verdict.ACCEPTED,
    }, entry.tests
    notes = {t.id: t.note for t in entry.tests}
    assert notes == {"kinds_test.go::TestLabel": NO_MUTANT_THERE, "kinds_test.go::TestDouble": ""}
    first = KINDS_TEST.split("func TestDouble")[0]
    alone = _verify_package(tmp_path / "alone", "kinds", KINDS, first)
    assert alone.verdict is Verdict.ACCEPTED, [g.feedback for g in alone.gates]
    assert [t.note for t in alone.tests] == [NO_MUTANT_THERE]


INIT = """package tbl

var Ready bool

var Squares = []int{0, 1, 4, 9}

func init() { setup() }

func setup() {
	if len(Squares) > 2 {
		Ready = true
	}
}

// Add is the code the tests call.
func Add(a, b int) int {
	return a + b
}
"""
INIT_TEST = """package tbl

import "testing"

func TestSquaresSorted(t *testing.T) {
	for i := 1; i < len(Squares); i++ {
		if Squares[i-1] > Squares[i] {
			t.Fatal("unsorted")
		}
	}
}

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal("not 5")
	}
}
"""


ONE_TEST = """func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal("not 5")
	}
}
"""


@pytest.mark.slow  # real `go test` runs: two coverage builds and the mutants of Add (30-80 s)
def test_what_the_packages_init_runs_is_no_tests_code(tmp_path):
    """go-runewidth's `init()` calls handleEnv: every test's own cover profile held its lines, so
    TestSorted, which checks the test file's tables, "kills none of the 2 mutants of the code it
    runs", and handleEnv's mutants were in gate 4's scope though only the initialisation ran them
    (Python leaves import-time code to `assay mutate`). Each test's profile is now read beyond a
    run of the binary with no test."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path / "tbl"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/tbl\n\ngo 1.21\n")
    (root / "tbl.go").write_text(INIT)
    (root / "tbl_test.go").write_text(INIT_TEST)
    result = _run(root, "tbl_test.go", targets=("tbl.go",), executed_only=True)
    assert result.per_test_coverage and result.scored
    assert {m.function for m, _ in result.scored} == {"Add"}, result.scope
    assert all(r.covered_by == ["tbl_test.go::TestAdd"] for _, r in result.scored)
    judged = attribute(result, ["tbl_test.go::TestSquaresSorted", "tbl_test.go::TestAdd"])
    assert judged.low_value == {"tbl_test.go::TestSquaresSorted": REACHES_NONE}
    # a file of one test too (gobwas/glob's match/prefix_test.go was charged with segments.go's
    # `init()` loop, 20 %)
    (root / "tbl_test.go").write_text(INIT_TEST.split("func TestSquaresSorted")[0] + ONE_TEST)
    result = _run(root, "tbl_test.go", targets=("tbl.go",), executed_only=True)
    assert {m.function for m, _ in result.scored} == {"Add"}, result.scope
