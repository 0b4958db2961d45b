"""What the HTTP trackers share: one httpx client that retries 429 and 5xx answers (waiting what
the server's Retry-After asks, within a cap), follows pages, and turns 401/403/404 into one line.
Tokens go in headers only: never in a message, a report or a file."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from assay.errors import ConfigError, InputError, RunFailed

RETRIES = 4
MAX_WAIT_S = 60.0
HINTS = {
    401: "the token was refused: set {env} to a valid token",
    403: "access denied: the token in {env} lacks the right to read it (or a rate limit)",
    404: "not found: check the name (a private one also needs {env})",
}


@dataclass
class Api:
    """A tracker's API: `name` for messages, the variable its token comes from."""

    name: str
    base: str
    headers: dict[str, str]
    token_env: str
    auth: tuple[str, str] | None = None
    backoff_s: float = 1.0

    def _wait(self, response: httpx.Response, attempt: int) -> float:
        given = response.headers.get("Retry-After", "")
        try:
            return min(max(float(given), 0.0), MAX_WAIT_S)
        except ValueError:
            return min(self.backoff_s * 2**attempt, MAX_WAIT_S)

    def get(self, url: str, params: dict[str, Any] | None = None) -> httpx.Response:
        """One page; 429/5xx retried, 401/403/404 as one line (exit 2)."""
        with httpx.Client(headers=self.headers, auth=self.auth, timeout=30.0) as client:
            for attempt in range(RETRIES + 1):
                try:
                    response = client.get(url, params=params)
                except httpx.HTTPError as err:
                    if attempt == RETRIES:
                        raise RunFailed(f"{self.name}: cannot reach {self.base}: {err}") from None
                    time.sleep(min(self.backoff_s * 2**attempt, MAX_WAIT_S))
                    continue
                status = response.status_code
                if status in HINTS:
                    hint = HINTS[status].format(env=self.token_env)
                    raise InputError(f"{self.name}: {status} on {_path(url)}: {hint}")
                if (status == 429 or status >= 500) and attempt < RETRIES:
                    time.sleep(self._wait(response, attempt))
                    continue
                if status >= 400:
                    raise RunFailed(f"{self.name}: {status} on {_path(url)} after retries")
                return response
        raise AssertionError("unreachable")

    def json(self, url: str, params: dict[str, Any] | None = None) -> Any:
        response = self.get(url, params)
        try:
            return response.json()
        except ValueError:
            raise RunFailed(f"{self.name}: {_path(url)} did not answer JSON") from None

    def link_pages(self, url: str, params: dict[str, Any] | None = None) -> Iterator[Any]:
        """Pages chained by `Link: <...>; rel="next"` (GitHub, GitLab)."""
        next_url: str | None = url
        while next_url:
            response = self.get(next_url, params)
            params = None  # the next link carries them
            try:
                yield response.json()
            except ValueError:
                raise RunFailed(f"{self.name}: {_path(next_url)} did not answer JSON") from None
            next_link = response.links.get("next", {}).get("url")
            next_url = str(next_link) if next_link else None


def _path(url: str) -> str:
    """The URL without its query (which may carry search terms, never a token)."""
    return url.split("?", 1)[0]


def token(env: str) -> str | None:
    value = os.environ.get(env, "").strip()
    return value or None


def base_url(env: str, default: str) -> str:
    url = os.environ.get(env, "").strip() or default
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{env}={url!r}: expected an http(s) URL")
    return url.rstrip("/")
