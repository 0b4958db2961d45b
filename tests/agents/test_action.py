"""The GitHub Action (`action.yml`): its `run:` steps in order by `ci/run_action_locally.py`, on a
pull-request-like branch that adds a weak test file; the SARIF and summary files come out and the
exit code follows `fail-on`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay import api
from assay.agents.server import diff_scoped
from tests.agents.fixture import calc_project
from tests.conftest import REPO

pytest.importorskip("yaml", reason="ci/run_action_locally.py reads action.yml with PyYAML")

GIT = ["git", "-c", "user.name=dev", "-c", "user.email=dev@example.com"]


def pull_request(tmp_path: Path) -> Path:
    """`upstream` on main without the weak test; its clone on a branch that adds it."""
    upstream = calc_project(tmp_path / "upstream")
    (upstream / "tests" / "test_weak.py").unlink()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=upstream, check=True)
    subprocess.run(["git", "add", "-A"], cwd=upstream, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=upstream, check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(upstream), str(work)], check=True)
    subprocess.run(["git", "checkout", "-qb", "feature"], cwd=work, check=True)
    calc_project(work)  # writes the weak test back
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run([*GIT, "commit", "-qm", "a weak test"], cwd=work, check=True)
    return work


def run_action(work: Path, temp: Path, **inputs: str) -> tuple[int, dict]:
    temp.mkdir()
    args = [f"--input={k.replace('_', '-')}={v}" for k, v in inputs.items()]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, str(REPO / "ci" / "run_action_locally.py"), "--workspace", str(work)]
        + ["--base-ref", "main", "--temp", str(temp), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}


def test_the_action_steps_write_sarif_and_summary_and_fail_on_a_weak_file(tmp_path):
    work = pull_request(tmp_path)
    # the diff scope (`--since`) where this assay has it; every test under `paths` until then
    since = "auto" if diff_scoped(api.verify) else ""
    code, result = run_action(work, tmp_path / "t1", python="", since=since)
    assert code == 1, result
    assert result["ran"] == ["Install assay", "Run assay verify", "Verdict"]
    assert result["outputs"]["exit-code"] == "1"

    sarif = json.loads(Path(result["outputs"]["sarif"]).read_text())
    found = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in sarif["runs"][0]["results"]
    }
    assert found == {("AS001", "tests/test_weak.py"), ("AV001", "tests/test_weak.py")}
    upload = result["uses"][-1]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif")
    assert upload["with"]["sarif_file"] == result["outputs"]["sarif"]

    summary = Path(result["summary"]).read_text()
    assert "### assay verify" in summary
    assert "| `tests/test_weak.py` |" in summary and "**rejected**" in summary

    code, result = run_action(work, tmp_path / "t2", python="", since=since, fail_on="never")
    assert code == 0 and result["outputs"]["exit-code"] == "1"

    code, result = run_action(work, tmp_path / "t3", python="", since=since, fail_on="often")
    assert code == 2 and result["ran"][-1] == "Run assay verify"
