"""Gate 4 for tape files: StrykerJS with assay's test runner plugin (`stryker_tape.mjs`).

Through Stryker's command runner every mutant was a process (`sh`, `node --test`, its child, tape
and every package the file loads: 0.3 s of CPU on qs's `test/utils.js`, whose 773 mutants then
passed the 600 s limit under load). The plugin runs the file in Stryker's own worker instead:
tape and the packages stay loaded; the project's own modules and tape's harness are loaded afresh
for each mutant (the mutant switched on first, so code run at load is mutated too). It also gives
Stryker coverage per top-level tape test (`coverageAnalysis: perTest`): a mutant runs only the
tests that reach it, one no test reaches is NoCoverage without a run, and a mutant looping for
ever is stopped by Stryker's hit limit, a count that load does not stretch.

What a process per mutant gave for free is kept by the plugin: a worker whose run changed a
built-in or left something throwing is replaced before its next run.

Only for CommonJS (`require`): node cannot unload an ES module, so a file or target that is one,
or a test that imports dynamically, stays on the command runner; so does a tape without
`getHarness({exit: false, stream})` (tape 4.x and 5.x have it).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.languages.node import package_json
from assay.sandbox.view import hand_over

NAME = "assay-tape"
HERE = Path(__file__).parent
_REQUIRES_TAPE = re.compile(r"""\brequire\(\s*['"]tape['"]\s*\)""")
_ESM = re.compile(r"""\bimport\s*\(|^\s*import\s|^\s*export\s""", re.MULTILINE)


def fits(root: Path, module: str, tests: Sequence[str], targets: Sequence[str]) -> bool:
    """Whether the project-relative `tests` are tape files the plugin can run: CommonJS tests
    requiring tape, CommonJS targets, and a tape with the harness options it uses."""
    esm_package = package_json(root, module).get("type") == "module"

    def commonjs(rel: str) -> bool:
        return rel.endswith(".cjs") or (rel.endswith(".js") and not esm_package)

    if not tests or not all(commonjs(f) for f in (*tests, *targets)):
        return False
    for rel in tests:
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        if not _REQUIRES_TAPE.search(text) or _ESM.search(text):
            return False
    return _tape_ok(root, root / tests[0])


def _tape_ok(root: Path, test: Path) -> bool:
    """The tape that `require('tape')` in `test` resolves to takes `exit: false` and a stream."""
    here = test.parent
    while True:
        entry = here / "node_modules" / "tape" / "index.js"
        if entry.is_file():
            text = entry.read_text(encoding="utf-8", errors="replace")
            return "getHarness" in text and "exit === false" in text
        if here == root or here.parent == here:
            return False
        here = here.parent


def configure(config: dict[str, Any], own: Path, tests: list[Path]) -> None:
    """Stryker's options for the plugin on the absolute test files `tests`; the plugin and its
    file list go into assay's own directory `own` of the copy."""
    shutil.copyfile(HERE / "stryker_tape.mjs", own / "tape.mjs")
    (own / "tape.json").write_text(json.dumps({"files": [str(t) for t in tests]}), "utf-8")
    hand_over(own / "tape.mjs", own / "tape.json")  # Stryker opens them for writing too
    config.pop("commandRunner", None)
    config["testRunner"] = NAME
    config["coverageAnalysis"] = "perTest"
    config["plugins"] = [*config.get("plugins", []), str(own / "tape.mjs")]
