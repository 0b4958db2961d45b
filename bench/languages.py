"""Per language example (`examples/<lang>`): gate 1 cold (a fresh scratch copy) and warm (the same
copy, the file rewritten as a repair would), the whole `verify` of the good file, and the compiler's
raw output lines against the feedback lines sent for the non-compiling file. Run by hand:
`python bench/languages.py`."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from assay import api
from assay.config import Settings
from assay.execution.workspace import Workspace
from assay.languages import LANGUAGES
from assay.project import Project
from assay.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
GOOD = {
    "java": "src/test/java/com/acme/PriceTest.java",
    "go": "price/price_test.go",
    "rust": "tests/price.rs",
    "typescript": "test/price.test.ts",
}
TYPO = {
    "java": "src/test/java/com/acme/PriceTypoTest.java",
    "go": "price/typo_test.go",
    "rust": "tests/typo.rs",
    "typescript": "test/typo.test.ts",
}
DIRS = {"java": "java", "go": "go", "rust": "rust", "typescript": "ts"}


def copy(name: str, dest: Path) -> Path:
    source = REPO / "examples" / name
    project = dest / name
    shutil.copytree(
        source, project, ignore=shutil.ignore_patterns("node_modules", "target", ".assay")
    )
    if (source / "node_modules").is_dir():
        (project / "node_modules").symlink_to(source / "node_modules")
    return project


def measure(lang: str, tmp: Path) -> dict:
    root = copy(DIRS[lang], tmp)
    settings = Settings(cache=False)
    language = LANGUAGES[lang]
    project = Project.load(root)
    profile = language.profile_for(project)
    runner = language.runner(Sandbox(settings.sandbox, root), project, settings)
    with Workspace(root, links=profile.links, keep=profile.keep) as ws:
        cold = runner.compile(ws, [GOOD[lang]])
        ws.reset()
        # a repaired answer: the file changed
        ws.apply({GOOD[lang]: (root / GOOD[lang]).read_text() + "\n"})
        warm = runner.compile(ws, [GOOD[lang]])
        ws.reset()
        ws.apply({TYPO[lang]: (root / TYPO[lang]).read_text()})
        typo = runner.compile(ws, [TYPO[lang]])
    start = time.monotonic()
    report = api.verify([root / GOOD[lang]], root=root, settings=settings)
    whole = time.monotonic() - start
    bad = api.verify([root / TYPO[lang]], root=root, settings=settings).files[0].gates[0].feedback
    assert cold.ok and warm.ok, (cold, warm)
    return {
        "lang": lang,
        "cold": cold.duration_s,
        "warm": warm.duration_s,
        "verify": whole,
        "verdict": report.files[0].verdict.value,
        "raw": typo.raw_lines,
        "sent": len(bad.splitlines()) - 2,
    }


def main() -> None:
    langs = sys.argv[1:] or list(GOOD)
    print(
        "| language | gate 1 cold | gate 1 warm | verify "
        "good file | verdict | raw compiler lines | feedback "
        "lines sent |\n|---|---:|---:|---:|---|---:|---:|"
    )
    for lang in langs:
        with tempfile.TemporaryDirectory() as tmp:
            r = measure(lang, Path(tmp))
        print(
            f"| {r['lang']} | {r['cold']:.1f} s | {r['warm']:.1f} "
            f"s | {r['verify']:.1f} s | {r['verdict']} | "
            f"{r['raw']} | {r['sent']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
