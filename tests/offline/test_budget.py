"""The offline writer within its budget (issue 28): the probe runs the targets' own mutants first,
gate 4 is scoped to the tested functions' lines and runs last, and a file that passed the other
gates when gate 4 ran out of time is kept, said so, rather than lost."""

from __future__ import annotations

import shutil
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from assay._assay_sandbox.offline.mutants import first_things_first
from assay.config import load_settings
from assay.model import GateStatus, Verdict
from assay.mutation.model import Mutant
from assay.pipeline import Verifier
from assay.project import Project, candidate
from assay.writers.offline import generate_offline
from assay.writers.offline.cover import fit_threshold, foresee
from assay.writers.offline.gates import OUT_OF_TIME, gate4_out_of_time, scope, writer_gates
from assay.writers.offline.probe import Kept
from assay.writers.offline.verification import verify_settings

LEDGER = Path(__file__).resolve().parent / "fixtures" / "ledger"


def _mutant(id_, function, line):
    return Mutant(id_, "m.py", "op", 0, 1, line, 0, line, 1, "a", "b", function)


def _kept(id_, function, kills):
    inp = {"args": ["1"], "kwargs": {}, "receiver": None, "origin": "variant"}
    return Kept(id_, function, inp, {"k": "return", "expr": "1", "imports": []}, set(), set(kills))


def test_a_test_is_judged_on_its_targets_lines_not_on_the_helpers_it_runs():
    """`price` calls `_round`, whose mutants its inputs cannot tell apart: they used to pull the
    foreseen score under the threshold, and `price`'s useful test was dropped."""
    spans = {"price": (1, 4), "_round": (6, 9)}
    k = _kept("k", "price", {"p1", "p2"})
    k.lines = {2, 3, 7, 8}  # it runs the helper too
    mutants = [_mutant("p1", "price", 2), _mutant("p2", "price", 3), _mutant("p3", "price", 3)]
    mutants += [_mutant(f"r{i}", "_round", 8) for i in range(5)]
    status = {m.id: "run" for m in mutants}
    assert foresee([k], mutants, status, spans)[0] == 200 / 3
    assert fit_threshold([k], mutants, status, spans, 60.0) == ([k], [])
    assert scope("m.py", [k], spans) == {"m.py": [1, 2, 3, 4]}


def test_the_probe_runs_each_targets_own_mutants_first_in_turn():
    def m(id_, function, cases):
        chain = [[function, 1]] if function else []
        return SimpleNamespace(id=id_, function=function, chain=chain, cases=cases)

    todo = [
        (m("h1", "_helper", 0), None),  # a helper's mutant no input reaches: cheapest of all
        (m("mod", "", 1), None),  # module-level code
        (m("a1", "a", 5), None),
        (m("a2", "a", 2), None),
        (m("a3", "a", 3), None),
        (m("b1", "B.run.<locals>.inner", 9), None),
    ]
    order = first_things_first(todo, ["a", "B.run"], lambda spec: ([0] * spec.cases, False))
    assert [mc[0].id for mc in order] == ["a2", "b1", "a3", "a1", "h1", "mod"]


def _project(tmp_path) -> Project:
    root = tmp_path / "ledger"
    shutil.copytree(LEDGER, root)
    return Project.load(root)


TEST = textwrap.dedent("""
    from ledger.rules import fee


    def test_fee():
        assert fee(1000) == 20
""")


def _verify(project: Project, text: str, until: float):
    settings = verify_settings(load_settings(project.root))
    gates = writer_gates(settings, until)
    assert [g.name for g in gates][-1] == "mutation"  # the expensive gate last
    verifier = Verifier(project, settings, use_cache=False, gates=gates)
    try:
        return verifier.verify_file(candidate(project, "tests/test_gen.py", text))
    finally:
        verifier.close()


@pytest.mark.slow
def test_when_gate_4_runs_out_of_the_budget_the_other_gates_verdicts_stand(tmp_path):
    """Slow (two real runs of gates 1-3 and 5, about 3 s of CPU; more wall time under load)."""
    project = _project(tmp_path)
    report = _verify(project, TEST, time.monotonic())  # the budget is already over at gate 4
    assert report is not None and report.verdict is Verdict.UNVALIDATED
    gate = {g.gate: g for g in report.gates}
    assert gate["mutation"].status is GateStatus.SKIP
    assert gate["mutation"].details["reason"] == OUT_OF_TIME
    assert [g.gate for g in report.gates] == ["compile", "green", "stability", "smells", "mutation"]
    assert all(g.status is GateStatus.PASS for g in report.gates[:-1])
    assert gate4_out_of_time(report)
    failing = TEST.replace("== 20", "== -1")
    report = _verify(project, failing, time.monotonic())
    assert report is not None and report.rejected_at == "green" and not gate4_out_of_time(report)


def test_a_module_that_does_not_import_is_said_so_not_out_of_time(tmp_path):
    """python-slugify tried as a new user would (its dependency not in assay's interpreter): every
    function read "not probed: the probe ran out of time or failed", the note alone named the
    ModuleNotFoundError, and nothing said which interpreter to name."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "slug"\nversion = "0"\n')
    (tmp_path / "slug.py").write_text(
        "import not_installed_dependency\n\n\n"
        "def slug(text: str) -> str:\n    return text.strip().lower().replace(' ', '-')\n"
    )
    report = generate_offline([tmp_path / "slug.py"], budget_s=8, dry_run=True, crosshair=False)
    [module] = report.modules
    [fn] = module.functions
    assert fn.reason.startswith("not probed: importing slug failed: ModuleNotFoundError"), fn
    assert any("interpreter = " in note for note in module.notes), module.notes
