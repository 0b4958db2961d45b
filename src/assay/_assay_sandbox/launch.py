"""How assay starts a process of this package under the user's interpreter (used by assay, not in
the sandbox)."""

from __future__ import annotations

from pathlib import Path

PARENT = Path(__file__).resolve().parent.parent
# The package's parent holds assay's own modules too (`config`, `model`, ...): it is on sys.path
# only for the import of the package, so that it can never shadow a module of the user's project.
_ENTRY = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "import _assay_sandbox.__main__ as m; del sys.path[0]; "
    "sys.exit(m.main(sys.argv[2:]))"
)


def argv(python: str, command: str, *args: str) -> list[str]:
    """The command line that runs `_assay_sandbox` `command` with `args` under `python`."""
    return [python, "-c", _ENTRY, str(PARENT), command, *args]
