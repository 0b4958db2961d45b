"""The offline writer's report as JSON (`OfflineReport.to_json`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the writer's code is not what a reporter of other commands should import
    from assay.writers.offline import OfflineReport


def render(report: OfflineReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"
