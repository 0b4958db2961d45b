"""Docs cite only files that exist in the repository."""

from __future__ import annotations

import re

from tests.conftest import REPO

REPO_PATH = re.compile(r"`((?:src|docs|bench|tests|examples|\.ci)/[\w./-]+)`")
MODULE_PATH = re.compile(r"`([\w-]+/[\w./-]+\.py)`")  # assay's own modules, in README and docs/ (the bench
# README also names files of the projects it measures)
BASES = (REPO, REPO / "src" / "assay", REPO / "src", REPO / "examples" / "shop")  # the demo project's own paths
GENERATED = ("/.cache", "bench/out")  # made by the benches, ignored by git


def test_every_cited_repository_path_exists():
    docs = [REPO / "README.md", REPO / "bench" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    missing = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        if doc.parent.name == "bench":  # it names files of the projects it measures too: only its own
            found = [p for p in REPO_PATH.findall(text) if p.startswith(("bench/", "docs/"))]
        else:
            found = [*REPO_PATH.findall(text), *MODULE_PATH.findall(text)]
        for cited in found:
            path = cited.split("::")[0].rstrip("/")
            if "*" in path or "<" in path or any(g in path for g in GENERATED):
                continue
            if not any((base / path).exists() for base in BASES):
                missing.append(f"{doc.relative_to(REPO)}: {path}")
    assert missing == []
