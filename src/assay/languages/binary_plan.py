"""Gate 3 of a compiled test binary (Go's, Rust's) in one sandbox entry: a small `sh` script runs
the binary once per run of the plan, each run's output and exit status into files of its own,
where a sandboxed process per run costs its own namespaces, cgroups and start (about 30 ms of CPU
and 60 ms of wall each, 7+ runs a file).

Each run is still a process of its own (fresh statics, as before); each has its own deadline
(`timeout`), and the script stops after a run marked `stop_if_failed` that exited non-zero, as the
plan asks. Output read back from the files is redacted as the sandbox's own is.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.languages.tooling import Ran
from assay.sandbox import RunResult
from assay.sandbox.view import hand_over

if TYPE_CHECKING:
    from assay.execution.workspace import Workspace
    from assay.languages.tooling import ToolRunner

TIMED_OUT = 124  # `timeout`'s status when the deadline ended the run


@dataclass(frozen=True)
class BinaryRun:
    argv: list[str]
    stop_if_failed: bool = False  # the plan ends after this run when it exits non-zero


def run_all(
    runner: ToolRunner,
    ws: Workspace,
    runs: list[BinaryRun],
    cwd: str,
    timeout_each: float,
    env: dict[str, str] | None = None,
) -> list[Ran]:
    """The runs in order in one sandboxed `sh`; one Ran per run that started (fewer when the
    plan stopped after a failure or the whole entry was killed in a run)."""
    out = ws.run_dir / f"binary-plan-{len(list(ws.run_dir.glob('binary-plan-*')))}"
    out.mkdir(parents=True)
    hand_over(out)  # the tests' uid writes the outputs
    deadline = ["timeout", "-k", "5", f"{timeout_each:g}"] if shutil.which("timeout") else []
    lines = []
    for i, r in enumerate(runs):
        q = {k: shlex.quote(str(out / f"{i}.{k}")) for k in ("out", "err", "rc")}
        command = " ".join(shlex.quote(a) for a in [*deadline, *r.argv])
        lines.append(f"{command} >{q['out']} 2>{q['err']} </dev/null; rc=$?; echo $rc >{q['rc']}")
        if r.stop_if_failed:
            lines.append('[ "$rc" = 0 ] || exit 0')
    script = out / "plan.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = runner.exec(
        ws, ["sh", str(script)], cwd=cwd, timeout=(timeout_each + 5) * len(runs) + 30, env=env
    )
    redact = runner.sandbox.redactor().text
    done: list[Ran] = []
    for i in range(len(runs)):
        files = {k: out / f"{i}.{k}" for k in ("out", "err", "rc")}
        if not files["out"].is_file():
            break  # never started: the plan stopped before it
        text = {k: files[k].read_text("utf-8", "replace") for k in ("out", "err")}
        rc_text = files["rc"].read_text().strip() if files["rc"].is_file() else ""
        if rc_text.lstrip("-").isdigit():
            status, timed_out = int(rc_text), int(rc_text) == TIMED_OUT and bool(deadline)
        else:  # the whole entry ended in this run: its status is the run's
            status, timed_out = whole.result.returncode, whole.result.timed_out
        result = RunResult(status, redact(text["out"]), redact(text["err"]), 0.0, timed_out)
        done.append(Ran(result, whole.roots))
        if not rc_text:
            break
    return done
