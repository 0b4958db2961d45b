"""`_assay_sandbox` on its own: typed jobs round-trip, the launcher keeps assay's modules out of the
user's way, forked children hand back results or are killed at their deadline."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from assay._assay_sandbox import launch
from assay._assay_sandbox.fork import fork, run_one, watch
from assay._assay_sandbox.protocol import MutantSpec, MutationJob, PytestJob


def test_jobs_round_trip_through_json(tmp_path):
    job = MutationJob(
        user_root="/u",
        scratch_root="/s",
        events="/e",
        tests=["t.py"],
        targets={"a.py": "/s/a.py"},
        mutants=[
            MutantSpec(
                id="m1",
                file="a.py",
                start=1,
                end=2,
                replacement="-",
                line=1,
                end_line=1,
                stmt_line=1,
                function="f",
                chain=[["f", 1]],
            )
        ],
        functions={"a.py": [["f", 1, 3]]},
        workers=2,
    )
    path = tmp_path / "job.json"
    path.write_text(job.to_json())
    back = MutationJob.read(str(path))
    assert back == job and isinstance(back.mutants[0], MutantSpec)
    pj = PytestJob(
        mode="run",
        out="/o",
        user_root="/u",
        scratch_root="/s",
        paths=["t.py"],
        order="random",
        seed=3,
    )
    assert PytestJob.from_dict(json.loads(pj.to_json())) == pj


def test_the_launcher_never_lets_assay_modules_shadow_the_users(tmp_path):
    # assay has modules named `config` and `model`; a project with its own must import its own
    (tmp_path / "config.py").write_text("WHO = 'user'\n")
    (tmp_path / "model.py").write_text("WHO = 'user'\n")
    (tmp_path / "test_it.py").write_text(
        "import config, model\n\ndef test_own():\n    assert config.WHO == model.WHO == 'user'\n"
    )
    argv = launch.argv(
        sys.executable,
        "pytest-main",
        str(tmp_path),
        str(tmp_path),
        ".",
        "-q",
        "-p",
        "no:cacheprovider",
        "test_it.py",
    )
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    unknown = subprocess.run(
        launch.argv(sys.executable, "nonsense"), capture_output=True, text=True, timeout=60
    )
    assert unknown.returncode == 2 and "unknown command" in unknown.stderr


def test_forked_children_report_progress_and_json_or_are_killed_at_the_deadline():
    assert run_one(lambda: {"answer": 42}, 10)[:2] == ("exited", {"result": {"answer": 42}})
    state, result, _ = run_one(lambda: 1 / 0, 10)
    assert state == "exited" and "ZeroDivisionError" in result["crash"]
    lines = []

    def body(report):
        report({"started": "t1"})
        time.sleep(60)

    start = time.monotonic()
    child = fork(body)
    ended = watch([child], lambda c: c.started + 2.0, lambda c, msg: lines.append(msg))
    assert ended[child.pid] == ("timeout", {}) and lines == [{"started": "t1"}]
    assert time.monotonic() - start < 30  # killed at its deadline, not after the 60 s it asked for
