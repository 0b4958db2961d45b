"""What redaction hides in a test's output: secrets and values the test was not given, never where
things are (the working directory, the home, PATH) nor plain words."""

from __future__ import annotations

from assay.sandbox.environment import Redactor

REAL = {
    "PWD": "/tmp/ciclone/project",
    "OLDPWD": "/home/someone/elsewhere",
    "HOME": "/home/someone",
    "PATH": "/home/someone/.venv/bin:/usr/local/bin:/usr/bin",
    "CI_PROJECT_DIR": "/tmp/ciclone",
    "SHELL_MODE": "interactive",
    "SHORT": "abc1234",
    "DATABASE_URL": "postgres://app:Hunter2-db-pass@db.internal:5432/app",
    "GITHUB_TOKEN": "plain-but-named-token",
    "BUILD_LABEL": "release candidate 7 for the nightly",
    "LANG": "C.UTF-8 with a long tail",
    "_": ".venv/bin/python",  # the shell's last argument, a relative path
}


def test_only_secrets_and_what_the_test_was_not_given_are_redacted():
    given = {"LANG": REAL["LANG"], "GITHUB_TOKEN": REAL["GITHUB_TOKEN"]}
    redact = Redactor(REAL, given.values()).text
    trace = (
        'File "/tmp/ciclone/project/src/app.py", line 3, in /home/someone and /usr/bin '
        "interactive abc1234 C.UTF-8 with a long tail; no module in /tmp/ciclone/.venv/bin/python"
    )
    assert redact(trace) == trace
    assert redact(REAL["DATABASE_URL"]) == "[redacted: DATABASE_URL]"
    assert redact(REAL["GITHUB_TOKEN"]) == "[redacted: GITHUB_TOKEN]"  # given, but named secret
    assert redact("label: " + REAL["BUILD_LABEL"]) == "label: [redacted: BUILD_LABEL]"
