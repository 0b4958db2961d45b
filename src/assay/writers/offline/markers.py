"""Whether the project's pytest configuration accepts the marks the offline writer puts on
its tests.

assay registers `assay_generated` and `characterization` itself when it verifies a file (a plugin in
the scratch copy), never in the user's configuration. A project whose configuration turns unknown
marks into errors (`--strict-markers`, or `filterwarnings = error`) would fail to collect the
written file until it registers them, so the writer does not write it there and says what to add;
elsewhere pytest only warns, and the report says so.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from assay.languages.pytest_ini import ini_lines as _lines
from assay.languages.pytest_ini import ini_options as _options

MARKERS = ("assay_generated", "characterization")
REGISTER = (
    'markers = ["assay_generated: written by assay", "characterization: pins current behaviour"] '
    "under [tool.pytest.ini_options]"
)


def warnings_fail(root: Path) -> bool:
    """Whether the project's pytest configuration turns warnings into errors (a test of a call
    that warns would fail there)."""
    return any(
        line.strip() == "error"
        for opts in _options(root)
        for line in _lines(opts.get("filterwarnings"))
    )


def marker_problem(root: Path) -> tuple[str, bool] | None:
    """(what to tell the user, whether collection would fail) when the configuration does not
    register both marks; None when it does."""
    registered: set[str] = set()
    strict = errors = False
    for opts in _options(root):
        for line in _lines(opts.get("markers")):
            registered.add(line.split(":")[0].split("(")[0].strip())
        try:
            addopts = [a for line in _lines(opts.get("addopts")) for a in shlex.split(line)]
        except ValueError:
            addopts = []
        strict |= (
            "--strict-markers" in addopts
            or "--strict" in addopts
            or str(opts.get("strict_markers", opts.get("strict", ""))).lower() in ("true", "1")
        )
        errors |= any(line.strip() == "error" for line in _lines(opts.get("filterwarnings")))
    missing = [m for m in MARKERS if m not in registered]
    if not missing:
        return None
    if strict or errors:
        why = "--strict-markers" if strict else "filterwarnings = error"
        return (
            f"not written: the project's pytest configuration "
            f"({why}) fails on the unregistered marks "
            f"{', '.join(missing)}; register them - {REGISTER} "
            f"- and run again (--dry-run prints the file)",
            True,
        )
    return (
        f"pytest warns about the unregistered marks "
        f"{', '.join(missing)} until the project registers them: "
        f"{REGISTER}",
        False,
    )
