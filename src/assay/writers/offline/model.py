"""Plain data of the offline writer: what it was asked, what it wrote, and why it wrote
nothing else."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

CHARACTERIZATION_NOTE = (
    "These are characterization tests: they pin what the code does today, not what it "
    "should do - review them before relying on them as a specification."
)


@dataclass
class OfflineTarget:
    """One module (project-relative path) and, optionally, the functions (`f`, `Class.method`)
    to test."""

    module: str
    functions: list[str] = field(default_factory=list)
    dotted: str = ""  # its import name; found from the project when empty
    reason: str = "requested"  # requested | changed since REV


@dataclass
class PinnedTest:
    """One test case the writer kept: a plain test or one row of a parametrized one."""

    test: str  # test function name, with `[row]` for a parametrized case
    function: str  # the function or method it exercises
    call: str  # the call as written, e.g. `apply_discount(1000, 15)`
    expected: str  # what it pins, e.g. `== 850`, `raises ValueError`
    kills: list[str]  # mutant ids it kills (by the probe)
    origin: str  # where the input came from: tests | doctest | variant | combination | hypothesis
    # mutants the probe did not judge (out of time) whose code it runs: kept for those
    reaches: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FunctionReport:
    """What became of one function: tests written, or why none."""

    name: str
    status: str  # tested | skipped | no-kill | dropped | unverified | error
    reason: str = ""
    tests: int = 0
    inputs_tried: dict[str, int] = field(default_factory=dict)  # by origin
    inputs_kept: int = 0
    mutants: int = 0  # the function's own mutants (equivalent and duplicate ones left out)
    killed: int = 0  # of those, killed by the kept tests

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ModuleResult:
    """The offline writer's answer for one module: the test file (or None) and the report."""

    module: str
    test_path: str | None = None  # where the file was (or, with --dry-run, would be) written
    text: str | None = None
    tests: list[PinnedTest] = field(default_factory=list)
    functions: list[FunctionReport] = field(default_factory=list)
    mutants: int = 0  # module mutants counted (equivalent, duplicate, uncompilable left out)
    killed: int = 0  # killed by the kept tests, by the probe
    # "line: before -> after" of mutants nothing kills
    survivors: list[str] = field(default_factory=list)
    # the gates' verdict of the final file (accepted, or why it was not written)
    verdict: str | None = None
    gate_score: float | None = None  # gate 4's score of the final file (its scope), percent
    written: bool = False
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # probe, verify, total (seconds)

    @property
    def duration_s(self) -> float:
        return self.timings.get("total", 0.0)

    @property
    def test_functions(self) -> int:
        """Test functions in the file: what pytest counts, where `tests` counts their cases (a
        test of statements holds several; a parametrized row is one of each)."""
        return len({t.test.partition("[")[0] for t in self.tests})

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tests"] = [t.to_json() for t in self.tests]
        out["functions"] = [f.to_json() for f in self.functions]
        return out


@dataclass
class OfflineReport:
    """Every module of one run of the offline writer."""

    modules: list[ModuleResult]
    duration_s: float = 0.0
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)

    SCHEMA = "assay.generate-offline/1"
    kind: ClassVar[str] = "offline"  # its reporters: `report.WRITER_FORMATS["offline"]`
    written_by: ClassVar[str] = "the offline writer"

    @property
    def tests(self) -> int:
        """Tests written (with --dry-run: that would have been written)."""
        return sum(
            len(m.tests) for m in self.modules if m.written or (self.dry_run and m.text is not None)
        )

    @property
    def test_functions(self) -> int:
        """Test functions written (each module's `test_functions`), as pytest will count them."""
        return sum(
            m.test_functions
            for m in self.modules
            if m.written or (self.dry_run and m.text is not None)
        )

    @property
    def exit_code(self) -> int:
        """0 when at least one test was written (or printed with --dry-run), else 1."""
        return 0 if self.tests else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.SCHEMA,
            "dry_run": self.dry_run,
            "duration_s": round(self.duration_s, 3),
            "note": CHARACTERIZATION_NOTE,
            "notes": self.notes,
            "modules": [m.to_json() for m in self.modules],
        }
