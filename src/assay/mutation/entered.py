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

import ast
import contextlib
from dataclasses import dataclass

from assay.mutation.model import COUNTED, MutationResult
from assay.mutation.mutants import function_defs
from assay.mutation.oracle import set_aside


def _referred(tree: ast.Module) -> list[tuple[str, int]]:
    """The names the module's code refers to (a name read, an attribute's name, an import), with
    their line; a function's reads of its own local variables (main.py's `dotenv = DotEnv(...)`)
    are not references to a function of that name."""
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST, local: frozenset[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            local = frozenset(_bound(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in local:
                out.append((node.id, node.lineno))
        elif isinstance(node, ast.Attribute):
            out.append((node.attr, node.lineno))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.extend((a.asname or a.name.rsplit(".", 1)[-1], node.lineno) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, local)

    visit(tree, frozenset())
    return out


def _bound(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a function binds itself: its parameters and what it assigns."""
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    bound = {a.arg for a in every if a is not None}
    body = node.body if isinstance(node.body, list) else [node.body]
    for stmt in body:
        bound.update(
            n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
    return bound


def _called_as(qualname: str) -> str:
    """The name project code would use to run it: a dunder method runs through its class."""
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    if parts[-1].startswith("__") and parts[-1].endswith("__") and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def entry_points(scope: dict[str, list[str]], sources: dict[str, str]) -> dict[str, list[str]]:
    """rel -> the executed functions of `scope` that no code of `sources` refers to outside their
    own body."""
    trees: dict[str, ast.Module] = {}
    for rel, text in sources.items():
        with contextlib.suppress(SyntaxError, ValueError):
            trees[rel] = ast.parse(text)
    refs: dict[str, list[tuple[str, int]]] = {}  # name -> (module, line) of each reference
    for rel, tree in trees.items():
        for ref, line in _referred(tree):
            refs.setdefault(ref, []).append((rel, line))
    out: dict[str, list[str]] = {}
    for rel, names in scope.items():
        defs = function_defs(trees[rel]) if rel in trees else {}
        for name in names:
            node = defs.get(name)
            if node is None:
                continue
            first, last = node.lineno, node.end_lineno or node.lineno
            if all(
                other == rel and first <= line <= last
                for other, line in refs.get(_called_as(name), ())
            ):
                out.setdefault(rel, []).append(name)
    return out


def beyond_entries(
    scope: dict[str, list[str]], sources: dict[str, str]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(the entry points, the executed functions of the reached modules that hold none) for a
    file whose tests call no project code themselves; nothing beyond when every reached module
    holds one, or none does (the entries could not be told)."""
    entries = entry_points(scope, sources)
    beyond = {rel: list(names) for rel, names in scope.items() if names and rel not in entries}
    if not entries or not beyond:
        return entries, {}
    return entries, beyond


@dataclass
class Entered:
    """What `narrow` set aside: the entry points, the modules not counted, their mutants."""

    entries: dict[str, list[str]]
    beyond: dict[str, list[str]]
    mutants: int

    def to_json(self) -> dict[str, object]:
        return {
            "entries": [f"{rel}::{n}" for rel, names in self.entries.items() for n in names],
            "not_counted": sorted(self.beyond),
            "mutants": self.mutants,
        }

    def note(self) -> str:
        return note(self.entries, self.beyond, self.mutants)


def narrow(run: MutationResult, sources: dict[str, str]) -> Entered | None:
    """Take the mutants beyond the entry modules out of `run` (results and scope), for a file
    whose tests call no project code themselves; None, and `run` untouched, when nothing is beyond
    or the entry modules hold no mutant that counts (a file is never accountable for nothing)."""
    entries, beyond = beyond_entries(run.scope or {}, sources)
    if not beyond or not any(r.status in COUNTED for m, r in run.scored if m.file not in beyond):
        return None
    return Entered(entries, beyond, len(set_aside(run, beyond)))


def note(entries: dict[str, list[str]], beyond: dict[str, list[str]], mutants: int) -> str:
    where = "; ".join(f"{', '.join(names)} ({rel})" for rel, names in entries.items())
    return (
        f"{mutants} mutant{'' if mutants == 1 else 's'} of {', '.join(sorted(beyond))} not "
        f"counted: the tests reach the project only through other code, which enters it at "
        f"{where}; the file is held to those modules, not to the code they delegate to"
    )
