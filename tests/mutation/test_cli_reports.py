"""`assay mutate` and gate 4 through the real CLI, and the report formats' promises."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.mutation._mutation_support import FIXTURES


def _assay(cwd, *args):
    return subprocess.run(
        [sys.executable, "-m", "assay", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def shop(tmp_path):
    return shutil.copytree(FIXTURES / "shop", tmp_path / "shop")


def _offset(text: str, line: int, column: int) -> int:
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1]) + column - 1


def test_mutation_testing_elements_report_round_trips(shop):
    proc = _assay(
        shop,
        "mutate",
        "src/shop/pricing.py",
        "--tests",
        "tests/test_pricing.py",
        "--format",
        "mutation-testing-elements",
        "--output",
        "mte.json",
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads((shop / "mte.json").read_text())
    assert data["schemaVersion"] == "2"
    entry = data["files"]["src/shop/pricing.py"]
    source = entry["source"]
    statuses = {m["status"] for m in entry["mutants"]}
    assert {"Killed", "Survived", "NoCoverage", "Timeout", "Ignored"} <= statuses
    for m in entry["mutants"]:
        start = _offset(source, **m["location"]["start"])
        end = _offset(source, **m["location"]["end"])
        mutated = source[:start] + m["replacement"] + source[end:]
        assert mutated != source
        compile(mutated, "pricing.py", "exec")
        if m["status"] == "Killed":
            assert m["killedBy"][0] in m["coveredBy"]
    assert "tests/test_pricing.py" in data["testFiles"]


def test_html_report_is_self_contained(shop):
    proc = _assay(
        shop, "mutate", "src/shop", "--tests", "tests/test_pricing.py", "-f", "html", "-o", "m.html"
    )
    assert proc.returncode == 0, proc.stderr
    page = (shop / "m.html").read_text()
    assert "src/shop/pricing.py" in page and 'class="flt"' in page
    assert "http://" not in page and "https://" not in page
    assert "&lt;" in page or "&#34;" in page or "&quot;" in page  # source is escaped, not markup


def test_weak_tests_fail_the_threshold_and_bad_input_is_one_line(shop):
    weak = _assay(
        shop, "mutate", "src/shop/pricing.py", "--tests", "tests/test_weak.py", "-f", "json"
    )
    assert weak.returncode == 1
    data = json.loads(weak.stdout)
    assert data["passed"] is False and data["score"] < 50 and data["code_class"] == "pure"
    lowered = _assay(
        shop, "mutate", "src/shop/pricing.py", "--tests", "tests/test_weak.py", "--threshold", "1"
    )
    assert lowered.returncode == 0
    for args in (
        ["src/shop/nope.py", "--tests", "tests"],
        ["src/shop/pricing.py"],
        ["src/shop/pricing.py", "--tests", "tests", "--format", "xml"],
    ):
        bad = _assay(shop, "mutate", *args)
        assert bad.returncode == 2, bad.stderr
        assert bad.stderr.startswith("assay: error:") and "Traceback" not in bad.stderr


def test_verify_gate_4_rejects_a_weak_test_with_exact_survivors(shop):
    proc = _assay(shop, "verify", "tests/test_weak.py", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    gate = next(g for g in json.loads(proc.stdout)["files"][0]["gates"] if g["gate"] == "mutation")
    assert gate["status"] == "reject"
    assert gate["scope"]["functions"] == ["src/shop/pricing.py::discount"]
    assert gate["feedback"].startswith("REJECT: Gate 4 — LOW MUTATION SCORE (33% < 60%)")
    assert "\nAdd test cases that fail under these mutations.\n" in gate["feedback"]
    # the percent check's mutants change nothing `discount(200)` returns: listed, not counted
    assert gate["feedback"].endswith(
        "Not counted: 7 mutants in the functions these tests call changed nothing they receive"
        " (code their inputs never reach)."
    )
    first = gate["survivors"][0]
    assert first == {
        "file": "src/shop/pricing.py",
        "line": 28,
        "original": "return cents - cents * percent // 100",
        "mutated": "return cents + cents * percent // 100",
        "operator": "arithmetic",
    }
    assert len(gate["survivors"]) == 4
    assert {"line": 26, "mutated": "if False:"}.items() <= gate["unexercised_mutants"][0].items()


def test_a_module_that_does_not_parse_is_one_line_naming_where(shop):
    (shop / "src/shop/broken.py").write_text("def f(x):\n    if x\n        return 1\n")
    proc = _assay(shop, "mutate", "src/shop/broken.py", "--tests", "tests", "-q")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "assay: error: src/shop/broken.py:2: syntax error: expected ':'\n"
