"""vitest 1 (scule pins 1.6.1) names each file's own suite "" and reports it as the first
ancestor title: ids read `test/scule.test.ts:: > splitByCase > foo`. The empty title is left out
of the id, and the `-t` pattern gate 3 isolates a test by still matches vitest 1's full name
(" splitByCase foo", after a space) as well as jest's and later vitest's ("splitByCase foo")."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from assay.languages.js_plans import full_name_pattern
from assay.languages.node_results import results

# `vitest run test/a.test.ts --reporter=json` of vitest 1.6.1 (trimmed to the fields read)
VITEST_1 = {
    "testResults": [
        {
            "assertionResults": [
                {
                    "ancestorTitles": ["", "splitByCase"],
                    "fullName": " splitByCase foo => [ 'foo' ]",
                    "status": "passed",
                    "title": "foo => [ 'foo' ]",
                    "duration": 9,
                    "failureMessages": [],
                },
                {
                    "ancestorTitles": [""],
                    "fullName": " top",
                    "status": "passed",
                    "title": "top",
                    "duration": 1,
                    "failureMessages": [],
                },
            ],
            "message": "",
            "name": "/PROJECT/test/a.test.ts",
        }
    ]
}


def test_vitest_1s_empty_file_suite_title_is_not_part_of_the_id(tmp_path: Path) -> None:
    out = tmp_path / "vitest.json"
    out.write_text(json.dumps(VITEST_1))
    ids = sorted(results(out, "test/a.test.ts", "vitest", ()))
    assert ids == ["test/a.test.ts::splitByCase > foo => [ 'foo' ]", "test/a.test.ts::top"]


def test_the_full_name_pattern_matches_vitest_1s_names_and_jests() -> None:
    """Matched by node's own RegExp, as vitest's and jest's `-t` are."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    cases = [
        ("splitByCase > foo => [ 'foo' ]", " splitByCase foo => [ 'foo' ]", True),  # vitest 1
        ("splitByCase > foo => [ 'foo' ]", "splitByCase foo => [ 'foo' ]", True),  # jest
        ("top", " top", True),
        ("top", "top", True),
        ("top", " stop", False),
        ("top", "top 2", False),
    ]
    script = (
        "const cases = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(cases.map(([p, n]) => new RegExp(p).test(n))));"
    )
    given = [[full_name_pattern(name), full] for name, full, _ in cases]
    ran = subprocess.run(
        ["node", "-e", script, json.dumps(given)], capture_output=True, text=True, check=True
    )
    assert json.loads(ran.stdout) == [want for _, _, want in cases]
