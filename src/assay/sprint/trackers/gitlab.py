"""`gitlab:GROUP/PROJECT`: the issues of the sprint's milestone (else of the iteration of that
title). Token from GITLAB_TOKEN; the server from CI_API_V4_URL (as in GitLab CI) or GITLAB_URL.
Task ids as commits name them: `#12`; GitLab's issue type `incident` is kept as the type."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from assay.errors import InputError
from assay.sprint.model import Task
from assay.sprint.trackers.rest import Api, base_url, token


def _api() -> Api:
    headers = {"Accept": "application/json"}
    if secret := token("GITLAB_TOKEN"):
        headers["PRIVATE-TOKEN"] = secret
    if os.environ.get("CI_API_V4_URL"):
        base = base_url("CI_API_V4_URL", "")
    else:
        base = base_url("GITLAB_URL", "https://gitlab.com") + "/api/v4"
    return Api("gitlab", base, headers, "GITLAB_TOKEN")


def _task(issue: dict[str, Any], sprint: str) -> Task:
    return Task(
        id=f"#{issue['iid']}",
        title=str(issue.get("title") or ""),
        description=str(issue.get("description") or ""),
        type=str(issue.get("issue_type") or issue.get("type") or ""),
        labels=tuple(str(lab) for lab in issue.get("labels") or []),
        sprint=sprint,
    )


def tasks(arg: str, sprint: str) -> list[Task]:
    if "/" not in arg.strip("/"):
        raise InputError(f"--tracker gitlab:{arg}: expected gitlab:GROUP/PROJECT")
    api = _api()
    url = f"{api.base}/projects/{quote(arg.strip('/'), safe='')}/issues"
    params: dict[str, Any] = {"scope": "all", "per_page": 100}
    for query in ({"milestone": sprint}, {"iteration_title": sprint}):
        issues = [i for page in api.link_pages(url, {**params, **query}) for i in page]
        if issues:
            return [_task(issue, sprint) for issue in issues]
    return []
