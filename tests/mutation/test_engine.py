"""The engine on a real project: real pytest in sandboxed, forked workers; verdicts checked one
by one."""

from __future__ import annotations

import random
import shutil
import sys

import pytest

from assay.config import SandboxConfig
from assay.mutation.model import Status
from assay.sandbox import Sandbox
from assay.store import Store
from bench.diskcheck import detected, rerun_from_disk
from tests.mutation._mutation_support import run_engine


def _status(run, line, operator, original=None):
    found = [
        r.status
        for m, r in run.scored
        if m.line == line
        and m.operator == operator
        and (original is None or m.original == original)
    ]
    assert len(found) == 1, found
    return found[0]


def test_module_level_code_counts_and_is_killed(shop_run):
    assert _status(shop_run, 6, "number") is Status.KILLED  # TAX_RATE = 20, read at call time
    assert _status(shop_run, 8, "string", '"food"') is Status.KILLED  # dict built at import
    assert _status(shop_run, 53, "number") is Status.KILLED  # dataclass field default


def test_decorators_nested_functions_lambdas_and_methods(shop_run):
    assert _status(shop_run, 16, "return_value") is Status.KILLED  # decorator body runs at import
    assert _status(shop_run, 14, "return_value") is Status.KILLED  # wrapper made at import
    assert _status(shop_run, 41, "arithmetic") is Status.KILLED  # nested def
    assert _status(shop_run, 46, "arithmetic") is Status.KILLED  # module-level lambda
    assert _status(shop_run, 56, "arithmetic") is Status.KILLED  # dataclass method
    assert _status(shop_run, 60, "comparison_negation") is Status.KILLED  # property


def test_survivors_timeouts_and_uncovered_code(shop_run):
    assert _status(shop_run, 27, "string") is Status.SURVIVED  # message never checked
    assert _status(shop_run, 28, "arithmetic", "//") is Status.SURVIVED  # 180.0 == 180
    loops = [
        r.status
        for m, r in shop_run.scored
        if m.line == 34 and m.operator == "augmented_assignment"
    ]
    assert loops == [Status.TIMEOUT, Status.TIMEOUT]  # n += 1 and n = 1 never end
    assert _status(shop_run, 64, "arithmetic") is Status.NO_COVERAGE
    assert (
        shop_run.results[next(m.id for m in shop_run.mutants if m.line == 64)].tests_completed == 0
    )


def test_equivalent_mutants_are_ignored_and_not_scored(shop_run):
    # 2 ** 2 == 2 * 2, folded to one constant
    assert _status(shop_run, 7, "arithmetic") is Status.IGNORED
    counts = shop_run.counts
    scored = counts["Killed"] + counts["Timeout"] + counts["Survived"] + counts["NoCoverage"]
    assert shop_run.score == pytest.approx((counts["Killed"] + counts["Timeout"]) / scored)


def test_killed_mutants_name_the_first_failing_covering_test(shop_run):
    for _, r in shop_run.scored:
        if r.status is Status.KILLED:
            assert r.killed_by and r.killed_by[0] in r.covered_by
            assert r.tests_completed >= 1


def test_scope_keeps_only_functions_the_test_calls(shop_root, sandbox):
    run = run_engine(
        shop_root, sandbox, ["src/shop/pricing.py"], ["tests/test_weak.py"], scoped=True
    )
    assert run.scope == {"src/shop/pricing.py": ["discount"]}
    assert {m.function for m, _ in run.scored} == {"discount"}
    assert run.score < 0.5
    assert _status(run, 28, "arithmetic", "-") is Status.SURVIVED


def test_cache_reruns_only_the_edited_function(shop_root, sandbox, tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(shop_root, root)
    with Store(root) as store:
        first = run_engine(
            root, sandbox, ["src/shop/pricing.py"], ["tests/test_weak.py"], store=store
        )
        again = run_engine(
            root, sandbox, ["src/shop/pricing.py"], ["tests/test_weak.py"], store=store
        )
        assert not again.worker_ran
        assert {k: v.status for k, v in again.results.items()} == {
            k: v.status for k, v in first.results.items()
        }
        pricing = root / "src/shop/pricing.py"
        pricing.write_text(pricing.read_text().replace("return a + b", "return a + b + 0"))
        edited = run_engine(
            root, sandbox, ["src/shop/pricing.py"], ["tests/test_weak.py"], store=store
        )
    fresh = {m.function for m, r in edited.scored if not r.cached}
    assert fresh == {"untested", "<module>"}  # module-level verdicts depend on the whole module


@pytest.mark.slow
def test_verdicts_match_a_fresh_process_run_from_disk(shop_root, sandbox, shop_run):
    """The round trip promised by the reports: `replacement` applied on disk gives the
    same verdict."""
    text = shop_run.sources["src/shop/pricing.py"]
    sample = [(m, r) for m, r in shop_run.scored if r.status is not Status.IGNORED]
    sample = random.Random(7).sample(sample, 8)
    for m, r in sample:
        disk = rerun_from_disk(
            shop_root,
            m,
            text,
            ["tests/test_pricing.py"],
            sys.executable,
            sandbox,
            ["src", "."],
            timeout=10,
        )
        assert detected(disk) == detected(r.status), (m, r.status, disk)


FUTURE = {
    "src/fut/__init__.py": "",
    "src/fut/calc.py": (
        "from __future__ import annotations\n\n\n"
        "def outer(n):\n"
        '    label = "outer"\n\n'
        "    def inner(x: NotDefinedAnywhere) -> NotDefinedEither:  # noqa: F821\n"
        "        return x + 2 ** 1\n"
        "    return inner(n) * 3, label\n"
    ),
    "tests/test_calc.py": "from fut.calc import outer\n\n\ndef "
    "test_outer():\n    assert outer(1)[0] == 9\n",
}


def test_a_mutant_inside_a_def_compiles_with_that_def_alone_under_the_modules_future_flags(
    tmp_path,
):
    # the def is compiled by itself: under `annotations` (the module's) the inner def's
    # annotations stay strings, so the unchecked label survives; `2 ** 1` made `2 * 1` is the
    # original's bytecode
    for rel, text in FUTURE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    run = run_engine(
        tmp_path,
        Sandbox(SandboxConfig(timeout_s=60), protect=tmp_path),
        ["src/fut/calc.py"],
        ["tests/test_calc.py"],
    )
    assert _status(run, 5, "string") is Status.SURVIVED
    assert _status(run, 8, "arithmetic", "**") is Status.IGNORED
    assert _status(run, 8, "arithmetic", "+") is Status.KILLED
    assert _status(run, 9, "arithmetic") is Status.KILLED
