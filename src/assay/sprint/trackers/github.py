"""`github:OWNER/REPO`: the issues whose milestone is the sprint (else those labelled with it),
pull requests left out. Token from GITHUB_TOKEN; GITHUB_API_URL for GitHub Enterprise (as in
GitHub Actions). Task ids as commits name them: `#12`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from assay.errors import InputError
from assay.sprint.model import Task
from assay.sprint.trackers.rest import Api, base_url, token


def _api() -> Api:
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    if secret := token("GITHUB_TOKEN"):
        headers["Authorization"] = f"Bearer {secret}"
    return Api(
        "github", base_url("GITHUB_API_URL", "https://api.github.com"), headers, "GITHUB_TOKEN"
    )


def _task(issue: dict[str, Any], sprint: str) -> Task:
    labels = tuple(str(lab.get("name", "")) for lab in issue.get("labels") or [])
    kind = issue.get("type") or {}
    return Task(
        id=f"#{issue['number']}",
        title=str(issue.get("title") or ""),
        description=str(issue.get("body") or ""),
        type=str(kind.get("name", "")) if isinstance(kind, dict) else str(kind),
        labels=labels,
        sprint=sprint,
    )


def tasks(arg: str, sprint: str) -> list[Task]:
    owner, _, repo = arg.partition("/")
    if not owner or not repo or "/" in repo:
        raise InputError(f"--tracker github:{arg}: expected github:OWNER/REPO")
    api = _api()
    root = f"{api.base}/repos/{quote(owner)}/{quote(repo)}"
    params: dict[str, Any] = {"state": "all", "per_page": 100}
    milestone = next(
        (
            m["number"]
            for page in api.link_pages(f"{root}/milestones", params)
            for m in page
            if m.get("title") == sprint
        ),
        None,
    )
    query = {"milestone": milestone} if milestone is not None else {"labels": sprint}
    issues = [
        issue
        for page in api.link_pages(f"{root}/issues", {**params, **query})
        for issue in page
        if "pull_request" not in issue
    ]
    return [_task(issue, sprint) for issue in issues]
