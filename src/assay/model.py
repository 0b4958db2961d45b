"""Plain data shared by gates, the pipeline and reporters. No I/O lives here."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any


class Verdict(str, Enum):
    """Verdict of a test case or a file (vocabulary of DESIGN.md)."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    FLAKY = "flaky"
    UNVALIDATED = "unvalidated"
    LOW_VALUE = "low_value"


class GateStatus(str, Enum):
    PASS = "pass"
    REJECT = "reject"
    WARN = "warn"
    SKIP = "skip"


GATE_ORDER = ("compile", "green", "stability", "mutation", "smells", "review", "integrity")


@dataclass
class Candidate:
    """One candidate test file: a file of the user's tree (never written) or text that exists only
    in memory."""

    path: Path | None  # absolute path in the user's tree; None for an in-memory candidate
    rel: str  # posix path relative to the project root
    source: str
    language: str = "python"
    targets: list[str] = field(default_factory=list)  # project-relative source files it tests
    read_error: str | None = None  # why the file could not be read as UTF-8 Python text
    # diff scope (`verify --since`): changed lines of the code under test; gate 4 mutates only these
    changed: dict[str, list[int]] | None = None


@dataclass
class TestOutcome:
    """What one test case came to, and which gate decided it."""

    id: str
    verdict: Verdict
    gate: str | None = None
    reason: str = ""
    # what the user should know that decides nothing (gate 4: `redundant: ...`)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "verdict": self.verdict.value,
            "gate": self.gate,
            "reason": self.reason,
        }
        if self.note:
            out["note"] = self.note
        return out

    @property
    def redundant(self) -> bool:
        return self.note.startswith("redundant:")


@dataclass
class GateResult:
    """What one gate decided for one file.

    `verdict` is set when the gate decides the file's verdict itself (e.g. `flaky`, `unvalidated`,
    `low_value`); a plain reject means `rejected`. `tests` holds per-test outcomes the gate decided.
    `details` is the gate's own JSON (score, findings, ...), merged into the report entry.
    `notes`: node id -> a note on that test that decides nothing (its outcome carries it).
    """

    gate: str
    status: GateStatus
    duration_s: float = 0.0
    feedback: str = ""
    verdict: Verdict | None = None
    tests: list[TestOutcome] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "gate": self.gate,
            "status": self.status.value,
            "duration_s": round(self.duration_s, 3),
            "feedback": self.feedback,
        }
        if self.verdict is not None:
            out["verdict"] = self.verdict.value
        out.update(self.details)
        return out


NOT_JUDGED = "not judged: file stopped at"  # a test's reason when a gate stopped its file first


@dataclass
class FileReport:
    path: str
    language: str
    targets: list[str]
    verdict: Verdict
    rejected_at: str | None
    gates: list[GateResult]
    tests: list[TestOutcome]
    cached: bool = False
    duration_s: float = 0.0
    # the limits this file's runs got: its language's sandbox profile (memory, processes, ...)
    limits: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "language": self.language,
            "targets": self.targets,
            "verdict": self.verdict.value,
            "rejected_at": self.rejected_at,
            "cached": self.cached,
            "duration_s": round(self.duration_s, 3),
            "gates": [g.to_json() for g in self.gates],
            "tests": [t.to_json() for t in self.tests],
            "limits": self.limits,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileReport:
        gates = []
        for g in data["gates"]:
            extra = {
                k: v
                for k, v in g.items()
                if k not in ("gate", "status", "duration_s", "feedback", "verdict")
            }
            gates.append(
                GateResult(
                    gate=g["gate"],
                    status=GateStatus(g["status"]),
                    duration_s=g["duration_s"],
                    feedback=g["feedback"],
                    verdict=Verdict(g["verdict"]) if g.get("verdict") else None,
                    details=extra,
                )
            )
        tests = [
            TestOutcome(t["id"], Verdict(t["verdict"]), t["gate"], t["reason"], t.get("note", ""))
            for t in data["tests"]
        ]
        return cls(
            path=data["path"],
            language=data["language"],
            targets=data["targets"],
            verdict=Verdict(data["verdict"]),
            rejected_at=data["rejected_at"],
            gates=gates,
            tests=tests,
            cached=data.get("cached", False),
            duration_s=data.get("duration_s", 0.0),
            limits=data.get("limits", {}),
        )


@dataclass
class SandboxInfo:
    """What isolation the sandbox could actually apply on this machine (reported, never assumed)."""

    network: str  # "cut" or "not cut: <why>"
    filesystem: str  # "project read-only" or "not protected: <why>"
    processes: str  # "pid namespace, pids.max=N" ...
    rlimits: dict[str, Any]
    env_removed: list[str]
    timeout_s: float
    # one line when this machine gives only the weaker profile (no namespaces): never silence
    warning: str | None = None
    # who builds the view: "built-in" or "bwrap ..." (docs/sandbox.md)
    backend: str = "built-in"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EnvironmentGap:
    """Something the test interpreter lacks (`no module 'x'`), and what it left unjudged."""

    missing: str
    python: str
    tests: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    todo: str = ""  # what to do, when the gate that found it knows the cause (gate 1's)

    def describe(self) -> str:
        """One line for the terminal: what, where, how much, and what to do."""
        n, m = len(self.tests), len(self.files)
        files = f"{m} file{'' if m == 1 else 's'}"
        what = f"{n} test{'' if n == 1 else 's'} of {files}" if n else files
        # a module of the standard library comes with the interpreter's build, not from pip
        todo = self.todo or (
            "use a Python built with it"
            if self.missing.startswith("no standard-library module")
            else "install it there and run again"
        )
        if " in this Python (removed in " in self.missing:  # the project predates this Python
            todo = "point assay at a Python the project supports and run again"
            return f"environment: {self.missing}: {self.python} ({what} unvalidated; {todo})"
        if self.missing.startswith("no locale"):  # the system's, whatever the interpreter
            todo = "generate it (locale-gen, or the locales-all package) and run again"
            return f"environment: {self.missing} on this system ({what} unvalidated; {todo})"
        if self.missing.startswith("no reflective access "):  # a JDK past the test libraries
            todo = "run on a JDK the project supports, or open it with --add-opens"
            return f"environment: {self.missing} on this JDK ({what} unvalidated; {todo})"
        if self.missing.startswith("no program"):  # a server or CLI the tests start
            todo = "install it on PATH and run again"
            return f"environment: {self.missing} on this system ({what} unvalidated; {todo})"
        return f"environment: {self.missing} in {self.python} ({what} unvalidated; {todo})"

    def to_json(self) -> dict[str, Any]:
        return {
            "missing": self.missing,
            "python": self.python,
            "tests": len(self.tests),
            "files": len(self.files),
        }


@dataclass
class Report:
    root: str
    files: list[FileReport]
    sandbox: SandboxInfo | None
    duration_s: float
    # things the user should know about this run (no cache kept)
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False  # stopped by Ctrl-C / SIGTERM: `files` holds those that finished

    SCHEMA = "assay.verify/1"

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 130
        accepted = self.files and all(f.verdict is Verdict.ACCEPTED for f in self.files)
        return 0 if accepted and not self.environment_gaps() else 1

    def summary(self) -> dict[str, Any]:
        counts = {v.value: 0 for v in Verdict}
        for f in self.files:
            counts[f.verdict.value] += 1
        return {
            "files": len(self.files),
            **counts,
            "duration_s": round(self.duration_s, 3),
            **self._unjudged(),
            "tests": self.test_counts(),
        }

    def _unjudged(self) -> dict[str, Any]:
        """The summary's count of tests no verdict could be given (skipped, stopped before, or an
        environment gap), and the gaps, each named: a file may be judged while some of its tests
        were not."""
        return {
            "unvalidated_tests": sum(
                t.verdict is Verdict.UNVALIDATED for f in self.files for t in f.tests
            ),
            # of them, those of a file a gate stopped before it judged them: no gap to fix
            "not_judged_tests": sum(
                t.verdict is Verdict.UNVALIDATED and t.reason.startswith(NOT_JUDGED)
                for f in self.files
                for t in f.tests
            ),
            "environment": [g.to_json() for g in self.environment_gaps()],
        }

    def environment_gaps(self) -> list[EnvironmentGap]:
        """What the test interpreter lacks, from the gates' `environment` details, one entry per
        missing thing and interpreter, with the tests and files it left unjudged."""
        gaps: dict[tuple[str, str], EnvironmentGap] = {}
        for f in self.files:
            for g in f.gates:
                env = g.details.get("environment") or {}
                if isinstance(env, str):  # a toolchain's build environment (no interpreter)
                    env = {"python": "the build environment", "missing": {env: []}}
                python = str(env.get("python") or "the test interpreter")
                todo = str(g.details.get("todo") or "")
                for missing, where in (env.get("missing") or {}).items():
                    gap = gaps.setdefault(
                        (missing, python), EnvironmentGap(missing, python, todo=todo)
                    )
                    gap.files.add(f.path)
                    gap.tests.update(w for w in where if "::" in w)
        return list(gaps.values())

    def test_counts(self) -> dict[str, int]:
        """Tests of every file by verdict, and how many carry a redundancy note (a count of its
        own: a redundant test is also `accepted`)."""
        counts = {v.value: 0 for v in Verdict}
        for f in self.files:
            for t in f.tests:
                counts[t.verdict.value] += 1
        counts["redundant"] = sum(t.redundant for f in self.files for t in f.tests)
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.SCHEMA,
            "root": self.root,
            "files": [f.to_json() for f in self.files],
            "summary": self.summary(),
            "sandbox": self.sandbox.to_json() if self.sandbox else None,
            "notes": self.notes,
        }


@dataclass
class LintReport:
    """What `assay smells` found: every finding (`assay.smells.Finding`) of every file, and how
    many files."""

    findings: list[Any]
    files: int
    config: Any = None  # the SmellsConfig the files were linted with (levels shown in SARIF)

    @property
    def exit_code(self) -> int:
        return 1 if any(f.level == "reject" for f in self.findings) else 0
