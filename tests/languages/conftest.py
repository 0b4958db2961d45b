"""The language examples (`examples/<lang>`), each verified once per session in a temp copy, all
four at once (their toolchains mostly wait on process start-up), when `test_verdicts.py` first asks:
started with the directory's first test instead, they ran on every pytest-xdist worker that ran a
test here, a minute of CPU each, read by one."""

from __future__ import annotations

import hashlib
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from assay import api
from assay.config import Settings
from assay.model import Report
from assay.pipeline import build_gates
from assay.sandbox import RunResult, Sandbox
from tests.conftest import REPO

EXAMPLES = {"java": "java", "go": "go", "rust": "rust", "typescript": "ts"}


def price_crate(root: Path, manifest: str, tests: dict[str, str]) -> Path:
    """A crate `price` (`add` in src/lib.rs) with `manifest` and the given files under tests/;
    skips when cargo is absent."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "Cargo.toml").write_text(manifest)
    (root / "src/lib.rs").write_text("pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n")
    for name, text in tests.items():
        (root / "tests" / name).write_text(text)
    return root


def tool_missing(lang: str) -> str | None:
    """Why gate 4's tool for `lang` cannot run here (`.ci/toolchains` installs it), or None."""
    from assay.mutation.tools import pit, stryker

    if lang == "java" and not (Path.home() / ".m2/repository/org/pitest/pitest-maven").is_dir():
        return f"PIT not in ~/.m2: {pit.FETCH}"
    if lang in ("typescript", "javascript") and not (stryker.home() / "node_modules").is_dir():
        return f"StrykerJS not installed: {stryker.install_command()}"
    if lang == "rust" and shutil.which("cargo-mutants") is None:
        return "cargo-mutants not installed (.ci/toolchains builds it)"
    return None


def copy_example(name: str, dest: Path) -> Path:
    """A temp copy of an example project; its `node_modules` (from `npm ci`) linked,
    never copied."""
    source = REPO / "examples" / name
    project = dest / name
    shutil.copytree(
        source, project, ignore=shutil.ignore_patterns("node_modules", "target", ".assay")
    )
    if (source / "node_modules").is_dir():
        (project / "node_modules").symlink_to(source / "node_modules")
    return project


def digest(root: Path) -> dict[str, str]:
    """Every file of a project (its linked node_modules and assay's .assay left out) with its
    content hash."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("node_modules", ".assay") or not path.is_file():
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


class Examples:
    """Futures of each example's report, started together on first use."""

    def __init__(self, base: Path):
        self.base = base
        self.pool = ThreadPoolExecutor(max_workers=len(EXAMPLES))
        self.runs: dict[str, tuple[Path, Future[Report]]] = {}
        self.before: dict[str, dict[str, str]] = {}  # each copy's files before its run

    def start(self) -> None:
        for lang, name in EXAMPLES.items():
            project = copy_example(name, self.base)
            self.before[lang] = digest(project)
            overrides: dict = {"jobs": 2}
            if tool_missing(lang):  # its file would be `unvalidated` at gate 4, as it should
                # every gate a default run has (`Settings().gates` is None: "all of them") but 4
                gates = build_gates(Settings())
                overrides["gates"] = [g.name for g in gates if g.name != "mutation"]
            self.runs[lang] = (
                project,
                self.pool.submit(
                    api.verify, [project], root=project, use_cache=False, overrides=overrides
                ),
            )

    def report(self, lang: str) -> tuple[Path, Report]:
        if not self.runs:
            self.start()
        project, future = self.runs[lang]
        return project, future.result(timeout=280)


@pytest.fixture(scope="session")
def examples(tmp_path_factory) -> Examples:
    ex = Examples(tmp_path_factory.mktemp("language-examples"))
    yield ex
    ex.pool.shutdown(wait=True)


class RecordingSandbox(Sandbox):
    """The real sandbox, keeping the commands it ran."""

    commands: list[list[str]]

    def run(self, argv: list[str], *args, **kwargs) -> RunResult:  # type: ignore[no-untyped-def]
        self.commands = [*getattr(self, "commands", []), argv]
        return super().run(argv, *args, **kwargs)
