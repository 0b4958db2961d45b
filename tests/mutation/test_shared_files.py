"""Gate 4 of a directory judges each file as if it were alone, also where the files share a module.

The hazard any sharing of gate 4's work across the files of one `verify` must not bring: a mutant
whose effect one file's tests leave behind in the project's state. Here `add`'s `+` -> `-` passes
the first file's round trip (`abs(got) == 2`) but leaves the module's total at -4; the second
file's test, run after it in the same process, fails on that left-over state, not on anything the
mutant does to its own calls. Alone, the second file's test receives exactly what it receives from
the original code: the mutant is Unexercised for it, never a kill. The baseline of both files
passes either way, so a shared run cannot tell this apart from a real kill by comparing baselines.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import FileReport, Verdict

TALLY = """
TOTAL = [0]


def add(k):
    TOTAL[0] = TOTAL[0] + k
    return TOTAL[0]


def total():
    return TOTAL[0]
"""
ROUND_TRIP = """
from tally import add


def test_add_then_undo():
    got = add(2)
    assert abs(got) == 2
    add(-got)
"""
FRESH = """
from tally import add, total


def test_starts_from_zero():
    assert total() == 0
    assert add(0) == 0
"""
FILES = {
    "tally.py": TALLY,
    "tests/test_a_round_trip.py": ROUND_TRIP,
    "tests/test_b_fresh.py": FRESH,
}
MINUS = "TOTAL[0] = TOTAL[0] - k"
GATE_4 = ("score", "killed", "survived", "unexercised", "timeout", "runtime_error", "ignored")


def _gate4(report: FileReport) -> dict[str, object]:
    gate = next(g for g in report.to_json()["gates"] if g["gate"] == "mutation")
    out = {k: gate[k] for k in GATE_4}
    out["survivors"] = sorted(m["mutated"] for m in gate["survivors"])
    out["unexercised_mutants"] = sorted(m["mutated"] for m in gate["unexercised_mutants"])
    return out


def _pytest(root: Path, *tests: str) -> int:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=root,
        capture_output=True,
        check=False,
    ).returncode


@pytest.mark.slow
def test_the_fixture_is_a_real_hazard_one_process_for_both_files_misattributes(project):
    """Under the mutant, plain pytest of both files in one process fails the second file's test;
    the second file alone passes: a shared child would credit it with a kill it does not make."""
    root = project({**FILES, "tally.py": TALLY.replace("TOTAL[0] + k", "TOTAL[0] - k")})
    assert _pytest(root, "tests/test_b_fresh.py") == 0
    assert _pytest(root, "tests/test_a_round_trip.py") == 0
    assert _pytest(root, "tests/test_a_round_trip.py", "tests/test_b_fresh.py") == 1


@pytest.mark.slow
def test_each_file_of_a_directory_keeps_the_gate_4_results_it_has_alone(project):
    root = project(FILES)
    s = Settings(gates=["compile", "green", "mutation"], cache=False, jobs=1)
    together = {Path(f.path).name: f for f in verify([root / "tests"], s).files}
    for name, report in together.items():
        [alone] = verify([root / "tests" / name], s).files
        assert _gate4(report) == _gate4(alone), name
        assert [(t.id, t.verdict) for t in report.tests] == [(t.id, t.verdict) for t in alone.tests]
    first, second = together["test_a_round_trip.py"], together["test_b_fresh.py"]
    assert first.verdict is Verdict.ACCEPTED and second.verdict is Verdict.ACCEPTED
    # the first file's round trip lets `-` through; the second file's test never receives a
    # different value from it: Unexercised there, not a kill made by state the first file left
    assert _gate4(first)["survivors"] == [MINUS]
    assert _gate4(second)["unexercised_mutants"] == [MINUS]
    assert MINUS not in _gate4(second)["survivors"]
