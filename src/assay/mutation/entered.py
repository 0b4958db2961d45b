"""What a file is accountable for when its tests reach the project only through other code.

python-dotenv's `test_ipython.py` imports nothing of dotenv: it asks IPython to load the extension
and run the `%dotenv` magic, then reads `os.environ`. IPython calls the project; the magic calls
the loader, which calls the parser. Held to every function the run executed, the file was rejected
for survivors in the parser's line counting (only warnings read it), which no test of an IPython
extension could see through `os.environ`. A careful reader calls it a test of the extension.

So, for a file whose tests get no object of the project themselves (it imports no module of the
project and takes none from a conftest fixture, `gates.reach.fixture_fed`): its *entry points* are
the functions the run executed that no code of the reached modules refers to (by name, or by its
class for a constructor or other dunder method): third-party code (a framework, a plugin host, a
logging handler chain, a conftest hook) must have called them. The file is accountable for the
executed functions of the modules holding an entry point; those of the other reached modules (the
code the extension delegates to) are set aside like oracle code, listed in a note, neither killed
nor survived. A file that calls the project itself keeps today's scope: every function it executes.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay._assay_sandbox.mutation.entries import beyond_entries
from assay._assay_sandbox.mutation.protocol import SET_ASIDE
from assay.mutation.model import COUNTED, MutationResult
from assay.mutation.oracle import set_aside

__all__ = ["Entered", "beyond_entries", "narrow", "note"]


@dataclass
class Entered:
    """What `narrow` set aside: the entry points, the modules not counted, their mutants."""

    entries: dict[str, list[str]]
    beyond: dict[str, list[str]]
    mutants: int
    unrun: int = 0  # of those, set aside by the worker before they ran (`SET_ASIDE`)

    def to_json(self) -> dict[str, object]:
        return {
            "entries": [f"{rel}::{n}" for rel, names in self.entries.items() for n in names],
            "not_counted": sorted(self.beyond),
            "mutants": self.mutants,
            "not_run": self.unrun,
        }

    def note(self) -> str:
        told = note(self.entries, self.beyond, self.mutants)
        return told + (f" ({self.unrun} set aside before they ran)" if self.unrun else "")


def narrow(run: MutationResult, sources: dict[str, str]) -> Entered | None:
    """Take the mutants beyond the entry modules out of `run` (results and scope), for a file
    whose tests call no project code themselves; None, and `run` untouched, when nothing is beyond
    or the entry modules hold no mutant that counts (a file is never accountable for nothing)."""
    entries, beyond = beyond_entries(run.scope or {}, sources)
    if not beyond or not any(r.status in COUNTED for m, r in run.scored if m.file not in beyond):
        return None
    aside = set_aside(run, beyond)
    return Entered(entries, beyond, len(aside), sum(r.reason == SET_ASIDE for _, r in aside))


def note(entries: dict[str, list[str]], beyond: dict[str, list[str]], mutants: int) -> str:
    where = "; ".join(f"{', '.join(names)} ({rel})" for rel, names in entries.items())
    return (
        f"{mutants} mutant{'' if mutants == 1 else 's'} of {', '.join(sorted(beyond))} not "
        f"counted: the tests reach the project only through other code, which enters it at "
        f"{where}; the file is held to those modules, not to the code they delegate to"
    )
