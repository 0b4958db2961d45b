"""pytest plugin (entry point `pytest11`): registers the `assay_generated` marker that
`assay generate` puts on the tests it writes, so that projects running with the marker see no
warning (nor an error under `--strict-markers`). Imports nothing from assay: it loads in every
pytest run of an environment with assay."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "assay_generated(task=None, sprint=None): test written by `assay generate` and "
        "accepted by its gates; task: the task id it was written for, sprint: the sprint "
        "(`assay generate --sprint`; `assay stats` counts what review kept)",
    )
    config.addinivalue_line(
        "markers",
        "characterization: pins what the code does today (the offline writer of "
        "`assay generate`); review before relying on it as a specification",
    )
