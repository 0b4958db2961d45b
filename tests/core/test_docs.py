"""Docs cite only files that exist in the repository."""

from __future__ import annotations

import re

from tests.conftest import REPO

REPO_PATH = re.compile(r"`((?:src|docs|bench|tests|examples|\.ci)/[\w./-]+)`")
# assay's own modules, in README and docs/ (the bench
MODULE_PATH = re.compile(r"`([\w-]+/[\w./-]+\.py)`")
# README also names files of the projects it measures)
# the demo project's own paths
BASES = (REPO, REPO / "src" / "assay", REPO / "src", REPO / "examples" / "shop")
GENERATED = ("/.cache", "bench/out")  # made by the benches, ignored by git


def test_every_cited_repository_path_exists():
    docs = [REPO / "README.md", REPO / "bench" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    missing = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        # it names files of the projects it measures too: only its own
        if doc.parent.name == "bench":
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


def _layout_block() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1]
    block = section.split("```", 2)[1]
    return block.splitlines()


def test_the_readme_layout_names_every_package_and_module_of_src_assay():
    """One line per package (its name first, ending in `/`); top-level modules named; nothing that
    is gone."""
    package = REPO / "src" / "assay"
    lines = _layout_block()
    start = next(i for i, line in enumerate(lines) if line.startswith("src/assay/"))
    entries = [
        line for line in lines[start + 1 :] if line.startswith("  ") and not line.startswith("   ")
    ]
    named = [tok for line in entries for tok in re.findall(r"[\w.]+\.py|\w+/", line)]
    first = [line.split()[0] for line in entries]
    packages = sorted(f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file())
    modules = sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py")
    assert sorted(f for f in first if f.endswith("/")) == packages
    assert [m for m in modules if m not in named] == []


def test_no_module_of_assay_shadows_the_standard_library():
    import sys

    package = REPO / "src" / "assay"
    shadowing = [
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if p.stem in sys.stdlib_module_names and p.stem not in ("__init__", "__main__")
    ]
    assert shadowing == []


DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# .md files the docs name that assay or a tool writes, not documents of this repository
WRITTEN = {"assay-summary.md", "summary.md", "assay-suspected-bugs.md", "pr.md", "instruction.md"}
WRITTEN |= {"CLAUDE.md", "AGENTS.md", "GEMINI.md", "assay.md"}  # agents' rules files; CI artifacts


def test_every_relative_link_and_named_document_resolves():
    """Markdown links relative to their document; a named `X.md` beside it, at the root or in
    docs/."""
    missing = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            path = target.split("#")[0]
            if path and not re.match(r"[a-z]+:", path) and not (doc.parent / path).exists():
                missing.append(f"{doc.relative_to(REPO)}: {target}")
        for name in set(re.findall(r"(?<![\w/.-])([\w./-]+\.md)\b", text)) - WRITTEN:
            if not any((base / name).exists() for base in (doc.parent, REPO, REPO / "docs")):
                missing.append(f"{doc.relative_to(REPO)}: {name}")
    assert missing == []


# options of other tools that the docs quote (pytest, cargo, dotnet, go, dask, ...)
FOREIGN_OPTIONS = {
    "--check", "--exact", "--filter", "--json", "--junitxml", "--lib", "--message-format",
    "--no-build", "--no-restore", "--no-run", "--nthreads", "--offline", "--port", "--print",
    "--prefix", "--randomize", "--reporter", "--select-class", "--select-method", "--sequence",
    "--shuffle-seed", "--strict-markers", "--test", "--test-reporter", "--test-threads",
    "--ignore",  # pytest's, in a project's addopts (README)
    "--assay",  # pytest's, from assay's plugin (docs/agents.md)
    # mocha's (docs/languages.md)
    "--check-leaks", "--parallel", "--spec", "--extension", "--recursive",
    # bubblewrap, firejail, nsjail, Docker (docs/sandbox.md compares them)
    "--memory", "--net", "--network", "--pids-limit", "--security-opt", "--uid", "--unshare-net",
    "--unshare-user", "--user", "--disable-userns", "--overlay",
}  # fmt: skip


def test_every_option_the_docs_name_is_one_of_assays():
    """`--out-dir` in the docs while the CLI says `--output-dir` sends users to a usage error."""
    import typer

    from assay.cli import app, load_commands

    load_commands()

    known = set()
    commands = [typer.main.get_command(app)]
    while commands:
        command = commands.pop()
        known.update(o for p in command.params for o in [*p.opts, *p.secondary_opts])
        commands += getattr(command, "commands", {}).values()
    unknown = [
        f"{doc.relative_to(REPO)}: {option}"
        for doc in DOCS
        for option in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", doc.read_text())))
        if option not in known | FOREIGN_OPTIONS
    ]
    assert unknown == []
