"""The typed messages between assay and this package: job configs written as JSON by the parent,
read here.

Stdlib only: assay imports this module as `assay._assay_sandbox.protocol` to write a job, and
the sandboxed process imports it as `_assay_sandbox.protocol` to read it, so both sides share
one definition.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Self  # 3.11: only for the checker, the sandboxed interpreter may be 3.10

# PYTHONHASHSEED of every sandboxed pytest process: test ids built from sets match across them
HASH_SEED = "0"
# `checked` mode: beside its result, once the tests have run (`<out>` + this), the result as it was
# then, while the process goes on (gate 3's plan, pytest's end): what waits only for gate 2's
# outcomes may start from it (gate 4, in a scratch copy of its own)
GREEN_SUFFIX = ".green"


class _Json:
    """JSON round trip of a flat dataclass; nested job types convert themselves in `_from`."""

    def to_json(self) -> str:
        return json.dumps(asdict(self))  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in data.items() if k in names})

    @classmethod
    def read(cls, path: str) -> Self:
        with open(path, encoding="utf-8") as fh:
            return cls.from_dict(json.load(fh))


@dataclass
class PytestJob(_Json):
    """One pytest run: collect, run (in file, random or reverse order) or isolate (each
    id alone)."""

    mode: str  # collect | checked (collect, then run) | run | isolate | plan | batch
    out: str  # where the result JSON goes; `<out>.progress` names each test as it starts
    user_root: str
    scratch_root: str
    paths: list[str]  # test files or node ids, relative to scratch_root
    source_roots: list[str] = field(default_factory=list)
    order: str = "file"  # file | random | reverse
    seed: int = 0
    ids: list[str] = field(default_factory=list)  # isolate: the node ids to run alone
    test_timeout: float = 60.0  # isolate: the wall limit of one test
    pytest_args: list[str] = field(default_factory=list)
    # plan: [{"order", "seed", "isolate", "last", "ids"}], each a forked run (`last`: the plan
    # ends there when a test of `ids` did not pass; an isolated step's own `ids`: the tests it runs
    # alone, else every one of `ids`)
    steps: list[dict] = field(default_factory=list)
    # checked: gate 3's stability settings; when the run leaves the file for gate 3, its plan runs
    # ahead from the collected session (`stability_plan.ahead`), its result in `<out>.plan`
    stability: dict = field(default_factory=dict)
    # batch: per file of `paths`, where its `checked` result goes (`_assay_sandbox.batch`)
    outs: list[str] = field(default_factory=list)


@dataclass
class MutantSpec(_Json):
    """One mutant as the worker needs it: a text edit of a target file and where it sits."""

    id: str
    file: str
    start: int
    end: int
    replacement: str
    line: int
    end_line: int
    stmt_line: int
    function: str
    # enclosing defs, innermost first: [name, first line]
    chain: list[list] = field(default_factory=list)
    operator: str = ""


# `MutationJob.killers` for gate 4: run every covering test of each mutant, each test function up to
# its first failing case (its other cases are skipped), so that each function's kill set is exact
EVERY_TEST_FUNCTION = 0
# ... or each test function only until it has killed one mutant: a function that has not killed yet
# runs on every mutant it covers (so `low_value`, kills nothing, stays exact); once every covering
# function has killed, a mutant stops at its first failing test, as with 1
PROVE_EACH_TEST = -1


@dataclass
class MutationJob(_Json):
    """A mutation worker's whole job: the tests, the targets and the mutants to run against them."""

    user_root: str
    scratch_root: str
    events: str  # JSON-lines file the worker appends its events to
    # files (collected whole) or node ids / `file::function` prefixes, picked after collection
    tests: list[str]
    targets: dict[str, str]  # project-relative path -> absolute path in the scratch copy
    mutants: list[MutantSpec]
    source_roots: list[str] = field(default_factory=list)
    pytest_args: list[str] = field(default_factory=list)
    # rel -> [name, first, last]: scope the run (verify gate)
    functions: dict[str, list[list]] | None = None
    workers: int = 1
    # failing test functions to find per mutant before stopping; EVERY_TEST_FUNCTION: all of them;
    # PROVE_EACH_TEST: every one that has not killed yet, then the first
    killers: int = 1
    # a test's CPU deadline: factor x its untraced duration + timeout_s (`mutation.children`)
    timeout_factor: float = 2.0
    timeout_s: float = 0.25
    baseline_timeout: float = 180.0  # the deadline of one test in the baseline runs
    # node ids, prefixes or globs left out of the run
    deselect: list[str] = field(default_factory=list)
    # untraced seconds per node id (the green gate's run), if known
    durations: dict[str, float] | None = None
    # survivors run again with the tests observed: Unexercised when no test receives anything
    # different (gate 4)
    observe: bool = False
    # at most this many mutants in scope run for the score (0: all), one per line first (`sample`);
    # the others run only for tests that have not killed yet, and count as Ignored
    sample: int = 0
    # gate 4's time budget: the sample's test time as survivors within this many times the file's
    # own run, else a prefix of it (`mutation.budget`); 0: none
    budget: float = 0.0
    # at most this many mutants run only to prove each test function (out of the sample, past the
    # early stop; 0: no limit): a test still unproven then is not judged
    prove: int = 0
    # gate 4's early stop (`mutation.enough`): each target's threshold (percent); None: every
    # sampled mutant counts
    enough: dict[str, float] | None = None
    # ... and the [detected, counted] mutants of each target the cache answered
    known: dict[str, list[int]] = field(default_factory=dict)
    # gate 4, a file whose tests get no object of the project: the mutants of modules that hold
    # no entry point are set aside unrun (`mutation.entries`)
    entered: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MutationJob:
        job = super().from_dict(data)
        job.mutants = [MutantSpec.from_dict(m) if isinstance(m, dict) else m for m in job.mutants]
        return job


@dataclass
class OfflineFunction(_Json):
    """One function the offline writer characterizes, with the inputs mined for it on
    assay's side."""

    # `f`, or `Class.method` (a method is called on a receiver built by an input's `receiver`)
    name: str
    # function | method | static (a staticmethod or classmethod, called on the class)
    kind: str = "function"
    # {"args": [src], "kwargs": {name: src}, "receiver": src|None
    inputs: list[dict] = field(default_factory=list)
    # "origin": "tests" | "doctest" | "variant" | ...}: Python source, evaluated with `imports`
    # mined constructor calls for a method's receiver
    receivers: list[str] = field(default_factory=list)


@dataclass
class OfflineJob(_Json):
    """The offline writer's probe of one module: generate inputs, run them (the oracle), run them
    against mutants."""

    user_root: str
    scratch_root: str
    out: str  # where the result JSON goes
    module: str  # dotted import name of the module under test
    path: str  # its file in the scratch copy
    # import lines that make the inputs' names resolvable (the generated file's header)
    imports: list[str]
    functions: list[OfflineFunction]
    mutants: list[MutantSpec]
    source_roots: list[str] = field(default_factory=list)
    # type name -> values mined from tests and the code
    literals: dict[str, list] = field(default_factory=dict)
    # the whole probe, import included, in seconds of an idle machine: on a busy one it takes
    # longer, by the slowdown it measures (`offline.pace`), at most `max_slowdown` times
    budget_s: float = 30.0
    # wall clock (time.time()) by which the result must be written whatever the load, the
    # interpreter's start included; 0: `max_slowdown` budgets from the probe's start
    ends_at: float = 0.0
    # wall clock (time.time()) at the launch: the interpreter's start is counted in the budget
    started_at: float = 0.0
    max_slowdown: float = 20.0  # `offline.pace.MAX_SLOWDOWN`
    call_timeout: float = 1.0  # one call of the function under test (the original)
    memory_mb: int = 1024  # address space a call may add to the worker's
    workers: int = 1
    max_inputs: int = 250  # per function
    hypothesis_examples: int = 40  # per function, when hypothesis is importable
    seed: int = 0
    # the project's pytest turns warnings into errors: an input whose call warns is not kept
    warnings_fail: bool = False
    # the confirming run (`offline.worker`): no exploration, these kept cases (`id`, `function`,
    # `kind`, `input`, `outcome`, `lines`, `s`) against `mutants` in the order given, every killing
    # case recorded (the probe stops at a few per mutant): the kill sets the suite is minimised on
    cases: list[dict] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OfflineJob:
        job = super().from_dict(data)
        job.functions = [
            OfflineFunction.from_dict(f) if isinstance(f, dict) else f for f in job.functions
        ]
        job.mutants = [MutantSpec.from_dict(m) if isinstance(m, dict) else m for m in job.mutants]
        return job
