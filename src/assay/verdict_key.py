"""What a file's cached verdict is keyed by, and which verdicts may be kept."""

from __future__ import annotations

import hashlib
from pathlib import Path

from assay.config import Settings
from assay.languages import Language
from assay.model import Candidate, FileReport, Verdict
from assay.project import Project
from assay.version import build

CONFIG_FILES = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "assay.toml")


def cache_key(
    project: Project,
    candidate: Candidate,
    settings: Settings,
    toolchain: str,
    language: Language | None = None,
) -> str:
    """Hash of the test file, its targets (transitively), conftests, test config, settings
    and versions, and what the language says the verdict depends on (a module's sources and
    build files)."""
    h = hashlib.sha256()
    h.update(f"{build()}\0{settings.fingerprint()}\0{toolchain}\0{candidate.rel}\0".encode())
    h.update(candidate.source.encode())
    if candidate.changed is not None:  # diff scope: the mutants gate 4 counts
        h.update(repr(sorted(candidate.changed.items())).encode())
    extra = [Path(candidate.rel).parent / "conftest.py"]
    extra += [p / "conftest.py" for p in Path(candidate.rel).parents]
    # a file that imports no project module is judged on the modules its tests reach: any of them
    reach = candidate.targets or sorted(project.modules.values())
    files = project.closure(reach) + [p.as_posix() for p in extra] + list(CONFIG_FILES)
    # a helper module of the test directories that runs the project for the file's tests
    if helper := project.helper_of(candidate.source, candidate.rel):
        files.append(helper)
    if language is not None:
        files += [f for f in language.cache_inputs(project, candidate.rel) if f != candidate.rel]
    for rel in dict.fromkeys(files):
        path = project.root / rel
        if path.is_file():
            h.update(f"\0{rel}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def cacheable(report: FileReport) -> bool:
    """An `unvalidated` verdict is never kept, nor one that an environment gap left partly
    unjudged: the next run judges again (after `pip install`, or with the toolchain found)."""
    return report.verdict is not Verdict.UNVALIDATED and not any(
        g.details.get("environment") for g in report.gates
    )
