"""The environment a sandboxed run starts from, and what of the user's environment its output may
not carry.

Allow-list, not block-list: a test gets PATH, LANG, LANGUAGE, LC_*, TZ, the variables its toolchain
reads (`Profile.passes`: JAVA_HOME, GOROOT ...) and those the user names (`sandbox.env`); nothing
else (no DATABASE_URL, no NPM_AUTH, no OLDPWD). Even an allowed variable is withheld when its value
is credential-shaped (a URL with user:password, a known token format, a long random-looking
string), and one whose name says secret unless the user named it. Whatever a test prints is then
`Redactor`-ed before it reaches a report, the cache, feedback or a prompt: a secret-looking value
of the real environment, or one of a variable the test was not given (8 characters or more, not a
path, not a plain word), becomes `[redacted: NAME]`.
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
ALLOWED = ("PATH", "LANG", "LANGUAGE", "LC_*", "TZ")
_CREDENTIAL = re.compile(
    r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@"  # a URL with user:password
    r"|\b(gh[pousr]_|github_pat_|glpat-|xox[abprs]-|sk-|sk_live_|rk_live_|npm_)[A-Za-z0-9_-]{16,}"
    r"|\b(AKIA|ASIA)[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY|\beyJ[A-Za-z0-9_-]{10,}\.eyJ|_authToken=|\bBearer \S{12,}",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9+/=_.~-]{24,}")
MIN_REDACTED = 8


def _random_looking(value: str) -> bool:
    """A long single token of mixed case and digits (or long hex) with high entropy: an API key
    whose format we do not know."""
    if not _TOKEN.fullmatch(value) or value.startswith("/"):
        return False
    hexish = re.fullmatch(r"[0-9a-fA-F]{32,}", value) is not None
    mixed = all(re.search(p, value) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return hexish or (mixed and entropy >= 3.5)


def credential_shaped(value: str) -> bool:
    """Whether a value looks like a credential, whatever its variable is called."""
    return bool(_CREDENTIAL.search(value)) or _random_looking(value)


@dataclass(frozen=True)
class SandboxEnv:
    """The variables passed to tests, and the names of those withheld."""

    env: dict[str, str]
    withheld: list[str]


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def allowed_env(
    base: Mapping[str, str] | None = None,
    passes: Iterable[str] = (),
    named: Iterable[str] = (),
) -> SandboxEnv:
    """The allow-listed part of `base` (default: this process's environment): ALLOWED, a
    toolchain's `passes`, what the user `named` (names or fnmatch patterns); credential-shaped
    values dropped."""
    source = dict(os.environ if base is None else base)
    named = tuple(named)
    patterns = (*ALLOWED, *passes, *named)
    env = {}
    for name, value in source.items():
        if not _matches(name, patterns) or credential_shaped(value):
            continue
        if SECRET_NAME.search(name) and not _matches(name, named):
            continue
        env[name] = value
    return SandboxEnv(env, sorted(set(source) - set(env)))


def scrubbed_env(base: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """`allowed_env` with nothing toolchain- or user-specific: (passed, withheld names)."""
    got = allowed_env(base)
    return got.env, got.withheld


# Never redacted: where things are (a traceback names the working directory, the home, the
# interpreter) says nothing secret, and redacting it made every path in a report unreadable.
NEVER_REDACTED = ("PWD", "OLDPWD", "HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM")
# absolute or relative (`.venv/bin/python`, the shell's `$_`): a path names where, not what
_PATHS = re.compile(r"(?:[~/]|[\w.-]+/)[^\s:@]*(:[~/][^\s:@]*)*")


def _secret(name: str, value: str) -> bool:
    return bool(SECRET_NAME.search(name)) or credential_shaped(value)


class Redactor:
    """Replaces, in any text, the values of the real environment that must not reach a report:
    every secret-looking one (credential-shaped, or of a variable named *TOKEN*, *KEY* ...), and
    those of variables the test was not given; never a path, a short value or a plain word."""

    def __init__(self, real: Mapping[str, str], given: Iterable[str]):
        given_values = set(given)
        secrets: dict[str, str] = {}
        for name, value in real.items():
            value = value.strip()
            if len(value) < MIN_REDACTED or name in NEVER_REDACTED:
                continue
            if not _secret(name, value) and (
                value in given_values
                or _PATHS.fullmatch(value)
                or re.fullmatch(r"[A-Za-z]{1,15}|[0-9.]+", value)
            ):
                continue
            secrets.setdefault(value, name)
        self._names = secrets
        ordered = sorted(secrets, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def text(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda m: f"[redacted: {self._names[m.group(0)]}]", text)

    def tree(self, data: Any) -> Any:
        """`text` over every string of a JSON-shaped value (dicts, lists)."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {k: self.tree(v) for k, v in data.items()}
        if isinstance(data, list):
            return [self.tree(v) for v in data]
        return data


def venv_path(env: dict[str, str], python: str) -> dict[str, str]:
    """`env` with the scripts directory of `python`'s virtual environment first on PATH, as its
    activation does: a test that runs the project's own console script (glom's `glom`) finds it
    where `pip install -e .` put it, not only when the caller happened to activate the venv."""
    scripts = Path(python).parent
    if not python or not (scripts.parent / "pyvenv.cfg").is_file():
        return env
    path = env.get("PATH", "")
    if str(scripts) in path.split(os.pathsep):
        return env
    return {**env, "PATH": os.pathsep.join([str(scripts), *([path] if path else [])])}
