"""The kept suite minimised against its own kill sets (`writers/offline/minimise.py`): a real probe
and a real confirming run in the sandbox on a small module."""

from __future__ import annotations

import sys
import textwrap

from assay._assay_sandbox.protocol import OfflineFunction
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.mutation.mutants import generate
from assay.sandbox import Sandbox
from assay.writers.offline.cover import cover, reach
from assay.writers.offline.minimise import confirm, minimal, to_confirm
from assay.writers.offline.probe import run_probe

SIZES = textwrap.dedent("""
    def size(n):
        if n > 10:
            return "big"
        return "small"
""")
# twelve big numbers before 11: the probe records the first twelve killers of a mutant and stops,
# so that `11` also kills the mutants of `return "big"` is not seen
NUMBERS = [*range(20, 32), 11, 10]


def test_no_case_is_kept_for_kills_another_kept_case_makes_unseen_by_the_probe(tmp_path):
    """The probe stops at twelve killers per mutant: `size(11)` kills `n > 11` alone, and the
    mutants of `return "big"` - but twelve other calls killed those first, so the cover also kept
    `size(20)` for them. The confirming run records every killer of those mutants among the
    chosen cases, and the minimal suite is `size(10)` and `size(11)`."""
    (tmp_path / "sizes.py").write_text(SIZES)
    mutants = list(generate("sizes.py", SIZES))
    settings = Settings()
    sandbox = Sandbox(settings.sandbox, protect=tmp_path)
    inputs = [{"args": [str(n)], "kwargs": {}, "origin": "tests"} for n in NUMBERS]
    common = {"dotted": "sizes", "imports": ["from sizes import size"]}
    with Workspace(tmp_path) as ws:
        probe = run_probe(
            ws,
            sandbox,
            sys.executable,
            ["."],
            rel="sizes.py",
            functions=[OfflineFunction("size", "function", inputs, [])],
            mutants=mutants,
            literals={},
            budget_s=30.0,
            call_timeout=1.0,
            workers=1,
            hypothesis_examples=0,
            **common,
        )
        assert probe.error is None, probe.error
        chosen = cover(probe.kept, 20)
        chosen += reach(chosen, probe.kept, mutants, probe.status, SIZES, 20)
        calls = sorted(k.input["args"][0] for k in chosen)
        assert "11" in calls and len(chosen) == 3, calls  # the probe's partial kill sets
        pending = to_confirm(chosen, probe.kept, mutants, probe.status)
        assert pending, "no mutant's killers were cut short"
        judged = confirm(
            ws,
            sandbox,
            sys.executable,
            ["."],
            path=str(ws.path("sizes.py")),
            kinds={"size": "function"},
            chosen=chosen,
            mutants=pending,
            until=__import__("time").monotonic() + 30.0,
            call_timeout=1.0,
            workers=1,
            **common,
        )
    assert judged == {m.id for m in pending}
    kept = minimal(chosen, 20)
    assert sorted(k.input["args"][0] for k in kept) == ["10", "11"]
    for k in kept:  # no kept case is redundant
        others = set().union(*(o.kills for o in kept if o is not k))
        assert k.kills - others, k.input
