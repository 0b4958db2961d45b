"""The HTML report of `assay mutate`: the mutation-testing-elements web component (the viewer
StrykerJS and PIT's plugin use), vendored in `templates/mutation-testing-elements/` and inlined with
the run's MTE JSON into one page that opens offline: files, mutants and tests views, filters.

The JSON is embedded in a `<script type="application/json">` block with every `<` escaped, so the
user's source cannot close the block or inject markup.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from assay.mutation.model import MutationResult
from assay.report.mutation_elements import elements

VENDORED = Path(__file__).parent / "templates" / "mutation-testing-elements"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>assay mutate</title>
<script>{bundle}</script>
</head>
<body>
<mutation-test-report-app title-postfix="assay"></mutation-test-report-app>
<script type="application/json" id="assay-report">{report}</script>
<script>
document.querySelector("mutation-test-report-app").report =
  JSON.parse(document.getElementById("assay-report").textContent);
</script>
</body>
</html>
"""


@lru_cache(maxsize=1)
def _bundle() -> str:
    return (VENDORED / "mutation-test-elements.js").read_text(encoding="utf-8")


def render(run: MutationResult) -> str:
    report = json.dumps(elements(run)).replace("<", "\\u003c")
    return PAGE.replace("{report}", report).replace("{bundle}", _bundle())
