"""Gate 3's plan (reruns, a random order, each test alone) from the green run's outcomes: one rule
for the gate, which asks for the plan, and for the pytest process of gates 1-2, which runs it ahead
while its collected session is still warm (`pytest_runner`). The gate takes that run only when the
plan it would ask for is the same, step for step.

Standalone (stdlib): it runs under the interpreter of the user's tests too.
"""

from __future__ import annotations

import ast

RISKY_MODULES = {
    "socket",
    "requests",
    "httpx",
    "urllib",
    "aiohttp",
    "http",
    "subprocess",
    "multiprocessing",
    "shutil",
    "tempfile",
    "threading",
    "asyncio",
    "smtplib",
    "ftplib",
    "sqlite3",
}
RISKY_NAMES = {"open", "tmp_path", "tmpdir", "tmp_path_factory", "monkeypatch"}
MAX_RERUNS = 50
STEP_OVERHEAD_S = 0.01  # a forked rerun's own cost beside its tests (fork, results, wait)
# pytest's own cost per test beside the call the durations time (set-up, reports): 455 cases of
# inflection take 0.25 s a run where their durations add up to 0.02 s
PER_TEST_S = 0.0005
FORK_S = 0.01  # a test alone: a fork of the collected session


def rerun_count(configured: int, budget_s: float, durations: dict[str, float] | None) -> int:
    """`configured` reruns, or more when the file's tests are fast enough that more fit in
    `budget_s` (the green run's durations tell, plus pytest's own cost per test). A count, not a
    clock: the same file gets the same reruns on a busy machine. `configured` 0 turns reruns off."""
    if configured == 0 or durations is None:
        return configured
    per_run = sum(durations.values()) + PER_TEST_S * len(durations) + STEP_OVERHEAD_S
    return max(configured, min(MAX_RERUNS, int(budget_s / per_run)))


def alone_count(budget_s: float, durations: dict[str, float] | None) -> int | None:
    """How many tests the isolated step runs alone (None: all): as many forks as fit in
    `budget_s`, each test function at least once (`alone`)."""
    if durations is None:
        return None
    return int(budget_s / (FORK_S + PER_TEST_S + sum(durations.values()) / max(1, len(durations))))


def alone(ids: list[str] | None, limit: int | None) -> list[str] | None:
    """The tests an isolated step runs: each test function's first case, then the other cases in
    file order, at most `limit` of them (a fork each: 455 cases of one function cost seconds)."""
    if ids is None or limit is None:
        return ids
    first: dict[str, str] = {}
    for t in ids:
        first.setdefault(t.split("[", 1)[0], t)
    chosen = set(first.values())
    chosen.update([t for t in ids if t not in chosen][: max(0, limit - len(chosen))])
    return [t for t in ids if t in chosen]


def risk_of(source: str) -> str | None:
    """Why a test file deserves more reruns (integration marker, network, filesystem,
    subprocesses)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "integration":
            return "marked integration"
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in imported(node):
                if name.split(".")[0] in RISKY_MODULES:
                    return f"uses {name.split('.')[0]}"
        if isinstance(node, ast.Name) and node.id in RISKY_NAMES:
            return f"uses {node.id}"
        if isinstance(node, ast.arg) and node.arg in RISKY_NAMES:
            return f"uses {node.arg}"
    return None


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (`from a.b import c`: a.b)."""
    return [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]


def step(
    order: str = "file",
    seed: int = 0,
    isolate: bool = False,
    ids: list[str] | None = None,
    lean: bool = False,
    together: bool = False,
) -> dict:
    """One step of a plan as the pytest process takes it (every step of gate 3 ends the plan when
    a test did not pass in it; `lean`: plain tests may run without pytest's per-test protocol;
    `together`: a fast file's reruns, first run one after another in one process)."""
    return {
        "order": order,
        "seed": seed,
        "isolate": isolate,
        "last": True,
        "ids": ids,
        "lean": lean,
        "together": together,
    }


def ahead(policy: dict, source: str, passing: dict[str, float]) -> list[dict]:
    """The plan gate 3 asks for when the green run passed `passing` (id -> duration, in run order)
    of a file with this source; `policy` is the stability configuration (`reruns`, `reruns_risky`,
    `budget_s`, `random_order`, `seed`, `isolation`)."""
    reruns = policy["reruns_risky"] if risk_of(source) else policy["reruns"]
    budget = policy["budget_s"]
    count = rerun_count(reruns, budget, passing)
    # more reruns than configured: a fast file, whose reruns run together first
    plan = [step(lean=True, together=count > reruns) for _ in range(count)]
    if policy["random_order"]:
        plan.append(step("random", policy["seed"], lean=True))
    if policy["isolation"] and passing:
        ids = alone(list(passing), alone_count(budget, passing))
        plan.append(step(isolate=True, ids=ids, lean=True))
    return plan


def cost_s(plan: list[dict], passing: dict[str, float]) -> float:
    """What running `plan` is expected to take, from the green run's durations."""
    per_test = sum(passing.values()) / max(1, len(passing)) + PER_TEST_S
    total = 0.0
    for s in plan:
        ids = s["ids"] if s["ids"] is not None else list(passing)
        total += len(ids) * (per_test + (FORK_S if s["isolate"] else 0.0)) + STEP_OVERHEAD_S
    return total
