"""The offline writer's oracle on an argument the call changes in place (issue 28): its state after
the call is pinned, a mutant that changes it otherwise is told apart, and the written test builds
the argument itself and asserts it. In process: the module is imported here, the test run here."""

from __future__ import annotations

import importlib
import sys
import textwrap
import time
import warnings

import pytest

from assay._assay_sandbox.offline.calls import (
    Namespaces,
    differs,
    mutable_sources,
    prepare,
    record,
    run_call,
)
from assay._assay_sandbox.offline.worker import _why_dropped, explore
from assay._assay_sandbox.protocol import OfflineFunction, OfflineJob
from assay.writers.offline.markers import warnings_fail
from assay.writers.offline.outcomes import _no_input
from assay.writers.offline.probe import Kept
from assay.writers.offline.render import render

SOURCE = textwrap.dedent("""
    def settle(entries, fee):
        entries.sort()
        entries.append(-fee)


    def settle_wrongly(entries, fee):
        entries.append(fee)
""")


@pytest.fixture
def module(tmp_path):
    (tmp_path / "books.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("books")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("books", None)


def _outcome(module, name):
    inp = {"args": ["[3, 1, 2]", "5"], "kwargs": {}}
    ns = Namespaces([]).get()
    receiver, call, args = prepare(module, {"name": name, "kind": "function"}, inp, ns)
    before = mutable_sources(args)
    return record(run_call(call, 1.0), receiver, None, [], args, before)


def test_an_argument_changed_in_place_is_pinned_and_a_mutant_changing_it_otherwise_is_caught(
    module,
):
    outcome = _outcome(module, "settle")
    assert outcome["k"] == "return" and outcome["expr"] == "None"
    assert outcome["after"] == {"0": "[1, 2, 3, -5]"}
    # the same call where the code changes the list otherwise: the test written would fail
    ns = Namespaces([]).get()
    inp = {"args": ["[3, 1, 2]", "5"], "kwargs": {}}
    _, call, args = prepare(module, {"name": "settle_wrongly", "kind": "function"}, inp, ns)
    assert differs(outcome, run_call(call, 1.0), None, ns, args)
    _, call, args = prepare(module, {"name": "settle", "kind": "function"}, inp, ns)
    assert not differs(outcome, run_call(call, 1.0), None, ns, args)


def test_the_written_test_builds_the_argument_and_asserts_its_state_after(module):
    outcome = _outcome(module, "settle")
    k = Kept(
        "settle#0",
        "settle",
        {"args": ["[3, 1, 2]", "5"], "kwargs": {}, "receiver": None, "origin": "variant"},
        outcome,
        set(),
        {"m1"},
    )
    kinds = {"settle": "function"}
    rendered = render("books", [k], kinds, {"settle": ["entries", "fee"]}, {"books"}, ["settle"])
    text = rendered.text
    assert "entries = [3, 1, 2]" in text and "settle(entries, 5)" in text
    assert "assert entries == [1, 2, 3, -5]" in text
    assert "argument 1 == [1, 2, 3, -5]" in rendered.tests[0].expected
    namespace: dict = {}
    exec(compile(text, "test_books.py", "exec"), namespace)  # noqa: S102 - the file just written
    [test] = [v for n, v in namespace.items() if n.startswith("test_")]
    test()  # passes on the code as it is
    module.settle = module.settle_wrongly
    namespace["settle"] = module.settle_wrongly
    with pytest.raises(AssertionError):
        test()


def test_a_call_that_warns_is_not_pinned_where_pytest_turns_warnings_into_errors(tmp_path):
    """wcwidth's pytest has `filterwarnings = error`: its tests of a call that warns passed the
    probe and failed gate 2, which cost a round of the budget."""

    def old(x):
        warnings.warn("old", DeprecationWarning, stacklevel=1)
        return x

    ran = run_call(lambda: old(1), 1.0)
    assert ran.warned == "DeprecationWarning: old"
    assert record(ran, None, None, [], warnings_fail=True) == {"k": "warning", "why": ran.warned}
    assert record(ran, None, None, [])["expr"] == "1"  # elsewhere a warning fails nothing
    (tmp_path / "tox.ini").write_text("[pytest]\nfilterwarnings =\n    error\n")
    assert warnings_fail(tmp_path) and not warnings_fail(tmp_path / "elsewhere")


HANGS = textwrap.dedent("""
    def spin(n: int) -> int:
        while n >= 0 or n < 0:
            n += 1
        return n


    def double(n: int) -> int:
        return 2 * n
""")


@pytest.fixture
def hanging(tmp_path):
    (tmp_path / "spinner.py").write_text(HANGS)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("spinner"), str(tmp_path / "spinner.py")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("spinner", None)


def test_a_function_that_hangs_reads_as_hanging_however_short_its_share(hanging):
    """On a busy machine a function's share of the probe can be shorter than one call timeout: its
    child was killed before any call timed out, and the function read as "out of time" rather than
    "hangs". A share of 0.2 s here stands for that machine."""
    module, path = hanging
    job = OfflineJob("", "", "", "spinner", path, [], [], [], call_timeout=0.3, max_inputs=6)
    now = time.monotonic()
    spin = OfflineFunction("spin", "function", [])
    found = explore(job, module, spin, path, now + 0.2, False, now + 30)
    assert found["hung"] >= 1 and not found["kept"], found
    assert _no_input(found) == "hangs on every input it was given"


def test_an_outcome_is_confirmed_even_when_the_first_run_overran_the_share(hanging):
    """A busy machine: the first run overran the function's share (it is given the time to tell
    a hang), and the second run, which confirms each outcome, found its share already over -
    every input was dropped as "out of time" (inflection's `parameterize` under load: "none of its
    250 inputs gave an outcome a test can pin (250 out of time)"). The second run now gets as long
    as the first took, within the probe's end."""
    module, path = hanging
    job = OfflineJob("", "", "", "spinner", path, [], [], [], call_timeout=0.3, max_inputs=6)
    now = time.monotonic()
    double = OfflineFunction("double", "function", [])
    found = explore(job, module, double, path, now + 0.05, False, now + 30)
    assert found["kept"] and "out of time" not in found["dropped"], found


def test_a_call_that_reads_the_command_line_is_not_pinned(tmp_path):
    """`docopt(doc)` parses `sys.argv[1:]`: under the probe it saw the worker's arguments, under
    `pytest` alone none, under `pytest -k x` others - the pinned outcome held only by chance. The
    program's name alone (`argv[0]`, argparse's `prog`) is not the command line."""
    (tmp_path / "cli.py").write_text(
        textwrap.dedent("""
            import sys


            def count(argv=None):
                return len(sys.argv[1:] if argv is None else argv)


            def program():
                return sys.argv[0].upper() == ""
        """)
    )
    sys.path.insert(0, str(tmp_path))
    try:
        cli = importlib.import_module("cli")
        ns = Namespaces([]).get()
        outcomes = {}
        for name, args in (("count", []), ("count", ["['-v']"]), ("program", [])):
            inp = {"args": args, "kwargs": {}}
            receiver, call, _ = prepare(cli, {"name": name, "kind": "function"}, inp, ns)
            outcomes[name, len(args)] = record(run_call(call, 1.0), receiver, None, [])
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("cli", None)
    assert outcomes["count", 0]["k"] == "argv"
    assert outcomes["count", 1]["k"] == "return"  # given its arguments, it reads no command line
    assert outcomes["program", 0]["k"] == "return"
    assert _why_dropped({}, outcomes["count", 0], {}).startswith("read the command line")
