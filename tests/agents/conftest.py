"""One pull-request-like project for the whole directory: the first test to verify it fills its
cache, the others get the same verdicts from it in a fraction of the time (they check what is
done with the verdicts, not the gates)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.fixture import pull_request


@pytest.fixture(scope="session")
def calc_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pull_request(tmp_path_factory.mktemp("pr"))
