"""Gate 4 judges each test by its own kill set: one that kills no mutant is `low_value`; one whose
kills other tests of the file all make too is noted `redundant`, still accepted; each target module
is held to its own code class; a failing score names the tests closest to each survivor."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from assay._assay_sandbox.protocol import EVERY_TEST_FUNCTION, PROVE_EACH_TEST
from assay.agents.answers import survivor_answer
from assay.api import verify
from assay.config import SandboxConfig, Settings
from assay.model import GateStatus
from assay.mutation.attribution import ALONE, attribute, module_scores
from assay.mutation.model import (
    COUNTED,
    NOT_SAMPLED,
    PROOF_LIMIT,
    Mutant,
    MutantResult,
    MutationResult,
    Status,
)
from assay.mutation.summary import details, feedback
from assay.report import junit
from assay.sandbox import Sandbox
from tests.conftest import run_cli
from tests.mutation._mutation_support import run_engine

LIB = {
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def clamp(n, lo, hi):\n    if n < "
    "lo:\n        return lo\n    if n > hi:\n        return hi\n"
    "    return n\n",
    "src/calc/report.py": "import logging\n\nfrom calc.ops "
    "import clamp\n\nlog = logging.getLogger(__name__)\n\n\n"
    "def percent(n):\n    value = clamp(n, 0, 100)\n    return f'{value}%'\n",
}
# one test that kills every mutant of clamp, one that kills only the lower bound's
CLAMP_TESTS = """
        def test_clamp_all():
            assert clamp(-5, 0, 10) == 0
            assert clamp(0, 0, 10) == 0
            assert clamp(11, 0, 10) == 10
            assert clamp(10, 0, 10) == 10
            assert clamp(5, 0, 10) == 5

        def test_clamp_below():
            assert clamp(-5, 0, 10) == 0
"""
CLAMP_IMPORT = """
        from calc.ops import clamp
"""
CLAMP_EDGES = """
        def test_clamp_below():
            assert clamp(-5, 0, 10) == 0

        def test_clamp_above():
            assert clamp(11, 0, 10) == 10
"""
# a test that kills the inside case's mutants, and one that runs clamp and asserts nothing
INSIDE_AND_RUNS = """
        def test_clamp_inside():
            assert clamp(5, 0, 10) == 5

        def test_runs():
            clamp(3, 0, 10)
            clamp(-3, 0, 10)
            clamp(13, 0, 10)
        """
SIGN = (
    "def sign(n):\n    if n > 0:\n        return 1\n    if n < 0:\n        return -1\n"
    "    return 0\n"
)


def settings() -> Settings:
    s = Settings(gates=["compile", "green", "mutation"], cache=False)
    s.sandbox.timeout_s = 20
    return s


def test_every_test_function_runs_up_to_its_first_failing_case(project):
    root = project(
        {
            "src/calc/__init__.py": "",
            "src/calc/ops.py": "def double(n):\n    return n * 2\n",
            "tests/test_ops.py": """
        import pytest
        from calc.ops import double

        @pytest.mark.parametrize("n", [3, 5, 7])
        def test_table(n):
            assert double(n) == 2 * n

        def test_three():
            assert double(3) == 6

        def test_three_again():
            assert double(3) == 6
        """,
        }
    )
    run = run_engine(
        root,
        Sandbox(SandboxConfig(timeout_s=30), protect=root),
        ["src/calc/ops.py"],
        ["tests/test_ops.py"],
        killers=EVERY_TEST_FUNCTION,
    )
    assert run.scored and {r.status for _, r in run.scored} == {Status.KILLED}
    # each function once, by its first failing case: the other cases of the table are skipped
    assert {tuple(t.split("::")[1] for t in r.killed_by) for _, r in run.scored} == {
        ("test_table[3]", "test_three", "test_three_again")
    }


def test_proof_runs_each_test_until_it_has_killed_and_low_value_stays_exact(project):
    """The default attribution: a test function meets every mutant it covers until it kills one;
    then a mutant stops at its first killer. Fewer runs than the exact kill sets, the same
    statuses and the same `low_value` tests."""
    root = project(
        {
            **LIB,
            "tests/test_ops.py": """
        from calc.ops import clamp

"""
            + CLAMP_TESTS
            + """
        def test_clamp_above():
            assert clamp(11, 0, 10) == 10

        def test_runs():
            clamp(3, 0, 10)
        """,
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    runs = {
        killers: run_engine(
            root, sandbox, ["src/calc/ops.py"], ["tests/test_ops.py"], killers=killers
        )
        for killers in (EVERY_TEST_FUNCTION, PROVE_EACH_TEST)
    }
    exact, proof = runs[EVERY_TEST_FUNCTION], runs[PROVE_EACH_TEST]
    assert {m.id: r.status for m, r in proof.scored} == {m.id: r.status for m, r in exact.scored}
    ids = [t.id for t in exact.tests]
    assert set(attribute(proof, ids, exact=False).low_value) == {"tests/test_ops.py::test_runs"}
    assert set(attribute(exact, ids).low_value) == {"tests/test_ops.py::test_runs"}
    # every test killed a mutant of its own at some point (each ran on every mutant until then)
    killers = {t for _, r in proof.scored for t in r.killed_by}
    assert {t.split("::")[1] for t in killers} >= {"test_clamp_below", "test_clamp_above"}
    ran = {k: sum(r.tests_completed for _, r in run.scored) for k, run in runs.items()}
    assert ran[PROVE_EACH_TEST] < ran[EVERY_TEST_FUNCTION]


def test_a_sample_counts_for_the_score_and_the_rest_still_proves_each_test(project):
    """Gate 4's sample: at most `sample` mutants count, one per line first; the others run only
    for tests that have not killed yet (Ignored), so a test whose kills all fall outside the
    sample is not `low_value`, and one that kills nothing is."""
    root = project(
        {
            **LIB,
            "tests/test_ops.py": CLAMP_IMPORT + CLAMP_EDGES + INSIDE_AND_RUNS,
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    run = run_engine(
        root, sandbox, ["src/calc/ops.py"], ["tests/test_ops.py"], killers=PROVE_EACH_TEST, sample=2
    )
    counted = [r for _, r in run.scored if r.status in COUNTED]
    left = [r for _, r in run.scored if r.reason == NOT_SAMPLED]
    assert len(counted) == 2 and len(left) >= 4
    assert {r.status for r in left} == {Status.IGNORED}
    ids = [t.id for t in run.tests]
    assert set(attribute(run, ids, exact=False).low_value) == {"tests/test_ops.py::test_runs"}
    # some test proved itself only on a mutant out of the sample
    outside = {t for r in left for t in r.killed_by}
    inside = {t for r in counted for t in r.killed_by}
    assert outside - inside


def test_past_the_proving_limit_a_test_left_to_prove_is_not_judged(project):
    """The mutants out of the sample run to prove tests that have not killed yet, at most
    `mutation.prove` of them for each test (prettytable's test_style.py: 1,071 of them, 302 s for
    a 0.2 s file); a test still unproven then is not judged: a note, never `low_value`."""
    root = project(
        {
            **LIB,
            "tests/test_ops.py": CLAMP_IMPORT + INSIDE_AND_RUNS,
        }
    )
    sandbox = Sandbox(SandboxConfig(timeout_s=30), protect=root)
    run = run_engine(
        root,
        sandbox,
        ["src/calc/ops.py"],
        ["tests/test_ops.py"],
        killers=PROVE_EACH_TEST,
        sample=1,
        prove=1,
    )
    limited = [r for _, r in run.scored if r.reason == PROOF_LIMIT]
    assert limited and all(r.tests_completed == 0 for r in limited)
    judged = attribute(run, [t.id for t in run.tests], exact=False)
    assert "tests/test_ops.py::test_runs" not in judged.low_value
    assert "did not judge its value" in judged.unjudged["tests/test_ops.py::test_runs"]


def test_only_a_test_that_kills_nothing_is_low_value_and_shared_kills_are_a_note(project):
    root = project(
        {
            **LIB,
            "src/calc/sign.py": SIGN,
            "src/calc/compat.py": "text_type = str\n",
            "tests/test_ops.py": """
        import pytest
        from calc.compat import text_type
        from calc.ops import clamp
        from calc.sign import sign

"""
            + CLAMP_TESTS
            + """
        def test_clamp_below_too():
            assert clamp(-1, 0, 10) == 0

        def test_runs():
            clamp(3, 0, 10)

        def test_alias():
            assert text_type("a") == "a"

        @pytest.mark.parametrize("n, want", [(5, 1), (-5, -1), (0, 0)])
        def test_sign(n, want):
            assert sign(n) == want
        """,
        },
        '[tool.assay]\ngates = ["compile", "green", "mutation"]\n'
        '[tool.assay.mutation]\nattribution = "exact"\n',
    )
    proc = run_cli(
        "verify", "tests/test_ops.py", "-v", "-f", "text", "-f", "json=out.json",
        "--junit-xml", "out.xml", "--no-cache", cwd=root,
    )  # fmt: skip
    # a low-value test is a note on an accepted file: exit 0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [f] = json.loads((root / "out.json").read_text())["files"]
    gate = f["gates"][-1]
    assert (f["verdict"], gate["status"]) == ("accepted", "warn")
    by_name = {t["id"].split("::")[1]: t for t in f["tests"]}
    assert {n for n, t in by_name.items() if t["verdict"] == "low_value"} == {
        "test_runs",
        "test_alias",
    }
    # how many mutants it ran on, or that it reached none (six's tests of builtins' aliases)
    assert re.fullmatch(
        r"kills none of the \d+ mutants of the code it runs", by_name["test_runs"]["reason"]
    )
    assert by_name["test_alias"]["reason"] == (
        "reaches no mutant: none of the project lines it runs has one"
    )
    # the third of three tests killing the same mutants is known as such: every covering test of
    # each mutant ran, not only the first two
    redundant = {n: t["note"] for n, t in by_name.items() if t.get("note")}
    assert redundant == {
        "test_clamp_below": "redundant: every mutant it kills, test_clamp_all kills too",
        "test_clamp_below_too": "redundant: every mutant it kills, test_clamp_all kills too",
    }
    assert {by_name[n]["verdict"] for n in redundant} == {"accepted"}
    # a parametrized test is one test: its cases kill different mutants, none kills all of them
    assert {by_name[f"test_sign[{c}]"]["verdict"] for c in ("5-1", "-5--1", "0-0")} == {"accepted"}
    assert (gate["low_value_tests"], gate["redundant_tests"]) == (2, 2)
    assert gate["feedback"].splitlines()[:3] == [
        "WARN: Gate 4 — TESTS THAT CATCH NOTHING",
        f"tests/test_ops.py::test_runs: {by_name['test_runs']['reason']}",
        "tests/test_ops.py::test_alias: reaches no mutant: none of the project lines it runs"
        " has one",
    ]
    summary = json.loads((root / "out.json").read_text())["summary"]["tests"]
    assert (summary["accepted"], summary["low_value"], summary["redundant"]) == (6, 2, 2)

    # the terminal names them all, counts tests as the JSON does, and -v gives every test a line
    out = " ".join(proc.stdout.split())
    assert (
        "tests/test_ops.py — mutation: low value (kill no mutant of the code they run): test_runs;"
        " low value (reach no mutant: none of the project lines they run has one): test_alias"
        in out
    )
    assert (
        "tests/test_ops.py — note: redundant (every mutant they kill, other tests of the file kill"
        " too; not a failure): test_clamp_below, test_clamp_below_too" in out
    )
    assert "tests: 6 accepted, 2 low value, 2 redundant in" in out
    assert "low value tests/test_ops.py::test_runs — mutation: kills none of the" in out
    # the three cases share verdict and reason: one line with their count (-v, issue 25 point 2)
    assert "accepted tests/test_ops.py::test_sign (3 cases)" in out

    # JUnit: failures are what failed the file (none); verdicts and notes are properties
    suite = ET.parse(root / "out.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("8", "0")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["test_runs"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in cases["test_runs"].iter("property")}
    assert props["assay.verdict"] == "low_value"
    props = {p.get("name"): p.get("value") for p in cases["test_clamp_below"].iter("property")}
    assert props["assay.note"].startswith("redundant: ")


def test_each_module_is_held_to_its_own_class_and_survivors_name_their_closest_tests(project):
    root = project(
        {
            **LIB,
            # enough mutants (>= ALONE) for report.py to be judged on its own
            "src/calc/report.py": "from calc.ops import clamp\n\n\ndef percent(n):\n"
            "    low = clamp(n, 0, 100)\n    mid = clamp(n + 1, 5, 50)\n"
            "    high = clamp(n * 2, 10, 200)\n    return f'{low}% {mid}% {high}%'\n",
            "tests/test_report.py": """
        from calc.ops import clamp
        from calc.report import percent

        def test_percent_above():
            percent(150)  # receives what report.py's mutants change, checks none of it

        def test_clamp_low():
            assert clamp(-1, 0, 5) == 0

        def test_clamp_high():
            assert clamp(150, 0, 100) == 100
        """,
        }
    )
    report = verify([root / "tests/test_report.py"], settings())
    f = report.files[0]
    gate = f.gates[-1]
    modules = {m["file"]: m for m in gate.details["modules"]}
    assert (
        modules["src/calc/ops.py"]["code_class"] == "pure"
        and modules["src/calc/ops.py"]["threshold"] == 60
    )
    assert modules["src/calc/report.py"]["code_class"] == "service"
    assert modules["src/calc/report.py"]["threshold"] == 50
    # together the two modules would pass the strictest class's 50%; on its own report.py does not
    # reach 40%
    assert (modules["src/calc/ops.py"]["passed"], modules["src/calc/report.py"]["passed"]) == (
        True,
        False,
    )
    assert gate.status is GateStatus.REJECT
    lines = gate.feedback.splitlines()
    assert lines[0].startswith("REJECT: Gate 4 — LOW MUTATION SCORE (src/calc/report.py ")
    assert "   Closest tests: tests/test_report.py::test_percent_above" in lines
    # JUnit fails what failed the file: the test gate 4 named (it kills nothing of report.py)
    suite = ET.fromstring(junit.render(report)).find("testsuite")
    failing = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert (report.exit_code, suite.get("failures"), failing) == (1, "1", ["test_percent_above"])


def _run_of(outcomes: dict[str, list[Status]]) -> MutationResult:
    mutants, results = [], {}
    for rel, statuses in outcomes.items():
        for i, status in enumerate(statuses):
            m = Mutant(f"{rel}#{i}", rel, "number", 0, 1, i + 1, 0, i + 1, 1, "0", "1", "f")
            mutants.append(m)
            results[m.id] = MutantResult(status)
    return MutationResult(mutants, results, {rel: "" for rel in outcomes})


def test_a_module_with_a_few_mutants_beside_others_is_judged_with_them():
    """itsdangerous 2.2.0: test_signer.py scored 83% on signer.py (48 mutants) and was rejected for
    exc.py "0%": one mutant, `super().__init__(message)` removed, in an exception whose `__str__`
    returns the message it also stores."""
    k, s = Status.KILLED, Status.SURVIVED
    limits = {"src/exc.py": ("pure", 60.0), "src/signer.py": ("service", 50.0)}
    run = _run_of({"src/exc.py": [s], "src/signer.py": [k] * 8 + [s] * 2})
    rows = {m["file"]: m for m in module_scores(run, limits)}
    assert rows["src/exc.py"] == {
        "file": "src/exc.py",
        "code_class": "pure",
        "threshold": 60.0,
        "score": 0.0,
        "mutants": 1,
        "pooled": 72.7,
        "passed": True,
    }
    assert rows["src/signer.py"]["passed"] and "pooled" not in rows["src/signer.py"]
    # pooled, it still fails when the whole does: the header says so
    run = _run_of({"src/exc.py": [s], "src/signer.py": [k] * 3 + [s] * 7})
    rows = module_scores(run, limits)
    assert [m["passed"] for m in rows] == [False, False]
    header = feedback(run, 60.0, modules=rows).splitlines()[0]
    assert header == (
        "REJECT: Gate 4 — LOW MUTATION SCORE (src/exc.py 0% of 1, with the other modules "
        "27.3% < 60% (pure), src/signer.py 30% < 50% (service))"
    )
    # alone, a module is its own whole: a few mutants still decide
    only = {"src/exc.py": ("pure", 60.0)}
    assert [m["passed"] for m in module_scores(_run_of({"src/exc.py": [s]}), only)] == [False]
    # with ALONE mutants it is judged on its own, whatever the others score
    run = _run_of({"src/exc.py": [s] * ALONE, "src/signer.py": [k] * 40})
    assert [m["passed"] for m in module_scores(run, limits)] == [False, True]


def test_a_pooled_module_that_fails_lists_the_survivors_of_the_pool():
    """intervaltree 3.2.1's issue27_test.py: interval.py (4 mutants, 75%) pooled with
    intervaltree.py (29, 51.7%: past its own 50%) failed at 54.5% < 60%, and the feedback listed
    interval.py's one survivor alone, none of the 14 that made the pool fail."""
    k, s = Status.KILLED, Status.SURVIVED
    limits = {"src/interval.py": ("pure", 60.0), "src/tree.py": ("service", 50.0)}
    run = _run_of({"src/interval.py": [k] * 3 + [s], "src/tree.py": [k] * 5 + [s] * 5})
    rows = module_scores(run, limits)
    assert [m["passed"] for m in rows] == [False, True]
    said = feedback(run, 60.0, modules=rows)
    assert "File: src/interval.py" in said and "File: src/tree.py" in said, said


def test_a_tool_without_per_test_coverage_names_no_closest_test_and_no_false_count():
    """strsim (cargo-mutants: no coverage, every test taken to run every mutant): each survivor
    named the file's first two tests as "closest", and a test that killed nothing would read
    "kills none of the N mutants of the code it runs" with N every mutant of the file."""
    k, s = Status.KILLED, Status.SURVIVED
    tests = ["tests/lib.rs::hamming_works", "tests/lib.rs::jaro_works", "tests/lib.rs::other"]
    run = _run_of({"src/lib.rs": [k, s, s]})
    for _, r in run.scored:
        r.covered_by = list(tests)
        r.killed_by = tests[:2] if r.status is k else []
    run.per_test_coverage = False
    assert "Closest tests" not in feedback(run, 60.0)
    # nor do the gate's JSON briefs or an agent's answer name them
    assert [b["tests"] for b in details(run, 60.0, "pure", 10)["briefs"]] == [[], []]
    survivors = [survivor_answer(m, r, False) for m, r in run.survivors()]
    assert [a.closest_tests for a in survivors] == [[], []]
    assert attribute(run, tests).low_value == {
        "tests/lib.rs::other": "kills none of the 3 mutants of the code the file's tests run"
    }
    # with per-test coverage both are facts
    run.per_test_coverage = True
    assert "   Closest tests: tests/lib.rs::hamming_works, tests/lib.rs::jaro_works" in (
        feedback(run, 60.0).splitlines()
    )
    assert attribute(run, tests).low_value == {
        "tests/lib.rs::other": "kills none of the 3 mutants of the code it runs"
    }


def test_a_tool_that_stops_at_the_first_killer_proves_no_test_low_value_on_killed_mutants():
    """destr (StrykerJS with vitest: a mutant's run stops at its first failing test): six sound
    tests read "kills none of the 65 mutants of the code it runs", never having run on the
    mutants an earlier test had killed. Only mutants that survived prove a test kills nothing."""
    k, s = Status.KILLED, Status.SURVIVED
    first, later, weak = "t.ts::first", "t.ts::later", "t.ts::weak"
    run = _run_of({"src/destr.ts": [k, s]})
    (_, killed), (_, survived) = run.scored
    killed.covered_by, killed.killed_by = [first, later], [first]
    survived.covered_by = [later, weak]
    run.complete_kills = False
    assert attribute(run, [first, later, weak]).low_value == {
        weak: "kills none of the 1 mutant of the code it runs"
    }
    # with every killer known (PIT's full matrix, assay's own engine) `later` is proven
    run.complete_kills = True
    assert attribute(run, [first, later, weak]).low_value == {
        later: "kills none of the 2 mutants of the code it runs",
        weak: "kills none of the 1 mutant of the code it runs",
    }


def test_a_test_a_hang_kept_from_running_is_not_proven_to_kill_nothing():
    """decorator 5.3.1 (exact attribution, 134 of 255 mutants timed out): eight sound tests read
    "kills none of the 195 mutants", among them tests a hang kept from running on those mutants
    (the tests after it run on in new children only up to MAX_SPLITS)."""
    s, t = Status.SURVIVED, Status.TIMEOUT
    hung, ran, left = "t.py::test_hung", "t.py::test_ran", "t.py::test_left"
    run = _run_of({"src/dec.py": [t, s]})
    (_, timed_out), (_, survived) = run.scored
    timed_out.covered_by, timed_out.killed_by = [ran, hung, left], [hung]
    timed_out.tests_completed = 1  # `ran`; `left` never ran
    survived.covered_by = [ran, left]
    # the verdict counts the tests that ran, it does not name them: neither is proven
    assert attribute(run, [hung, ran, left]).low_value == {}
    # every test after the hang ran: `left` passed on both, and is proven
    timed_out.tests_completed = 2
    assert set(attribute(run, [hung, ran, left]).low_value) == {ran, left}
