"""A module replaced in `sys.modules` by a proxy whose `__getattr__` is project code (humanfriendly
10.0's `DeprecationProxy`, for its moved names) does not crash gate 4's baseline. The probes went
into the live functions, the proxy's `__getattr__` among them, before the probe function was
bound; then looking up `__file__` on every module (for targets not imported yet) ran the probed
`__getattr__`: "mutation run failed: baseline run failed ... NameError: name '__assay_probe__' is
not defined", the file `unvalidated`, gate 4 never run."""

from __future__ import annotations

import pytest

from assay.api import verify
from assay.config import Settings
from assay.model import Verdict
from tests.conftest import write_project

FILES = {
    "pkg/__init__.py": "",
    "pkg/moved.py": """\
        import sys
        import types


        def double(n):
            return n * 2


        class Proxy(types.ModuleType):
            def __init__(self, module):
                super().__init__(module.__name__)
                self.module = module

            def __getattr__(self, name):
                return getattr(self.module, name)


        sys.modules[__name__] = Proxy(sys.modules[__name__])
        """,
    "tests/test_moved.py": """\
        from pkg.moved import double


        def test_double():
            assert double(2) == 4
            assert double(0) == 0
        """,
}


@pytest.mark.slow
def test_a_module_proxy_with_a_getattr_of_the_project_does_not_crash_gate_4(tmp_path):
    """Slow: one gate-4 run (about 10 s at load 30)."""
    root = write_project(tmp_path / "p", FILES)
    settings = Settings(gates=["compile", "green", "mutation"], cache=False)
    (f,) = verify([root / "tests/test_moved.py"], settings).files
    gate = f.gates[-1]
    assert f.verdict is Verdict.ACCEPTED, gate.feedback
    assert gate.details["killed"] >= 1
