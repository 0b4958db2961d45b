"""Inputs the offline writer builds for code that has no type hints and no test calling it: objects
called like functions, objects whose attributes a function reads, characters a function compares
by code point (issue 28). No process is started: the module is imported here."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from assay._assay_sandbox import launch
from assay._assay_sandbox.offline.calls import prepare
from assay._assay_sandbox.offline.inputs import candidates
from assay._assay_sandbox.offline.values import Imports, round_trips, to_source
from assay._assay_sandbox.offline.worker import explore
from assay._assay_sandbox.protocol import OfflineFunction, OfflineJob
from assay.writers.offline.functions import functions_of
from assay.writers.offline.probe import Kept
from assay.writers.offline.render import render

SOURCE = textwrap.dedent("""
    import typing

    if typing.TYPE_CHECKING:
        from elsewhere import State  # never importable: the hint does not resolve


    class wait_fixed:
        def __init__(self, wait):
            self.wait = wait * 1.0

        def __call__(self, state: "State") -> float:
            if state.attempt_number > 3:
                return self.wait * state.attempt_number
            return self.wait


    def width(ch):
        code = ord(ch)
        if 32 <= code < 127:
            return 1
        return 0 if code < 32 else 2
""")
POOL: dict[str, list] = {"int": [], "float": [], "str": []}


@pytest.fixture
def module(tmp_path):
    (tmp_path / "waits.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("waits")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("waits", None)


def test_an_instance_called_like_a_function_is_a_target_and_is_called_so():
    names = {f.name: f for f in functions_of(SOURCE)}
    assert names["wait_fixed.__call__"].kind == "method" and not names["wait_fixed.__call__"].skip
    k = Kept(
        "k",
        "wait_fixed.__call__",
        {"args": ["SimpleNamespace(attempt_number=5)"], "kwargs": {}, "receiver": "wait_fixed(2)"},
        {"k": "return", "expr": "10.0", "imports": []},
        set(),
        {"m1"},
    )
    kinds = {"wait_fixed.__call__": "method"}
    text = render("waits", [k], kinds, {}, {"waits"}, list(kinds)).text
    assert "wait_fixed_obj = wait_fixed(2)" in text
    assert "wait_fixed_obj(SimpleNamespace(attempt_number=5)) == 10.0" in text
    assert ".__call__(" not in text


def test_a_receiver_is_built_from_the_constructor_and_attribute_reads_make_an_object(module):
    spec = {"name": "wait_fixed.__call__", "kind": "method", "inputs": [], "receivers": []}
    made = candidates(module, spec, POOL, 60, 0)["inputs"]
    receivers = {i["receiver"] for i in made}
    assert receivers and all(r.startswith("wait_fixed(") for r in receivers)
    states = {i["args"][0] for i in made}
    assert "SimpleNamespace(attempt_number=5)" in states
    assert any("from types import SimpleNamespace" in i["imports"] for i in made)


def test_a_parameter_passed_to_ord_gets_the_characters_at_the_boundaries_compared(module):
    spec = {"name": "width", "kind": "function", "inputs": [], "receivers": []}
    made = {i["args"][0] for i in candidates(module, spec, POOL, 60, 0)["inputs"]}
    assert {repr(chr(31)), repr(chr(32)), repr(chr(126)), repr(chr(127))} <= made


def test_an_object_of_attributes_is_written_back_as_source():
    imports = Imports()
    value = SimpleNamespace(attempt_number=3, delay=0.5)
    src = to_source(value, imports)
    assert src == "SimpleNamespace(attempt_number=3, delay=0.5)"
    assert round_trips(src, value, imports.namespace())


def test_what_a_caller_passes_a_target_becomes_its_input(tmp_path):
    """`describe` has no hint and no test; `label`, which calls it, is listed after it yet explored
    first, and the arguments it passes while its inputs run are tried on `describe` as they came
    (the real probe, in a subprocess)."""
    (tmp_path / "shelf.py").write_text(
        textwrap.dedent("""
        def describe(name, size):
            return f"{name}:{size}"


        def label(record):
            return describe(record["name"], record["size"] * 2)
    """)
    )
    out = tmp_path / "out.json"
    job = OfflineJob(
        user_root=str(tmp_path),
        scratch_root=str(tmp_path),
        out=str(out),
        module="shelf",
        path=str(tmp_path / "shelf.py"),
        imports=["from shelf import describe, label"],
        functions=[
            OfflineFunction("describe", "function", [], []),
            OfflineFunction("label", "function", [], []),
        ],
        mutants=[],
        budget_s=60.0,
        hypothesis_examples=0,
    )
    (tmp_path / "job.json").write_text(job.to_json())
    subprocess.run(
        launch.argv(sys.executable, "offline", str(tmp_path / "job.json")),
        cwd=tmp_path,
        check=True,
        timeout=120,
    )
    found = json.loads(out.read_text())["functions"]["describe"]
    passed = [k["input"] for k in found["kept"] if k["input"]["origin"] == "callgraph"]
    # label({"name": 1, "size": 2}) calls describe(1, 4)
    assert {"args": ["1", "4"], "kwargs": {}} in [
        {"args": i["args"], "kwargs": i["kwargs"]} for i in passed
    ], found


def test_special_methods_are_targets_run_and_written_with_their_syntax(tmp_path):
    """semver's comparisons and indexing hold a third of its mutants; `v.__lt__(1)` returns
    NotImplemented where `v < 1` raises, so the probe runs what the test will write."""
    source = textwrap.dedent("""
        class Version:
            def __init__(self, n):
                self.n = n

            def __lt__(self, other):
                if not isinstance(other, Version):
                    return NotImplemented
                return self.n < other.n

            def __getitem__(self, i):
                return [self.n][i]
    """)
    names = {f.name for f in functions_of(source)}
    assert {"Version.__lt__", "Version.__getitem__"} <= names and "Version.__init__" not in names
    (tmp_path / "versions.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("versions")
        ns = {"Version": module.Version}
        spec = {"name": "Version.__lt__", "kind": "method"}
        _, call, _ = prepare(module, spec, {"receiver": "Version(1)", "args": ["1"]}, ns)
        with pytest.raises(TypeError):
            call()
        _, call, _ = prepare(module, spec, {"receiver": "Version(1)", "args": ["Version(2)"]}, ns)
        assert call() is True
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("versions", None)
    kinds = {"Version.__lt__": "method", "Version.__getitem__": "method"}
    chosen = [
        Kept(
            "a",
            "Version.__lt__",
            {"args": ["Version(2)"], "kwargs": {}, "receiver": "Version(1)"},
            {"k": "return", "expr": "True", "imports": []},
            set(),
            {"m1"},
        ),
        Kept(
            "b",
            "Version.__getitem__",
            {"args": ["0"], "kwargs": {}, "receiver": "Version(1)"},
            {"k": "return", "expr": "1", "imports": []},
            set(),
            {"m2"},
        ),
    ]
    text = render("versions", chosen, kinds, {}, {"versions"}, list(kinds)).text
    assert "assert (version < Version(2)) is True" in text
    assert "assert version[0] == 1" in text


DATES = textwrap.dedent('''
    import re

    _TABLES = {}


    def _table(digits):
        """Built on the first call, from pieces no string constant shows whole (isodate's way)."""
        if digits not in _TABLES:
            _TABLES[digits] = [
                re.compile(r"\\A(?P<year>[0-9]{%d})-(?P<month>[0-9]{2})\\Z" % digits),
                re.compile(r"\\A(?P<year>[0-9]{%d})\\Z" % digits),
            ]
        return _TABLES[digits]


    def parse(text, digits=4):
        for pattern in _table(digits):
            found = pattern.match(text)
            if found:
                parts = found.groupdict()
                return int(parts["year"]), int(parts.get("month") or 1)
        raise ValueError("not a date")
''')


def test_strings_matching_the_patterns_a_function_builds_when_called_become_its_inputs(tmp_path):
    """`parse` raises on every string its callers' tests and the module's constants suggest; the
    strings its own table matches - read from the table once a call built it - reach its
    branches (`1111-11` a year and a month, `1111` a year)."""
    (tmp_path / "dates.py").write_text(DATES)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("dates")
        path = str(tmp_path / "dates.py")
        job = OfflineJob("", "", "", "dates", path, [], [], [], call_timeout=1.0, max_inputs=40)
        fn = OfflineFunction("parse", "function", [{"args": ["'x'"], "kwargs": {}}])
        now = time.monotonic()
        found = explore(job, module, fn, path, now + 10, False, now + 20)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("dates", None)
    returned = {k["outcome"]["expr"] for k in found["kept"] if k["outcome"]["k"] == "return"}
    assert {"(1111, 11)", "(1111, 1)"} <= returned, found
    assert found["tried"].get("regex", 0) >= 2


RULES = Path(__file__).resolve().parent / "fixtures" / "rules"


def test_strings_matching_the_pattern_strings_of_a_table_filled_at_import_become_inputs():
    """A table of `(pattern, replacement)` strings that `re.sub` compiles only when called, its
    rows formatted at import (tests/offline/fixtures/rules: `_irregular("cow", "kine")` adds
    `Cow$`, inflection's does `C[oO][wW]$`): before, only compiled patterns were read, no input
    was `Cow`, and the mutants of the capitalised row (`many[0].upper()`) lived (inflection: 18
    of the 35 mutants Pynguin killed there and assay did not). Now the pattern strings of the
    tables a function reads give it inputs; a replacement (`\\1es`: a group it lacks) is no
    pattern, and a function that reads no table (`shout`) gets none of them."""
    sys.path.insert(0, str(RULES))
    try:
        module = importlib.import_module("plural_rules")
        path = str(RULES / "plural_rules.py")
        job = OfflineJob(
            "", "", "", "plural_rules", path, [], [], [], call_timeout=1.0, max_inputs=40
        )
        found = {}
        for name in ("plural", "shout"):
            fn = OfflineFunction(name, "function", [{"args": ["'dog'"], "kwargs": {}}])
            now = time.monotonic()
            found[name] = explore(job, module, fn, path, now + 10, False, now + 20)
    finally:
        sys.path.remove(str(RULES))
        sys.modules.pop("plural_rules", None)
    returned = {
        (k["input"]["args"][0], k["outcome"]["expr"])
        for k in found["plural"]["kept"]
        if k["outcome"]["k"] == "return"
    }
    assert {("'Cow'", "'Kine'"), ("'cow'", "'kine'")} <= returned, found
    assert found["shout"]["tried"].get("regex", 0) == 0, found["shout"]
