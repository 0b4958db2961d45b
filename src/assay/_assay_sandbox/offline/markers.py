"""pytest plugin (`-p _assay_sandbox.offline.markers`): registers the markers the offline writer
puts on its tests, so that verifying them in the scratch copy raises no unknown-marker warning (nor
an error under `--strict-markers`) without touching the user's configuration."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "assay_generated: test written by assay and accepted by its gates"
    )
    config.addinivalue_line(
        "markers", "characterization: pins the code's current behaviour, not its specification"
    )
