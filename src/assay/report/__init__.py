"""Reporters: one module per format. A reporter formats a finished result; it never computes one."""

from __future__ import annotations

from collections.abc import Callable

from assay.model import Report
from assay.report import junit, markdown, text, verify_json

VERIFY_FORMATS: dict[str, Callable[[Report], str]] = {
    "text": text.render,
    "json": verify_json.render,
    "junit": junit.render,
    "markdown": markdown.render,
}
