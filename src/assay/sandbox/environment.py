"""The environment a sandboxed run starts from: the caller's, minus every variable whose name looks
like a secret (API keys, tokens, passwords)."""

from __future__ import annotations

import os
import re

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)


def scrubbed_env(base: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The environment minus every variable whose name looks like a secret; also returns what
    was removed."""
    env = dict(os.environ if base is None else base)
    removed = sorted(k for k in env if SECRET_NAME.search(k))
    for k in removed:
        del env[k]
    return env, removed
