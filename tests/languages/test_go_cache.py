"""The shared Go build cache stays read-only to tests without costing each workspace a copy: Go
stamps an entry it reads when its mtime is over an hour old, and on the read-only lower layer that
stamp copied the whole entry up into the workspace's own layer (59 MB, about a second of CPU per
workspace for examples/go)."""

from __future__ import annotations

import os
import shutil
import subprocess
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


DEP = (
    "package dep\n\n// Echo: what example.com/app uses (not inlined: its text stays in dep's).\n"
    "//go:noinline\n"
    'func Echo(s string) string {\n\tif s == "" {\n\t\tpanic("assay dep marker: nothing to echo")\n'
    "\t}\n\treturn s\n}\n"
)
DEP_COMPILED = b"assay dep marker: nothing to echo"  # only example.com/dep's own build holds it
APP = (
    'package app\n\nimport "example.com/dep"\n\n'
    "func Twice(s string) string {\n\treturn dep.Echo(s) + dep.Echo(s)\n}\n"
)
APP_TEST = (
    'package app\n\nimport "testing"\n\n'
    'func TestTwice(t *testing.T) {\n\tif Twice("a") != "aa" {\n\t\tt.Fatal(Twice("a"))\n\t}\n}\n'
)


def _module_from_a_file_proxy(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """(module cache, project): `example.com/dep` v1.0.0 served by a `file://` GOPROXY into a
    module cache of the test's own (no network), and a project `example.com/app` requiring it."""
    import zipfile

    proxy = tmp_path / "proxy" / "example.com" / "dep" / "@v"
    proxy.mkdir(parents=True)
    (proxy / "list").write_text("v1.0.0\n")
    (proxy / "v1.0.0.info").write_text('{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}')
    (proxy / "v1.0.0.mod").write_text("module example.com/dep\n\ngo 1.21\n")
    with zipfile.ZipFile(proxy / "v1.0.0.zip", "w") as zf:
        zf.writestr("example.com/dep@v1.0.0/go.mod", "module example.com/dep\n\ngo 1.21\n")
        zf.writestr("example.com/dep@v1.0.0/dep.go", DEP)
    modcache = tmp_path / "modcache"
    monkeypatch.setenv("GOMODCACHE", str(modcache))
    go_cache.module_cache.cache_clear()
    root = tmp_path / "app"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/app\n\ngo 1.21\n")
    (root / "app.go").write_text(APP)
    env = {
        **os.environ,
        "GOPROXY": f"file://{tmp_path / 'proxy'}",
        "GOFLAGS": "-mod=mod",
        "GONOSUMDB": "*",
        "GOSUMDB": "off",
        "GOTOOLCHAIN": "local",
        "GOCACHE": str(tmp_path / "tidy-cache"),
    }
    subprocess.run(["go", "mod", "tidy"], cwd=root, env=env, check=True, capture_output=True)
    return modcache, root


@pytest.mark.slow
def test_the_packages_a_go_module_requires_are_built_in_the_shared_cache_not_each_workspace(
    tmp_path, monkeypatch
):
    """A package of a required module (from the module cache) that only a workspace's layer held
    was compiled and vetted again by every workspace (frankban/quicktest: go-cmp and kr/pretty,
    1.4 s of CPU of its 3.2 s a verify, where `go test` takes 0.3-0.7 s). Slow: a copy of the
    shared cache, a module served offline, a vet and a link."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    real = Path(GO_CACHE.format(assay_cache=assay_cache()))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    shared = Path(GO_CACHE.format(assay_cache=assay_cache()))
    if real.is_dir():  # this machine's shared cache (the standard library), nothing of example.com
        shutil.copytree(real, shared, ignore=shutil.ignore_patterns("assay-warmed-*"))
    modcache, root = _module_from_a_file_proxy(tmp_path, monkeypatch)
    try:
        settings = Settings(cache=False)
        runner = LANGUAGES["go"].runner(
            RecordingSandbox(settings.sandbox, protect=root), Project.load(root), settings
        )
        with Workspace(root) as ws:
            ws.apply({"app_test.go": APP_TEST})
            built = runner.compile(ws, ["app_test.go"])
            assert built.ok, built
            ran = runner.run(ws, ["app_test.go"], built.collected)
            assert [r.outcome for r in ran.tests.values()] == [Outcome.PASSED]
            layer = ws.base / "cache"
            assert _holding(layer, DEP_COMPILED) == []  # the workspace built no example.com/dep
        assert _holding(shared, DEP_COMPILED)  # the shared cache holds it, for every workspace
    finally:  # the module cache's files are read-only
        subprocess.run(["chmod", "-R", "u+w", str(modcache)], check=False)
        go_cache.module_cache.cache_clear()


def test_a_module_whose_build_reads_the_projects_tree_is_left_to_the_workspace(tmp_path):
    """A `replace` by a local path, or a go.work around the module, makes a required package
    project code: never built outside the sandbox; `internal` packages are not importable."""
    from assay.languages.go_requirements import importable, local_code

    module = tmp_path / "svc"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/svc\n\nrequire example.com/dep v1.0.0\n")
    assert not local_code(module, tmp_path)
    for replace in (
        "replace example.com/dep => ../dep\n",
        "replace (\n\texample.com/dep => ./x\n)\n",
    ):
        (module / "go.mod").write_text(f"module example.com/svc\n\n{replace}")
        assert local_code(module, tmp_path)
    (module / "go.mod").write_text("module example.com/svc\n\nreplace a.b/c => a.b/d v1.2.0\n")
    assert not local_code(module, tmp_path)
    (tmp_path / "go.work").write_text("go 1.21\n\nuse ./svc\n")
    assert local_code(module, tmp_path)
    assert importable(["example.com/dep/internal/x", "example.com/dep/sub", "a.b/vendor/c"]) == [
        "example.com/dep/sub"
    ]
