"""Panel tasks on disk: `task.toml`, `original/`, the reference, correct and faulty members,
the validator.

Loading never raises on a bad task: the task comes back with `problem` (one line) and is reported
`invalid`, so one broken task never stops a benchmark. Every member is turned into *overlays* over
`original/` (`{rel: bytes or None}`), whether it is a full tree or a patch: one scratch copy of
`original/` then serves every member of a task, and patches are applied (and checked) once, here, in
the parent.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from assay.execution.workspace import MAX_FILE_BYTES, SKIP_DIRS
from assay.prism import patch as patches

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KEYS = {
    "id",
    "language",
    "category",
    "test_command",
    "suite_dest",
    "timeout_s",
    "entry_points",
    "validator",
}
DEFAULT_SUITE_DEST = "tests/prism_suite"
DEFAULT_TIMEOUT_S = 120.0
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
ENTRY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class TaskProblem(Exception):
    """What makes a task invalid, in one line."""


@dataclass
class Member:
    """One implementation of a task: `role` original | reference | correct | faulty."""

    role: str
    name: str
    source: Path  # the tree or the .patch file
    overlays: dict[str, bytes | None] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.role if self.role in ("original", "reference") else f"{self.role}/{self.name}"

    @property
    def digest(self) -> str:
        h = hashlib.sha256()
        for rel in sorted(self.overlays):
            content = self.overlays[rel]
            h.update(
                rel.encode()
                + b"\0"
                + (b"-" if content is None else hashlib.sha256(content).digest())
            )
        return h.hexdigest()[:20]


@dataclass
class Task:
    dir: Path
    id: str
    language: str = "python"
    category: str = "uncategorized"
    test_command: str | None = None
    suite_dest: str = DEFAULT_SUITE_DEST
    timeout_s: float = DEFAULT_TIMEOUT_S
    entry_points: list[str] = field(default_factory=list)
    validator: Path | None = None
    problem: str | None = None
    original_files: dict[str, str] = field(default_factory=dict)  # rel -> content hash
    reference: Member | None = None
    correct: list[Member] = field(default_factory=list)
    faulty: list[Member] = field(default_factory=list)

    @property
    def original(self) -> Path:
        return self.dir / "original"

    @property
    def panel(self) -> list[Member]:
        """Every member the suite runs on, original first."""
        assert self.reference is not None
        return [
            Member("original", "original", self.original),
            self.reference,
            *self.correct,
            *self.faulty,
        ]

    @property
    def digest(self) -> str:
        """What a cached run of this task depends on besides the member and the suite."""
        h = hashlib.sha256(
            repr((self.language, self.test_command, self.suite_dest, self.timeout_s)).encode()
        )
        for rel in sorted(self.original_files):
            h.update(f"{rel}\0{self.original_files[rel]}\0".encode())
        return h.hexdigest()[:20]

    def original_text(self, rel: str) -> str | None:
        if rel not in self.original_files:
            return None
        try:
            return (self.original / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def text_of(self, member: Member, rel: str) -> str | None:
        """A file's text in a member's tree (None: absent or not text)."""
        if rel in member.overlays:
            data = member.overlays[rel]
            try:
                return None if data is None else data.decode("utf-8")
            except UnicodeDecodeError:
                return None
        return self.original_text(rel)


def walk_files(root: Path) -> list[str]:
    """Project-relative files of a tree, leaving out what a workspace does not copy either."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS
            and not d.endswith(".egg-info")
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
        )
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or os.path.getsize(path) > MAX_FILE_BYTES:
                continue
            found.append(os.path.relpath(path, root).replace(os.sep, "/"))
    return found


def _hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:20]


def _settings(task: Task, data: dict[str, Any]) -> None:
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise TaskProblem(
            f"task.toml: unknown key '{unknown[0]}' (known: {', '.join(sorted(KEYS))})"
        )
    for key in ("id", "language", "category", "test_command", "suite_dest", "validator"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            raise TaskProblem(f"task.toml: '{key}' must be a non-empty string")
    task.id = data.get("id", task.id)
    task.language = data.get("language", task.language)
    task.category = data.get("category", task.category)
    task.test_command = data.get("test_command")
    raw_dest = data.get("suite_dest", DEFAULT_SUITE_DEST)
    dest = PurePosixPath(raw_dest)
    if dest.is_absolute() or ".." in dest.parts or not dest.parts:
        raise TaskProblem(f"task.toml: suite_dest '{raw_dest}' must be a directory inside the tree")
    task.suite_dest = dest.as_posix()
    timeout = data.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise TaskProblem("task.toml: 'timeout_s' must be a positive number of seconds")
    task.timeout_s = float(timeout)
    entries = data.get("entry_points", [])
    if not isinstance(entries, list) or not all(
        isinstance(e, str) and ENTRY.match(e) for e in entries
    ):
        raise TaskProblem(
            "task.toml: 'entry_points' must be a list of 'module.path:qualname' strings"
        )
    task.entry_points = entries
    if "validator" in data:
        validator = task.dir / data["validator"]
        if not validator.is_dir():
            raise TaskProblem(f"validator directory '{data['validator']}' does not exist")
        task.validator = validator
    elif (task.dir / "validator").is_dir():
        task.validator = task.dir / "validator"


def _tree_overlays(task: Task, tree: Path) -> dict[str, bytes | None]:
    """A full-tree member as overlays: files it adds or changes, None for files of original/
    it lacks."""
    overlays: dict[str, bytes | None] = {}
    mine = walk_files(tree)
    for rel in mine:
        data = (tree / rel).read_bytes()
        if task.original_files.get(rel) != hashlib.sha256(data).hexdigest()[:20]:
            overlays[rel] = data
    overlays.update({rel: None for rel in set(task.original_files) - set(mine)})
    return overlays


def _patch_overlays(task: Task, patch_file: Path, label: str) -> dict[str, bytes | None]:
    try:
        text = patch_file.read_text(encoding="utf-8")
        changed = patches.apply(text, reader=task.original_text)
    except UnicodeDecodeError:
        raise TaskProblem(f"{label}: {patch_file.name} is not UTF-8 text") from None
    except patches.PatchError as err:
        raise TaskProblem(f"{label}: {patch_file.name} does not apply: {err}") from None
    out: dict[str, bytes | None] = {}
    for rel, new in changed.items():
        rel_path = Path(rel)
        if rel_path.is_absolute() or ".." in rel_path.parts:
            raise TaskProblem(f"{label}: {patch_file.name} writes outside the tree ({rel})")
        out[rel] = None if new is None else new.encode("utf-8")
    return out


def _member(task: Task, role: str, name: str, source: Path) -> Member:
    """A member from a full tree, a `.patch` file, or a directory holding only one `.patch` file."""
    label = role if role == "reference" else f"{role}/{name}"
    if source.is_dir():
        entries = [p for p in source.iterdir() if not p.name.startswith(".")]
        if len(entries) == 1 and entries[0].is_file() and entries[0].suffix == ".patch":
            source = entries[0]
        elif not walk_files(source):
            raise TaskProblem(f"{label}: the directory is empty")
    if source.is_file():
        return Member(role, name, source, _patch_overlays(task, source, label))
    return Member(role, name, source, _tree_overlays(task, source))


def _side(task: Task, role: str) -> list[Member]:
    base = task.dir / role
    if not base.is_dir():
        raise TaskProblem(f"no {role} implementations: {role}/ is missing")
    members: dict[str, Member] = {}
    for entry in sorted(base.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix != ".patch":
            raise TaskProblem(f"{role}/{entry.name}: neither a directory nor a .patch file")
        name = entry.stem if entry.is_file() else entry.name
        if not NAME.match(name):
            raise TaskProblem(f"{role}/{entry.name}: names are letters, digits, '.', '_' and '-'")
        if name in members:
            raise TaskProblem(f"{role}/{name}: given twice (a directory and a .patch)")
        members[name] = _member(task, role, name, entry)
    if not members:
        raise TaskProblem(f"no {role} implementations: {role}/ is empty")
    return list(members.values())


def load_task(directory: Path) -> Task:
    """A task from its directory; `problem` says why it is invalid, if it is."""
    task = Task(dir=directory.resolve(), id=directory.name)
    try:
        toml = task.dir / "task.toml"
        if not toml.is_file():
            raise TaskProblem("missing task.toml")
        try:
            data = tomllib.loads(toml.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise TaskProblem(f"task.toml is not valid TOML: {err}") from None
        _settings(task, data)
        if not task.original.is_dir():
            raise TaskProblem("original/ is missing")
        task.original_files = {rel: _hash(task.original / rel) for rel in walk_files(task.original)}
        ref_dir, ref_patch = task.dir / "reference", task.dir / "reference.patch"
        if ref_dir.exists() and ref_patch.exists():
            raise TaskProblem("both reference/ and reference.patch exist; keep one")
        if not ref_dir.exists() and not ref_patch.exists():
            raise TaskProblem("no reference: reference/ or reference.patch is missing")
        task.reference = _member(
            task, "reference", "reference", ref_dir if ref_dir.exists() else ref_patch
        )
        if not task.reference.overlays:
            raise TaskProblem("reference: identical to original/")
        task.correct = _side(task, "correct")
        task.faulty = _side(task, "faulty")
    except TaskProblem as err:
        task.problem = str(err)
    except OSError as err:
        task.problem = f"cannot read the task: {err.strerror or err} ({err.filename or task.dir})"
    return task


def task_dirs(bench: Path) -> list[Path]:
    """The tasks of a benchmark: every visible subdirectory (one without task.toml is
    reported invalid)."""
    return sorted(p for p in bench.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def is_task(path: Path) -> bool:
    return (path / "task.toml").is_file()


def load_suite(directory: Path) -> dict[str, bytes]:
    """A suite's files, relative to its directory; TaskProblem for a missing or empty one."""
    if not directory.is_dir():
        raise TaskProblem(f"no suite: {directory} does not exist")
    files = {rel: (directory / rel).read_bytes() for rel in walk_files(directory)}
    if not files:
        raise TaskProblem(f"the suite {directory} is empty")
    return files


def suite_digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    return h.hexdigest()[:20]
