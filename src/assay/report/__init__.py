"""Reporters: one module per format and command. A reporter formats a finished report; it never
computes one. Adding a format = one module + one line in the command's table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assay.report import (
    generate_json,
    generate_markdown,
    generate_targets,
    generate_text,
    integrity,
    junit,
    markdown,
    mutation_elements,
    mutation_html,
    mutation_json,
    mutation_text,
    offline_json,
    offline_text,
    prism_html,
    prism_json,
    prism_markdown,
    prism_text,
    sarif,
    smells_json,
    smells_text,
    text,
    verify_json,
    verify_sarif,
)

VERIFY_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": text.render,
    "json": verify_json.render,
    "junit": junit.render,
    "markdown": markdown.render,
    "sarif": verify_sarif.render,
}
MUTATE_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": mutation_text.render,
    "json": mutation_json.render,
    "mutation-testing-elements": lambda report: mutation_elements.render(report.run),
    "html": lambda report: mutation_html.render(report.run),
}
SMELLS_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": smells_text.render,
    "json": smells_json.render,
    "sarif": sarif.render,
}
GENERATE_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": generate_text.render,
    "json": generate_json.render,
    "markdown": generate_markdown.render,
}
INTEGRITY_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": integrity.render_text,
    "json": integrity.render_json,
    "sarif": integrity.render_sarif,
}
TARGETS_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": generate_targets.render_text,
    "json": generate_targets.render_json,
}

# assay prism (issue 12): run reports, and the check and build commands' reports
PRISM_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": prism_text.render,
    "json": prism_json.render,
    "markdown": prism_markdown.render,
    "html": prism_html.render,
}
PRISM_CHECK_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": prism_text.render_check,
    "json": prism_json.render,
}
PRISM_BUILD_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": prism_text.render_build,
    "json": prism_json.render,
}
OFFLINE_FORMATS: dict[str, Callable[[Any], str]] = {
    "text": offline_text.render,
    "json": offline_json.render,
}

# assay generate: per kind of writer report (`report.kind`, writers.base.WriterReport), its formats
# and how the CLI shows it (`present(report, format, output, write, console)`)
WRITER_FORMATS: dict[str, dict[str, Callable[[Any], str]]] = {
    "generate": GENERATE_FORMATS,
    "offline": OFFLINE_FORMATS,
}
WRITER_PRESENTERS: dict[str, Callable[..., None]] = {
    "generate": generate_text.present,
    "offline": offline_text.present,
}
