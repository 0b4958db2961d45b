"""The GitHub, GitLab and Jira clients against recorded API pages served on 127.0.0.1: pagination,
429/503 answered with Retry-After, pull requests left out, and 401/403/404 as one clear line that
never shows the token. The `file:` export in JSON and CSV."""

from __future__ import annotations

import base64
import subprocess

import pytest

from assay.errors import InputError
from assay.sprint.model import Task
from assay.sprint.trackers import load_tasks
from tests.conftest import run_cli
from tests.sprint.replay_server import ReplayServer

SECRET = "ghp_SECRET_token_0123456789"


def test_github_milestone_pages_retry_and_no_pull_requests(monkeypatch):
    with ReplayServer("github.json") as server:
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("GITHUB_TOKEN", SECRET)
        tasks = load_tasks("github:acme/shop", "S42")
    assert tasks == [
        Task("#12", "Discount must not exceed the price", "Refuse percent > 100.", "", ("bug",),
             "S42"),
        Task("#14", "Checkout 500s", "", "Bug", ("incident",), "S42"),
    ]  # fmt: skip
    assert [r["path"] for r in server.requests] == [
        "/repos/acme/shop/milestones",  # 429, Retry-After: 0
        "/repos/acme/shop/milestones",
        "/repos/acme/shop/milestones",  # page 2 has S42
        "/repos/acme/shop/issues",
        "/repos/acme/shop/issues",
    ]
    assert server.requests[3]["query"]["milestone"] == "7"
    assert all(r["headers"]["Authorization"] == f"Bearer {SECRET}" for r in server.requests)


def test_gitlab_milestone_then_iteration(monkeypatch):
    with ReplayServer("gitlab.json") as server:
        monkeypatch.delenv("CI_API_V4_URL", raising=False)
        monkeypatch.setenv("GITLAB_URL", server.url)
        monkeypatch.setenv("GITLAB_TOKEN", SECRET)
        sprint = load_tasks("gitlab:acme/shop", "S42")
        iteration = load_tasks("gitlab:acme/shop", "Iteration 9")
    assert [(t.id, t.type, t.labels) for t in sprint] == [
        ("#3", "issue", ("backend",)),
        ("#4", "incident", ()),
    ]
    assert [(t.id, t.title) for t in iteration] == [("#8", "Bump the CI image")]
    assert {k.lower(): v for k, v in server.requests[0]["headers"].items()}[
        "private-token"
    ] == SECRET
    assert len(server.requests) == 5  # 503, page 1, page 2, milestone (none), iteration


def test_jira_sprint_by_jql_with_start_at_pages(monkeypatch):
    with ReplayServer("jira.json") as server:
        monkeypatch.setenv("JIRA_USER", "dev@acme.test")
        monkeypatch.setenv("JIRA_TOKEN", SECRET)
        tasks = load_tasks(f"jira:{server.url}", "S42")
    assert [(t.id, t.type, t.labels) for t in tasks] == [
        ("SPAN-1", "Story", ("backend",)),
        ("SPAN-3", "Bug", ("frontend",)),
        ("SPAN-6", "Incident", ()),
    ]
    assert [r["query"]["startAt"] for r in server.requests] == ["0", "2", "2"]  # 429 between
    basic = base64.b64encode(f"dev@acme.test:{SECRET}".encode()).decode()
    assert server.requests[0]["headers"]["Authorization"] == f"Basic {basic}"


@pytest.mark.parametrize(
    ("recording", "spec", "env", "expected"),
    [
        ("github.json", "github:acme/private", "GITHUB_API_URL",
         "github: 401 on {url}/repos/acme/private/milestones: the token was refused"),
        ("github.json", "github:acme/gone", "GITHUB_API_URL",
         "github: 404 on {url}/repos/acme/gone/milestones: not found"),
        ("gitlab.json", "gitlab:acme/secret", "GITLAB_URL",
         "gitlab: 403 on {url}/api/v4/projects/acme%2Fsecret/issues: access denied"),
        ("jira.json", "jira:{url}/jira-denied", None,
         "jira: 401 on {url}/jira-denied/rest/api/2/search: the token was refused"),
    ],
)  # fmt: skip
def test_refusals_are_one_line_without_the_token(monkeypatch, recording, spec, env, expected):
    for name in ("GITHUB_TOKEN", "GITLAB_TOKEN", "JIRA_TOKEN"):
        monkeypatch.setenv(name, SECRET)
    monkeypatch.delenv("CI_API_V4_URL", raising=False)
    with ReplayServer(recording) as server:
        if env:
            monkeypatch.setenv(env, server.url)
        with pytest.raises(InputError) as err:
            load_tasks(spec.format(url=server.url), "S42")
    assert str(err.value).startswith(expected.format(url=server.url))
    assert SECRET not in str(err.value)


def test_cli_refusal_is_one_line_exit_2(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    with ReplayServer("github.json") as server:
        env = {**__import__("os").environ, "GITHUB_API_URL": server.url, "GITHUB_TOKEN": SECRET}
        proc = run_cli("tasks", "--tracker", "github:acme/private", "--sprint", "S42",
                       cwd=tmp_path, env=env)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"assay: error: github: 401 on {server.url}/repos/acme/private/milestones: the token "
        "was refused: "
        "set GITHUB_TOKEN to a valid token"
    ]
    assert SECRET not in proc.stdout + proc.stderr


def test_file_tracker_json_and_csv(tmp_path):
    (tmp_path / "tasks.csv").write_text(
        "id,title,description,type,labels,sprint\n"
        "SPAN-1,Discount cap,,Story,backend;pricing,S42\n"
        "SPAN-9,Other sprint,,Bug,,S43\n"
        "SPAN-2,No sprint column value,,Bug,,\n"
    )
    tasks = load_tasks(f"file:{tmp_path / 'tasks.csv'}", "S42")
    assert [(t.id, t.labels) for t in tasks] == [("SPAN-1", ("backend", "pricing")), ("SPAN-2", ())]
    (tmp_path / "bad.json").write_text('{"tasks": [{"title": "no id"}]}')
    with pytest.raises(InputError, match="a task without an id"):
        load_tasks(f"file:{tmp_path / 'bad.json'}", "S42")
