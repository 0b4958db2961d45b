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
from assay.agents import diff_scoped
from tests.conftest import REPO

pytest.importorskip("yaml", reason="ci/run_action_locally.py reads action.yml with PyYAML")


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


def test_the_action_steps_write_sarif_and_summary_and_fail_on_a_weak_file(calc_repo, tmp_path):
    work = calc_repo
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


def test_the_gitlab_template_script_writes_its_reports_and_fails_on_a_weak_file(calc_repo):
    work = calc_repo
    """Its script after the pip install (this assay is installed already), as a runner's bash."""
    import yaml

    job = yaml.safe_load((REPO / "ci" / "gitlab" / "assay.gitlab-ci.yml").read_text())[".assay"]
    assert "python -m pip install" in job["script"][0]
    since = "auto" if diff_scoped(api.verify) else ""
    base = subprocess.run(
        ["git", "merge-base", "origin/main", "HEAD"], cwd=work, capture_output=True, text=True
    ).stdout.strip()
    env = {
        **os.environ,
        **{k: str(v) for k, v in job["variables"].items()},
        "ASSAY_SINCE": since,
        "CI_MERGE_REQUEST_DIFF_BASE_SHA": base,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    script = "\n".join(job["script"][1:])
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script], cwd=work, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "assay verify exited 1 (fail-on: not-accepted)" in done.stdout
    for artifact in [*job["artifacts"]["paths"], job["artifacts"]["reports"]["junit"]]:
        assert (work / artifact).is_file(), artifact
