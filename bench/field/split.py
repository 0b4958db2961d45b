"""Where the wall and CPU of `assay verify TESTS --no-cache` go on field projects already set up
by `run.py`: assay's start (import, config, project, interpreter probe and prepare), workspace
copies, gates 1-3 (batch sessions, their own processes), gate 4 (a total: other benches split it),
gate 5, reporting, and the cores left idle (a thread waiting for a batch, the last file alone).

    .venv/bin/python bench/field/split.py [--only NAME ...] [--assay-src DIR] [--runs N]
        [--timeline] [--json FILE]
    .venv/bin/python bench/field/split.py --summary FILE   # the table again from --json's FILE

The run is the CLI itself in a child process, with timing wrappers around assay's functions (each
thread's innermost phase) and a sampler reading the CPU of the whole process tree (a cpuacct
group: sandboxed processes included) every 10 ms; each sample's CPU goes to the phases running
in it, split evenly among them (a thread waiting for another's batch is given none).
`--assay-src` runs another checkout's `src/` (a `git archive` of main) the same way, in turn.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
WAITING = {"wait for batch", "wait for a free thread"}


def _child(out: str, tests: str, group: str) -> None:
    """In the child: run `assay verify` with the wrappers on, write the phases and samples."""
    t0 = time.monotonic()
    usage = Path(group) / "cpuacct.usage"
    samples: list[tuple[float, int]] = [(t0, int(usage.read_text()))]
    import assay.cli
    import assay.cli.verify
    from assay import api, pipeline
    from assay.execution import batches, workspace
    from assay.gates import REGISTRY
    from assay.languages import python

    imported = time.monotonic()
    phases: list[tuple[int, str, float, float, int]] = []
    about: list[tuple[int, float, str]] = []  # (thread, start, what): the file a gate ran on
    depth: dict[int, int] = defaultdict(int)

    def wrap(owner: object, attr: str, name: str) -> None:
        inner = getattr(owner, attr, None)
        if inner is None:
            return

        def timed(*args: object, **kwargs: object) -> object:
            tid = threading.get_ident()
            depth[tid] += 1
            start = time.monotonic()
            rel = getattr(args[1], "rel", None) if name.startswith("gate") else None
            rel = rel if isinstance(rel, str) else None
            if rel or name == "gates 1-3: batch":
                about.append((tid, start, str(rel or f"{len(args[2])} files")))  # type: ignore[arg-type]
            try:
                return inner(*args, **kwargs)
            finally:
                depth[tid] -= 1
                phases.append((tid, name, start, time.monotonic(), depth[tid]))

        setattr(owner, attr, timed)

    # config and the project interpreter's pytest check (`project_settings`; `_settings` before)
    wrap(api, "project_settings", "start: config")
    wrap(api, "_settings", "start: config")
    wrap(api.Project, "load", "start: project")
    wrap(api, "discover", "start: discover")
    wrap(api, "_load_candidates", "start: candidates")
    wrap(api, "sweep_stale", "start: sweep")
    wrap(pipeline.Verifier, "__init__", "start: verifier")
    wrap(pipeline.Verifier, "toolchain", "start: probe+prepare")
    wrap(pipeline.Verifier, "batch", "start: plan batches")
    wrap(pipeline.Verifier, "close", "close")
    wrap(workspace.Workspace, "__init__", "workspace copy")
    wrap(workspace.Workspace, "reset", "workspace reset")
    wrap(python.PythonPytestRunner, "batch", "gates 1-3: batch")
    wrap(python.PythonPytestRunner, "_pytest", "gates 1-3: own process")
    for gate in REGISTRY.values():
        label = {"compile": "gates 1-3: rest", "green": "gates 1-3: rest"}.get(gate.name)
        label = label or {"stability": "gates 1-3: rest", "mutation": "gate 4 (total)"}.get(
            gate.name, f"gate {gate.name}"
        )
        wrap(gate, "run", label)
    wrap(assay.cli.verify, "write_outputs", "reporting")
    original_settle = batches.Batches.settle

    def settle(self: batches.Batches, rel: str) -> None:
        with self._lock:
            batch = self._of.get(rel)
            waits = batch is not None and batch.started
        tid = threading.get_ident()
        start = time.monotonic()
        try:
            original_settle(self, rel)
        finally:
            if waits:
                phases.append((tid, "wait for batch", start, time.monotonic(), depth[tid]))

    batches.Batches.settle = settle  # type: ignore[method-assign]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.01):
            samples.append((time.monotonic(), int(usage.read_text())))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    sys.argv = ["assay", "verify", tests, "--no-cache", "-q", "-f", f"json={out}.verify.json"]
    code = 0
    try:
        assay.cli.main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    end = time.monotonic()
    stop.set()
    sampler.join()
    samples.append((end, int(usage.read_text())))
    result = {"t0": t0, "imported": imported, "end": end, "exit": code}
    Path(out).write_text(
        json.dumps({**result, "phases": phases, "samples": samples, "about": about})
    )


def split(data: dict) -> tuple[dict[str, list[float]], float, float]:
    """Per phase: [thread-seconds, CPU seconds]; the run's wall and CPU."""
    t0, end = data["t0"], data["end"]
    phases = [tuple(p) for p in data["phases"]]
    phases.append((0, "start: import", t0, data["imported"], 0))
    table: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    threads_busy: dict[int, float] = defaultdict(float)
    samples = data["samples"]
    for (a, ca), (b, cb) in zip(samples, samples[1:], strict=False):
        mid, cpu = (a + b) / 2, (cb - ca) / 1e9
        innermost: dict[int, tuple] = {}
        for p in phases:
            if p[2] <= mid < p[3] and (p[0] not in innermost or p[4] > innermost[p[0]][4]):
                innermost[p[0]] = p
        busy = [p[1] for p in innermost.values() if p[1] not in WAITING]
        for p in innermost.values():
            table[p[1]][0] += b - a
        threads_busy[len({p[0] for p in innermost.values() if p[1] not in WAITING})] += b - a
        if not innermost:
            table["other (between phases)"][0] += b - a
        for name in busy or ["other (between phases)"]:
            table[name][1] += cpu / max(1, len(busy))
    total_cpu = (samples[-1][1] - samples[0][1]) / 1e9
    for n, secs in threads_busy.items():
        table[f"(wall with {n} thread(s) in a busy phase)"] = [secs, 0.0]
    return dict(table), end - t0, total_cpu


def run_once(root: Path, tests: str, src: Path | None, meter_group: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "split.json")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        if src is not None:
            env["PYTHONPATH"] = str(src)
        cmd = [sys.executable, __file__, "--child", out, tests, str(meter_group)]
        proc = subprocess.run(
            cmd,
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            preexec_fn=lambda: (meter_group / "cgroup.procs").write_text(str(os.getpid())),
        )
        if not os.path.exists(out):
            raise SystemExit(f"split child failed: {proc.stderr[-2000:]}")
        data = json.loads(Path(out).read_text())
        doc = json.loads(Path(out + ".verify.json").read_text())
    data["verdicts"] = sorted(
        [
            f["path"],
            f["verdict"],
            f["rejected_at"],
            sorted([t["id"], t["verdict"]] for t in f["tests"]),
        ]
        for f in doc["files"]
    )
    return data


def timeline(data: dict) -> None:
    """Each thread's phases in time order (seconds from the start), the waits included."""
    t0 = data["t0"]
    by_thread: dict[int, list] = defaultdict(list)
    what = {(tid, a): text.rsplit("/", 1)[-1] for tid, a, text in data.get("about", [])}
    for tid, name, a, b, depth in data["phases"]:
        if b - a >= 0.05:
            name = f"{name} [{what[tid, a]}]" if (tid, a) in what else name
            by_thread[tid].append((a - t0, b - t0, depth, name))
    for i, (_, rows) in enumerate(sorted(by_thread.items(), key=lambda kv: min(kv[1]))):
        print(
            f"thread {i}: "
            + "; ".join(f"{'  ' * d}{n} {a:.1f}-{b:.1f}" for a, b, d, n in sorted(rows))
        )


def show(name: str, label: str, data: dict, verbose: bool = False) -> None:
    if verbose:
        timeline(data)
    table, wall, cpu = split(data)
    cores = os.cpu_count() or 1
    print(
        f"\n{name} ({label}): wall {wall:.2f} s, CPU {cpu:.2f} s, "
        f"idle {max(0.0, cores * wall - cpu):.2f} core-s of {cores * wall:.2f}"
    )
    print("| phase | thread-s | CPU s | CPU % |")
    print("|---|---|---|---|")
    for phase, (tsec, pcpu) in sorted(table.items(), key=lambda kv: -kv[1][1]):
        print(f"| {phase} | {tsec:.2f} | {pcpu:.2f} | {100 * pcpu / max(cpu, 1e-9):.0f}% |")


def summary(raw: dict) -> None:
    """One row per run: the parts outside gate 4 added up, and the wall with one thread busy."""
    print(
        "| project | side, run | wall s | CPU s | start CPU | gates 1-3 CPU | gate 4 CPU "
        "| rest CPU | wall with one thread busy | verdicts as the first run |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, runs in raw.items():
        counts: dict[str, int] = defaultdict(int)
        for data in runs:
            counts[data["side"]] += 1
            table, wall, cpu = split(data)
            part = defaultdict(float)
            for phase, (_, pcpu) in table.items():
                key = phase.split(":")[0] if phase.startswith(("start", "gates 1-3")) else phase
                part[key if key in ("start", "gates 1-3", "gate 4 (total)") else "rest"] += pcpu
            one = table.get("(wall with 1 thread(s) in a busy phase)", [0.0])[0]
            same = "same" if data["verdicts"] == runs[0]["verdicts"] else "DIFFERENT"
            print(
                f"| {name} | {data['side']} {counts[data['side']]} | {wall:.1f} | {cpu:.1f} | "
                f"{part['start']:.1f} | {part['gates 1-3']:.1f} | {part['gate 4 (total)']:.1f} | "
                f"{part['rest']:.1f} | {one:.1f} | {same} |"
            )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--summary":
        summary(json.loads(Path(sys.argv[2]).read_text()))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(*sys.argv[2:5])
        return
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    from cpuacct import Meter
    from prepare import load

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/assay-field"))
    parser.add_argument("--assay-src", type=Path, help="the other checkout's src/ (before)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeline", action="store_true", help="each thread's phases")
    parser.add_argument("--json", type=Path, help="also write every run's raw data here")
    parser.add_argument(
        "--tests", help="verify this file (or dir) instead of the project's tests (one --only)"
    )
    args = parser.parse_args()
    meter = Meter()
    if meter.group is None:
        raise SystemExit("needs a cgroup v1 cpuacct group (bench/cpuacct.py)")
    raw: dict = {}
    try:
        for project in load(HERE / "projects.toml"):
            if args.only and project.name not in args.only:
                continue
            root = next(args.workdir.joinpath("projects").glob(f"{project.name}-{project.version}"))
            for i in range(args.runs):
                sides = [("before", args.assay_src)] if args.assay_src else []
                for label, src in [*sides, ("after", None)]:
                    data = run_once(root, args.tests or project.tests, src, meter.group)
                    show(project.name, f"{label}, run {i + 1}", data, args.timeline)
                    raw.setdefault(project.name, []).append({"side": label, **data})
            verdicts = [json.dumps(r["verdicts"]) for r in raw[project.name]]
            print(f"verdicts: {'same' if len(set(verdicts)) == 1 else 'DIFFERENT'}")
            if args.json:
                args.json.write_text(json.dumps(raw))
        summary(raw)
    finally:
        meter.close()
        if args.json:
            args.json.write_text(json.dumps(raw))


if __name__ == "__main__":
    main()
