"""Mutants no live object can take (no enclosing def to patch): drop the project's modules and
re-run pytest in the child, with an import hook serving the mutated module code.

The slow way (a fresh import and collection per mutant), and the only one that needs no live state.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from collections.abc import Sequence

import pytest

from ..fork import stopwatch, took, waited
from ..plugins import cache_args, quieting_args
from ..protocol import MutantSpec, MutationJob
from ..short_ids import ShortIds, real
from .bytecode import import_error
from .observe import OBSERVE
from .patch import Hunt, plain_failures
from .rebuilt import Rebuilt, show_source
from .relive import live, run_live
from .seed import reseed
from .shapes import ChildResult, Report


class MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated code object for one file; everything else imports as usual. Made before
    the project's modules are dropped: it notes the mutated function's live code (`Rebuilt`), and
    `unapplied` says why the body it served left it so."""

    def __init__(self, path: str, code: types.CodeType, m: MutantSpec | None = None) -> None:
        self.path = path
        self.code = code
        self.error: str | None = None
        self.rebuilt = Rebuilt(m, path, code) if m is not None else None
        self.unapplied: str | None = None
        if m is not None:
            show_source(path, m)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or os.path.realpath(spec.origin) != self.path:
            return None
        spec.loader = self
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            exec(self.code, module.__dict__)
        except Exception as err:
            self.error = import_error(err, self.path)
            raise
        if self.rebuilt is not None:
            self.unapplied = self.rebuilt.after(module)


class _Collector:
    """pytest plugin: the first failing test (or collection error) and how many tests completed."""

    def __init__(
        self, finder: MutantFinder, report: Report, ordered: list[str], known: set[str], first: int
    ) -> None:
        self.finder = finder
        self.killed_by: list[str] = []
        self.completed = 0
        self.report = report
        self.started = (0.0, 0.0)
        self.ordered = ordered
        self.first = first
        self.known = known

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """The tests in the order asked for, and first (after the `first` state writers) those whose
        ids the worker never saw: a parameter id that changed under the mutant (`test_x[XXmoneyXX]`)
        is where the mutant shows. Other tests of the same functions go last."""
        rank = {nodeid: i for i, nodeid in enumerate(self.ordered)}

        def key(item: pytest.Item) -> tuple[int, int]:
            i = rank.get(item.nodeid)
            if i is not None:
                return (0 if i < self.first else 2, i)
            return (1, 0) if item.nodeid not in self.known else (3, 0)

        items.sort(key=key)
        if self.finder.unapplied is not None:  # nothing to learn from running them
            items.clear()

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self.report({"next": nodeid, "w": waited()})
        reseed(nodeid)
        self.started = stopwatch()

    def pytest_runtest_logfinish(self, nodeid: str, location: object) -> None:
        self.report(
            {
                "done": nodeid,
                "s": took(self.started),
                "failed": nodeid in self.killed_by,
                "w": waited(),
            }
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """pytest has just put its assertion-rewriting import hook first; a module it claims (one a
        plugin's distribution or `register_assert_rewrite` marked) would be imported unmutated: the
        mutant goes first."""
        if self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
        sys.meta_path.insert(0, self.finder)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.nodeid not in self.killed_by:
            self.killed_by.append(report.nodeid)
        if report.when == "teardown":
            self.completed += 1

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and not self.killed_by:
            self.killed_by.append(report.nodeid or "<collection>")


def run_reimported(
    cfg: MutationJob,
    m: MutantSpec,
    code: types.CodeType,
    ordered: list[str],
    report: Report,
    known: set[str],
    hunt: Hunt,
    first: int = 0,
    items: list[pytest.Item] | None = None,
    watch: bool = True,
) -> ChildResult:
    """In the child: drop the project's modules, run pytest again with the mutant served at import;
    the tests `ordered` (the first `first` of them state writers, kept first), then ids not in
    `known` (every id the worker collected), then the rest (`_Collector`). Given the worker's
    `items` for `ordered`, in its own session when it can (`relive`). `watch`: tell a mutant that
    leaves its function's live code as it was (`rebuilt`); False when the live module already holds
    the mutant (`rebind` re-ran its body and told it)."""
    scratch = os.path.realpath(cfg.scratch_root) + os.sep
    finder = MutantFinder(os.path.realpath(cfg.targets[m.file]), code, m if watch else None)
    if items and live(items, scratch):
        sys.meta_path.insert(0, finder)
        plain_failures()
        return run_live(finder, items, ordered, report, known, hunt, first, scratch)
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if f and os.path.realpath(f).startswith(scratch):
            del sys.modules[name]
    sys.meta_path.insert(0, finder)

    collector = _Collector(finder, report, ordered, known, first)
    # parametrize ids may be built from the mutated module: name the test functions, not their ids
    # (a shortened id by the one pytest made: the command line needs the function's real name)
    functions = list(dict.fromkeys(real(nodeid).split("[")[0] for nodeid in ordered))
    args = [
        *functions,
        # every test of `must` runs: no stop at a failure
        f"--maxfail={0 if hunt.must else hunt.killers}",
        "-q",
        *cache_args(),
        "-p",
        "no:randomly",
        "-p",
        "no:assay",
        *cfg.pytest_args,
        *quieting_args(cfg.pytest_args),
    ]
    # an observed re-run (`exercised`) observes this fresh session too
    plugins = [ShortIds(), collector, *([OBSERVE] if OBSERVE.sink else [])]
    plain_failures()
    exit_code = int(pytest.main(args, plugins=plugins))
    if finder.error is not None:
        return {"import_error": finder.error}
    if finder.unapplied is not None:
        return {"unapplied": finder.unapplied}
    if exit_code == 0:
        return {"killed_by": [], "tests_completed": collector.completed}
    if exit_code in (1, 2) or collector.killed_by:  # failed, or the mutated module does not import
        return {
            "killed_by": collector.killed_by or ["<collection>"],
            "tests_completed": collector.completed,
        }
    return {"crash": f"pytest exit code {exit_code}"}
