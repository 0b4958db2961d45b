"""What the runners of compiled and JavaScript languages share: running a toolchain command in the
workspace through the sandbox, finding the build file that owns a test file, and saying why a run
gave no result."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assay.execution.runner import CompileResult, Problem
from assay.execution.workspace import Workspace
from assay.feedback import relativize
from assay.languages.compiler_output import count_lines, error_tail
from assay.sandbox import Profile, RunResult, Sandbox

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.project import Project

TEST_ID_SEP = "::"


def nearest(root: Path, rel: str, names: tuple[str, ...]) -> str | None:
    """The project-relative directory nearest above `rel` holding one of `names` (`.` for the root),
    or None."""
    here = PurePosixPath(rel).parent
    for d in (here, *here.parents):
        if any((root / d / n).exists() for n in names) or any(
            n.startswith("*") and any((root / d).glob(n)) for n in names
        ):
            return d.as_posix()
    return None


def module_files(
    root: Path,
    module: str,
    extensions: tuple[str, ...],
    build_files: tuple[str, ...],
    limit: int = 5000,
) -> list[str]:
    """Project-relative source and build files of one module (what a compiled test's verdict depends
    on), for the cache key; build output, VCS and dependency directories left out."""
    from assay.execution.workspace import SKIP_DIRS

    base = root / module
    out = [f"{module}/{b}" if module != "." else b for b in build_files]
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(extensions):
                out.append(Path(dirpath, name).relative_to(root).as_posix())
                if len(out) >= limit:
                    return out
    return out


def under(base: str, rel: str) -> str:
    """`rel` (project-relative) as seen from the project-relative directory `base`."""
    return rel if base in ("", ".") else os.path.relpath(rel, base)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[-80:]


@dataclass
class Ran:
    """One toolchain command's result, with everything needed to explain it."""

    result: RunResult
    roots: tuple[str, str]

    @property
    def text(self) -> str:
        return (self.result.stdout or "") + "\n" + (self.result.stderr or "")

    @property
    def raw_lines(self) -> int:
        return count_lines(self.result.stdout, self.result.stderr)

    def why(self, what: str) -> str:
        """Why the command gave no result, in one short message without progress noise."""
        if self.result.timed_out:
            return f"{what} timed out after {self.result.duration_s:.0f} s"
        limit = self.result.limit_hit
        tail = relativize(error_tail(self.text), *self.roots)
        head = limit or f"{what} exited with status {self.result.returncode}"
        return head + (f"\n{tail}" if tail else "")


# a shell's and the sandbox's exec statuses: the command was not found or could not be executed
NOT_STARTED = (126, 127)
# gate 1's advice for an environment gap, by its cause: only a missing dependency is fetched
FETCH = "Fetch the project's dependencies once (the sandbox has no network)."
OWN_CODE = (
    "Not the file's fault: the project's own code does not compile here without it; fix the "
    "errors named above, then run again."
)
OTHER_PLUGIN = (
    "Not the file's fault: a build plugin other than the compiler stopped the build before the "
    "test compiled (a licence/RAT check, an enforcer rule); the project's own build stops there "
    "too: fix what it reports, then run again."
)


class ToolRunner:
    """Runs one language's toolchain commands inside a workspace, under that language's
    sandbox profile."""

    language = ""

    def __init__(self, sandbox: Sandbox, project: Project, settings: Settings, profile: Profile):
        self.sandbox = sandbox
        self.project = project
        self.settings = settings
        self.profile = profile
        self.timeout_s = settings.sandbox.timeout_s

    def env_extra(self, ws: Workspace) -> dict[str, str]:
        """Environment variables computed at run time (the real module cache's path ...)."""
        return {}

    def exec(
        self,
        ws: Workspace,
        argv: list[str],
        cwd: str = ".",
        timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> Ran:
        environ = self.sandbox.env_for(
            ws.run_dir / "home",
            extra={**self.env_extra(ws), **(env or {})},
            profile=self.profile,
            cache=ws.cache_dir,
        )
        result = self.sandbox.run(
            argv,
            cwd=ws.path(cwd) if cwd not in ("", ".") else ws.project,
            env=environ,
            timeout=timeout or self.timeout_s,
            profile=self.profile,
        )
        return Ran(result, (str(ws.project), str(ws.root)))

    @staticmethod
    def no_result(ran: Ran, what: str, raw_lines: int, duration: float) -> CompileResult:
        """A compile step that gave no result. Out of time it is the machine's (no code of the test
        ran yet: a loaded machine, a large project), never the file's compile error."""
        if ran.result.returncode in NOT_STARTED and not ran.result.timed_out:
            # the tool never ran (a `node_modules/.bin/tsc` linked from outside the project, which
            # the sandbox does not show): the machine's, not a compile error of the file
            return ToolRunner.environment(
                f"{ran.why(what)}\n{what} could not be started: it is missing, or lies outside "
                "what the sandbox shows (the project's own files, the toolchain): install it in "
                "the project and run again",
                raw_lines,
                duration,
            )
        if not ran.result.timed_out:
            return CompileResult(crash=ran.why(what), raw_lines=raw_lines, duration_s=duration)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        message = (
            f"{what} did not finish in {ran.result.duration_s:.0f} s (load average {load:.0f} on "
            f"{os.cpu_count() or 1} cores); no code of the test ran yet"
        )
        return CompileResult(
            errors=[Problem("", message, None, "timeout")],
            raw_lines=raw_lines,
            duration_s=duration,
        )

    @staticmethod
    def environment(
        message: str, raw_lines: int = 0, duration: float = 0.0, hint: str = ""
    ) -> CompileResult:
        """Gate 1 could not judge the file because the machine or the project cannot build it as
        it is; `hint` says what to do about this cause (`FETCH`, `OWN_CODE`, `OTHER_PLUGIN`; the
        gate's generic advice when empty)."""
        return CompileResult(
            errors=[Problem("", message, None, "environment", hint)],
            raw_lines=raw_lines,
            duration_s=duration,
        )


def outside_errors(problems: list[Problem], rel: str) -> bool:
    """Errors only in other files than the candidate (the project itself, or a sibling test, does
    not build)."""
    return bool(problems) and not any(p.where == rel for p in problems)
