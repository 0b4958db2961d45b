"""The shared Go build cache stays read-only to tests without costing each workspace a copy: Go
stamps an entry it reads when its mtime is over an hour old, and on the read-only lower layer that
stamp copied the whole entry up into the workspace's own layer (59 MB, about a second of CPU per
workspace for examples/go)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from assay.config import Settings
from assay.execution.runner import Outcome
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES, go_cache
from assay.languages.go_cache import GO_CACHE, hold_fresh
from assay.project import Project
from assay.sandbox import assay_cache
from tests.languages.conftest import RecordingSandbox


def test_shared_cache_entries_are_dated_ahead_so_go_never_stamps_them(tmp_path):
    cache = tmp_path / "go-build"
    (cache / "ab").mkdir(parents=True)
    stale = cache / "ab" / "ab12-d"
    stale.write_bytes(b"compiled")
    hours_ago = time.time() - 3 * 3600
    os.utime(stale, (hours_ago, hours_ago))
    hold_fresh(cache)
    # Go leaves an entry alone while now - mtime < 1 h: a run started now, lasting hours, too
    assert stale.stat().st_mtime > time.time() + 6 * 3600
    assert stale.read_bytes() == b"compiled"


def test_a_new_assay_process_does_not_walk_the_cache_again_within_half_a_day(tmp_path, monkeypatch):
    """Every `assay` process walked the whole cache (0.05 s of CPU, 7,500 entries): when it was last
    done is now a file beside the cache."""
    cache = tmp_path / "go-build"
    (cache / "ab").mkdir(parents=True)
    entry = cache / "ab" / "ab12-d"
    entry.write_bytes(b"compiled")
    hold_fresh(cache)
    monkeypatch.setattr(go_cache, "_fresh_until", {})  # what a new process knows
    walked = []
    monkeypatch.setattr(go_cache.os, "walk", lambda *a: walked.append(a) or iter(()))
    hold_fresh(cache)
    assert walked == []
    due = cache.with_name("go-build.fresh-until")
    os.utime(due, (time.time() - 1, time.time() - 1))  # half a day later, another process
    monkeypatch.setattr(go_cache, "_fresh_until", {})
    hold_fresh(cache)
    assert len(walked) == 1


def test_a_go_files_imports_are_read_from_its_import_declarations_only():
    source = (
        "// Package sheet: see encoding/xml\npackage sheet\n\n"
        'import "strings"\nimport str2 "strconv"\n\n'
        'import (\n\t"encoding/csv" // rows\n\t_ "embed"\n\t. "math"\n'
        '\t/* "net/http" */\n\tcmp "github.com/google/go-cmp/cmp"\n)\n\n'
        'func f() string { return "import (\\"os\\")" }\n'
    )
    assert sorted(go_cache.imports(source)) == [
        "embed", "encoding/csv", "github.com/google/go-cmp/cmp", "math", "strconv", "strings",
    ]  # fmt: skip


SHEET = (
    'package sheet\n\nimport "strings"\n\n'
    'func Cells(row string) []string {\n\treturn strings.Split(row, ",")\n}\n'
)
SHEET_TEST = (
    'package sheet\n\nimport (\n\t"encoding/csv"\n\t"strings"\n\t"testing"\n)\n\n'
    "func TestCellsAgreeWithCSV(t *testing.T) {\n"
    '\trow, err := csv.NewReader(strings.NewReader("a,b")).Read()\n'
    '\tif err != nil || len(row) != len(Cells("a,b")) {\n\t\tt.Fatal(row, err)\n\t}\n}\n'
)
CSV_COMPILED = b'bare " in non-quoted-field'  # a message only encoding/csv's own build holds


def _holding(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*-d") if p.is_file() and needle in p.read_bytes()]


@pytest.mark.slow
def test_the_standard_library_a_go_test_imports_is_built_in_the_shared_cache_not_each_workspace(
    tmp_path, monkeypatch
):
    """A package of the standard library that only a workspace's layer held was built and vetted
    again by every workspace of an edited file (google/uuid: 7 s of CPU a verify where `go test`
    takes 0.6 s). Slow: a copy of the shared cache, encoding/csv built, a vet and a link."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    real = Path(GO_CACHE.format(assay_cache=assay_cache()))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    shared = Path(GO_CACHE.format(assay_cache=assay_cache()))
    if real.is_dir():  # this machine's shared cache, without any build of encoding/csv
        shutil.copytree(real, shared, ignore=shutil.ignore_patterns("assay-warmed-std*"))
        for built in _holding(shared, CSV_COMPILED):
            built.unlink()
    root = tmp_path / "sheet"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/sheet\n\ngo 1.21\n")
    (root / "sheet.go").write_text(SHEET)
    settings = Settings(cache=False)
    runner = LANGUAGES["go"].runner(
        RecordingSandbox(settings.sandbox, protect=root), Project.load(root), settings
    )
    with Workspace(root) as ws:
        ws.apply({"sheet_test.go": SHEET_TEST})
        built = runner.compile(ws, ["sheet_test.go"])
        assert built.ok, built
        ran = runner.run(ws, ["sheet_test.go"], built.collected)
        assert [r.outcome for r in ran.tests.values()] == [Outcome.PASSED]
        layer = ws.base / "cache"
        assert _holding(layer, CSV_COMPILED) == []  # the workspace built no encoding/csv
    assert _holding(shared, CSV_COMPILED)  # the shared cache holds it, for every workspace
