"""Gate 4 for mocha files: Stryker's mocha runner plugin on the project's own mocha
(`stryker_mocha.mjs`). The plugin imports `mocha` from where it is installed (assay's tool
directory, `stryker.home()`): that mocha is not the project's, and the `require` of the project's
`.mocharc` (ts-node/register) resolved from there failed, so a TypeScript mocha file was
`unvalidated` at gate 4."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from assay.languages.mocha import mocha_package
from assay.sandbox.view import hand_over

HERE = Path(__file__).parent


def project_mocha(root: Path, base: Path) -> Path | None:
    """The mocha package of the package at `base` (or of a package above it, up to `root`)."""
    for here in (base, *base.parents):
        exe = here / "node_modules" / ".bin" / "mocha"
        if exe.exists():
            return mocha_package(str(exe))
        if here == root:
            break
    return None


def configure(config: dict[str, Any], own: Path, runner: Path, mocha: Path) -> None:
    """`config`'s plugin for the mocha runner: assay's wrapper (in assay's own directory `own` of
    the copy) of the plugin at `runner` (its `dist/src`), on the project's `mocha`."""
    own.mkdir(exist_ok=True)
    hand_over(own)
    shutil.copyfile(HERE / "stryker_mocha.mjs", own / "mocha.mjs")
    (own / "mocha.json").write_text(json.dumps({"runner": str(runner), "mocha": str(mocha)}))
    hand_over(own / "mocha.mjs", own / "mocha.json")  # Stryker opens them for writing too
    # in place of the plugin itself, which the wrapper loads
    kept = [p for p in config.get("plugins", []) if not p.startswith(str(runner.parent.parent))]
    config["plugins"] = [*kept, str(own / "mocha.mjs")]
