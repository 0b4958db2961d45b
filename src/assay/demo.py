"""`assay demo`: verify the bundled example project in a temp copy and check each verdict against
what the example expects (`assay-expected.toml`), so a fresh install proves itself end to end."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from assay import api
from assay.config import tomllib
from assay.errors import InputError
from assay.languages import LANGUAGES
from assay.model import Report
from assay.pipeline import EventSink


def example_project(name: str = "shop") -> Path:
    """A bundled example: inside the wheel, or in the source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_examples" / name, here.parent.parent / "examples" / name):
        if (candidate / "assay-expected.toml").is_file():
            return candidate
    raise InputError(f"the bundled example project '{name}' is missing from this installation")


@dataclass
class DemoRun:
    report: Report
    surprises: list[str]  # example files whose verdict differs from the expected one
    project: Path  # the temp copy (deleted unless kept)


def surprises(report: Report, expected_file: Path) -> list[str]:
    """Example files whose verdict (or deciding gate) differs from what the example
    project expects."""
    expected = tomllib.loads(expected_file.read_text())["verdicts"]
    seen = {
        f.path: f.verdict.value + (f"@{f.rejected_at}" if f.rejected_at else "")
        for f in report.files
    }
    out = []
    for path, want in expected.items():
        got = seen.get(path, "missing")
        if got != want and got.split("@")[0] != want:
            out.append(f"{path}: expected {want}, got {got}")
    return out


# language -> example
EXAMPLES = {name: lang.example for name, lang in LANGUAGES.items() if lang.example}
_NOT_COPIED = ("__pycache__", ".assay", ".pytest_cache", "node_modules", "target")


def example_for(language: str) -> str:
    """The bundled example project of a language (`assay demo --language go`)."""
    if language not in EXAMPLES:
        raise InputError(f"no example project for '{language}' (examples: {', '.join(EXAMPLES)})")
    return EXAMPLES[language]


def run_demo(keep: bool = False, on_event: EventSink | None = None, name: str = "shop") -> DemoRun:
    source = example_project(name)
    tmp = Path(tempfile.mkdtemp(prefix="assay-demo-"))
    project = tmp / source.name
    shutil.copytree(source, project, ignore=shutil.ignore_patterns(*_NOT_COPIED))
    if (source / "node_modules").is_dir():  # installed by `npm ci`: served read-only, never copied
        (project / "node_modules").symlink_to(source / "node_modules")
    try:
        tests = project / next(
            (lang.example_tests for lang in LANGUAGES.values() if lang.example == name), "."
        )
        report = api.verify([tests], root=project, on_event=on_event)
        return DemoRun(report, surprises(report, project / "assay-expected.toml"), project)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
