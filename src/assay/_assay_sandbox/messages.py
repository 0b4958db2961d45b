"""A failing test's message as the recorder keeps it: pytest's crash line and the end of its
report, and the lines naming an import that failed, wherever the failure shows them.

Standalone (stdlib + pytest): runs under the interpreter of the user's tests.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import TracebackType

    import pytest

MAX_MESSAGE = 2000
# lines naming an import that failed, wherever a failing test shows them (its traceback, its
# captured output, the output of a subprocess it ran): the parent decides whether the environment
# lacks something the project needs
_IMPORT_ERROR = re.compile(r"[^\n]*(?:No module named|ModuleNotFoundError|ImportError)[^\n]*")
MAX_IMPORT_ERRORS = 10


def import_errors(texts: Iterable[Any]) -> list[str]:
    found: dict[str, None] = {}
    for text in texts:
        if isinstance(text, bytes):
            text = text.decode(errors="replace")
        if isinstance(text, str):
            found.update((m.group(0).strip()[:300], None) for m in _IMPORT_ERROR.finditer(text))
    return list(found)[:MAX_IMPORT_ERRORS]


def subprocess_output(excinfo: pytest.ExceptionInfo[BaseException]) -> list[Any]:
    """What the test's subprocesses printed, where the failure holds it: a `CalledProcessError`
    (or `TimeoutExpired`) in the exception chain, a `CompletedProcess` in a traceback frame's
    locals (`assert proc.returncode == 0`)."""
    out: list[Any] = []
    exc: BaseException | None = excinfo.value
    seen = 0
    while exc is not None and seen < 5:
        out += [getattr(exc, a, None) for a in ("stdout", "stderr")]
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    tb: TracebackType | None = excinfo.tb
    while tb is not None:
        for value in list(tb.tb_frame.f_locals.values()):
            if isinstance(value, (subprocess.CompletedProcess, subprocess.SubprocessError)):
                out += [getattr(value, "stdout", None), getattr(value, "stderr", None)]
        tb = tb.tb_next
    return out


def missing_programs(excinfo: pytest.ExceptionInfo[BaseException]) -> list[str]:
    """A line naming each program the test (or the project) tried to start that is not on PATH:
    a `FileNotFoundError` that `subprocess` raised for a bare command name (`redis-server`), in the
    exception chain. A missing file (`open("data.json")`) or a path (`./build/tool`) is not one."""
    out: list[str] = []
    exc: BaseException | None = excinfo.value
    seen = 0
    while exc is not None and seen < 5:
        name = getattr(exc, "filename", None)
        if (
            isinstance(exc, FileNotFoundError)
            and isinstance(name, str)
            and name
            and "/" not in name
            and _raised_in(exc, "subprocess.py")
        ):
            out.append(f"No such program: '{name}' (not on PATH where the tests run)")
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return out


def _raised_in(exc: BaseException, filename: str) -> bool:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last is not None and last.tb_frame.f_code.co_filename.endswith(filename)


def short(report: pytest.TestReport) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    text = report.longreprtext or ""
    if crash is not None and crash.message:
        return (
            f"{crash.message}\n{text[-MAX_MESSAGE:]}" if len(text) < MAX_MESSAGE else crash.message
        )
    return text[-MAX_MESSAGE:]


def project_frame(excinfo: Any, root: str, tests: Iterable[str] = ()) -> str | None:
    """Where the project's own code raised a test's error: the innermost frame under `root` that
    is neither a test file (`tests`, `test_*.py`, `*_test.py`, a conftest) nor an installed
    package, when it is deeper than the test's last frame (validators' decorator calling
    `inspect.getargspec`); None when the test's own line raised it (a failed assertion)."""
    found = None
    mine = {os.path.realpath(t) for t in tests}
    try:
        entries = list(excinfo.traceback)
    except Exception:
        return None
    for entry in entries:
        path = str(entry.path)
        if not path.startswith(root.rstrip("/") + "/") or "site-packages" in path:
            continue
        name = os.path.basename(path)
        test_side = name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")
        if test_side or os.path.realpath(path) in mine:
            found = None  # the test's side: only a project frame inside it counts
        else:
            found = f"{os.path.relpath(path, root)}:{entry.lineno + 1}"
    return found
