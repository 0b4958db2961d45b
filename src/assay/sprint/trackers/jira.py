"""`jira:URL`: the issues of `sprint = "NAME"` (JQL) on the Jira at URL, paged by startAt. Basic
auth from JIRA_USER + JIRA_TOKEN (Jira Cloud), a bearer token from JIRA_TOKEN alone (Server/Data
Center personal access token). Task ids are the issue keys: `SPAN-1`."""

from __future__ import annotations

from typing import Any

from assay.errors import InputError, RunFailed
from assay.sprint.model import Task
from assay.sprint.trackers.rest import Api, token

FIELDS = "summary,description,issuetype,labels"
PAGE = 100


def _api(url: str) -> Api:
    if not url.startswith(("http://", "https://")):
        raise InputError(f"--tracker jira:{url}: expected jira:https://your-jira")
    headers = {"Accept": "application/json"}
    secret, user = token("JIRA_TOKEN"), token("JIRA_USER")
    auth = (user, secret) if user and secret else None
    if secret and not user:
        headers["Authorization"] = f"Bearer {secret}"
    return Api("jira", url.rstrip("/"), headers, "JIRA_TOKEN (and JIRA_USER)", auth)


def _task(issue: dict[str, Any], sprint: str) -> Task:
    fields = issue.get("fields") or {}
    description = fields.get("description")
    return Task(
        id=str(issue["key"]),
        title=str(fields.get("summary") or ""),
        description=description if isinstance(description, str) else "",
        type=str((fields.get("issuetype") or {}).get("name", "")),
        labels=tuple(str(lab) for lab in fields.get("labels") or []),
        sprint=sprint,
    )


def tasks(arg: str, sprint: str) -> list[Task]:
    api = _api(arg)
    jql = 'sprint = "{}" ORDER BY key'.format(sprint.replace("\\", "\\\\").replace('"', '\\"'))
    found: list[Task] = []
    start = 0
    while True:
        page = api.json(
            f"{api.base}/rest/api/2/search",
            {"jql": jql, "startAt": start, "maxResults": PAGE, "fields": FIELDS},
        )
        issues = page.get("issues") if isinstance(page, dict) else None
        if not isinstance(issues, list):
            raise RunFailed("jira: the search did not answer a list of issues")
        found += [_task(issue, sprint) for issue in issues]
        start += len(issues)
        if not issues or start >= int(page.get("total", 0)):
            return found
