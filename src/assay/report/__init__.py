"""Reporters: one module per format and command. A reporter formats a finished report; it never
computes one. Adding a format = one module + one line in the command's table."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


class _Lazy:
    """`module.name` of this package, imported on the first call: a command loads only the
    reporters of the formats it writes (each format pulls in its own libraries)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(f"assay.report.{self.module}"), self.name)(
            *args, **kwargs
        )


VERIFY_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("text", "render"),
    "json": _Lazy("verify_json", "render"),
    "junit": _Lazy("junit", "render"),
    "markdown": _Lazy("markdown", "render"),
    "sarif": _Lazy("verify_sarif", "render"),
}
MUTATE_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("mutation_text", "render"),
    "json": _Lazy("mutation_json", "render"),
    "mutation-testing-elements": lambda report: _Lazy("mutation_elements", "render")(report.run),
    "html": lambda report: _Lazy("mutation_html", "render")(report.run),
}
SMELLS_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("smells_text", "render"),
    "json": _Lazy("smells_json", "render"),
    "sarif": _Lazy("sarif", "render"),
}
GENERATE_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("generate_text", "render"),
    "json": _Lazy("generate_json", "render"),
    "markdown": _Lazy("generate_markdown", "render"),
}
INTEGRITY_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("integrity", "render_text"),
    "json": _Lazy("integrity", "render_json"),
    "sarif": _Lazy("integrity", "render_sarif"),
}
TARGETS_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("generate_targets", "render_text"),
    "json": _Lazy("generate_targets", "render_json"),
}

# assay prism (issue 12): run reports, and the check and build commands' reports
PRISM_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("prism_text", "render"),
    "json": _Lazy("prism_json", "render"),
    "markdown": _Lazy("prism_markdown", "render"),
    "html": _Lazy("prism_html", "render"),
}
PRISM_CHECK_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("prism_text", "render_check"),
    "json": _Lazy("prism_json", "render"),
}
PRISM_BUILD_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("prism_text", "render_build"),
    "json": _Lazy("prism_json", "render"),
}
OFFLINE_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _Lazy("offline_text", "render"),
    "json": _Lazy("offline_json", "render"),
}

# assay generate: per kind of writer report (`report.kind`, writers.base.WriterReport), its formats
# and how the CLI shows it (`present(report, format, output, write, console)`)
WRITER_FORMATS: dict[str, dict[str, Callable[[Any], str]]] = {
    "generate": GENERATE_FORMATS,
    "offline": OFFLINE_FORMATS,
}
WRITER_PRESENTERS: dict[str, Callable[..., None]] = {
    "generate": _Lazy("generate_text", "present"),
    "offline": _Lazy("offline_text", "present"),
}
