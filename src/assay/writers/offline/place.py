"""Where a generated test file goes, and writing it without ever overwriting a file.

Next to the module's existing tests (the directory holding most test files that import it), else the
project's `tests/` (or `test/`) directory, else a new `tests/`. The name is
`test_<module>_characterization.py`, numbered when taken; the file is created exclusively, so a file
that appeared meanwhile is never overwritten.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path, PurePosixPath

from assay.errors import InputError
from assay.project import Project
from assay.writers.offline.mine import project_test_files


def tests_dir(project: Project, rel: str) -> str:
    """Project-relative directory of the module's tests."""
    counts: Counter[str] = Counter()
    for path in project_test_files(project.root):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        test_rel = path.relative_to(project.root).as_posix()
        if rel in project.targets_of(text, test_rel):
            counts[PurePosixPath(test_rel).parent.as_posix()] += 1
    if counts:
        return counts.most_common(1)[0][0]
    for name in ("tests", "test"):
        if (project.root / name).is_dir():
            return name
    return "tests"


def path_for(project: Project, rel: str, dotted: str, out_dir: str | None = None) -> str:
    """A free project-relative path for the module's characterization tests."""
    directory = out_dir if out_dir is not None else tests_dir(project, rel)
    stem = dotted.split(".")[-1] or PurePosixPath(rel).stem
    base = f"test_{stem}_characterization"
    n = 1
    while True:
        name = f"{base}.py" if n == 1 else f"{base}_{n}.py"
        candidate = (PurePosixPath(directory) / name).as_posix().removeprefix("./")
        if not (project.root / candidate).exists():
            return candidate
        n += 1


def out_dir_rel(project: Project, out_dir: Path | str) -> str:
    """`--out-dir` as a project-relative directory; it must lie inside the project and outside
    its packages."""
    path = Path(out_dir)
    path = path if path.is_absolute() else Path.cwd() / path
    rel = project.rel(path)
    package_dirs = {
        PurePosixPath(p).parent.as_posix()
        for p in project.modules.values()
        if p.endswith("__init__.py")
    }
    if rel in package_dirs and not any(
        part in ("tests", "test") for part in PurePosixPath(rel).parts
    ):
        raise InputError(f"--out-dir {out_dir} is a source package, not a test directory")
    return "" if rel == "." else rel


def write_new(root: Path, rel: str, text: str) -> None:
    """Create the file; an existing file (even one that appeared a moment ago) is
    never overwritten."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
