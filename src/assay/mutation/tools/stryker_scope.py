"""Gate 4's scope for JavaScript run through Stryker's command runner (`node --test`) or
assay's tape plugin (`stryker_tape`).

The command runner has no per-test coverage: every mutant of a file would run the whole test
file, and a file testing one function would be charged for every other one. So, as Python's gate
4 does with coverage.py, one run of the candidate under V8's own block coverage
(`NODE_V8_COVERAGE`, built into node) says which code the tests run, and Stryker gets an ignorer
plugin (`stryker_scope.mjs`, Stryker's `ignorers` API) that leaves out every AST node lying wholly
in code outside the scope: such mutants are reported `Ignored` with assay's reason and never run.

- gate 4 (`executed_only`): in scope is the code of the functions the tests run, as for Python
  and Go; a block V8 saw never run (an `else`, a fallback operand of `||`) and the module's
  top-level code (run when the file loads) are out of it, and so is code run only while the
  module loads (nanoid's `index.js` calls `customAlphabet` at its top level: a file importing
  only `urlAlphabet` from it was charged with `customAlphabet`'s mutants). That last is Python's
  "call phase": a second run imports each target alone (`LOAD_SCRIPT`) and its counts are taken
  off the test run's, offset by offset. When the tests run no function of the targets, every
  mutant stays: those never run are then NoCoverage (counted), as in Go.
- `assay mutate`: every mutant counts; those in code never run are NoCoverage without a run.

Offsets are V8's and Babel's: UTF-16 code units of the file's text. A file whose coverage does
not span its text (a transpiled TypeScript file) is left whole, as before.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from assay.sandbox.view import hand_over

RUN, OUT, NO_COVERAGE = 1, 2, 3
LOGGING = "assay: a logging call (not mutated, as Python's are not)"
SAMPLE = "assay: not in gate 4's sample (mutation.sample): not run"
REASONS = {
    OUT: "assay: out of gate 4's scope (code the tests do not run in a function)",
    NO_COVERAGE: "assay: no test runs this code",
}
SCOPED_SUFFIXES = (".js", ".cjs", ".mjs")
_UNRUN, _TOP, _FUNC = 0, 1, 2  # what V8 saw at an offset, by rank: a function's code wins


@dataclass
class Scope:
    """Per target file, its text split into (start, end, class) segments; the functions run."""

    segments: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    functions: dict[str, list[str]] = field(default_factory=dict)
    whole: list[str] = field(default_factory=list)  # targets left whole (no usable coverage)
    marks: dict[str, bytearray] = field(default_factory=dict)  # per offset, what V8 saw (building)

    def to_json(self, root: Path) -> dict[str, object]:
        """What the plugin reads: segments by absolute path (as given and resolved: Stryker may
        name a file by either), and the reason of each class."""
        files: dict[str, list[tuple[int, int, int]]] = {}
        for rel, segs in self.segments.items():
            files[str(root / rel)] = files[str((root / rel).resolve())] = segs
        return {"files": files, "reasons": {str(k): v for k, v in REASONS.items()}}


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _line_of(text: str, offset: int) -> int:
    """1-based line of a UTF-16 offset."""
    if utf16_len(text) != len(text):  # characters beyond the BMP count twice in UTF-16
        text = text.encode("utf-16-le")[: 2 * offset].decode("utf-16-le", "ignore")
    return text.count("\n", 0, offset) + 1


def read_coverage(directory: Path, root: Path) -> dict[str, list[list[dict]]]:
    """V8's coverage files in `directory` (one per process): per project-relative script, the
    function entries each process reported."""
    out: dict[str, list[list[dict]]] = {}
    for path in sorted(directory.glob("coverage-*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for script in data.get("result", []):
            url = script.get("url", "")
            if not url.startswith("file:"):
                continue
            try:
                rel = Path(unquote(urlparse(url).path)).relative_to(root).as_posix()
            except ValueError:
                continue
            out.setdefault(rel, []).append(script.get("functions", []))
    return out


# imports each target (absolute paths in argv) alone, in order, and prints the ones that loaded:
# V8's counts of that run are what the targets run when they load
LOAD_SCRIPT = (
    "const {pathToFileURL} = require('node:url');"
    "(async () => { for (const p of process.argv.slice(1)) {"
    " try { await import(pathToFileURL(p).href); console.log('assay-loaded ' + p); }"
    " catch (e) {} } })();"
)


def _count(functions: list[dict], size: int) -> tuple[list[int], bytearray] | None:
    """One process's run of a script: the count V8 gave each offset (the innermost range's) and
    whether it lies in the top-level code or a function's; None when its top-level range is not
    the file's text (a transpiled or wrapped script)."""
    entries = [f for f in functions if f.get("ranges")]
    entries.sort(key=lambda f: (f["ranges"][0]["startOffset"], -f["ranges"][0]["endOffset"]))
    if not entries:
        return None
    top = entries[0]["ranges"][0]
    if top["startOffset"] != 0 or top["endOffset"] != size:
        return None
    counts = [0] * size
    kinds = bytearray(size)
    # nested ranges come after the ranges around them (a function's blocks lie around its
    # nested functions, never inside them), so painting in that order leaves the innermost
    for i, entry in enumerate(entries):
        kind = _TOP if i == 0 else _FUNC
        for r in sorted(entry["ranges"], key=lambda r: (r["startOffset"], -r["endOffset"])):
            a, b = max(0, r["startOffset"]), min(size, r["endOffset"])
            if a < b:
                counts[a:b] = [r["count"]] * (b - a)
                kinds[a:b] = bytes([kind]) * (b - a)
    return counts, kinds


def _paint(functions: list[dict], size: int, loading: list[int] | None = None) -> bytearray | None:
    """What V8 saw at each offset of one process's run of a script (see `_count`), less what the
    script runs when it loads (`loading`: counts of a run that only imported it)."""
    counted = _count(functions, size)
    if counted is None:
        return None
    counts, kinds = counted
    if loading is None:
        return bytearray(k if c > 0 else _UNRUN for c, k in zip(counts, kinds, strict=True))
    return bytearray(k if c > m else _UNRUN for c, k, m in zip(counts, kinds, loading, strict=True))


def load_counts(
    coverage: dict[str, list[list[dict]]], sources: dict[str, str], loaded: set[str]
) -> dict[str, list[int]]:
    """Per target that loaded alone (`loaded`), the counts of its load (V8's coverage of the
    `LOAD_SCRIPT` run): what its tests' run does not owe to its tests."""
    out: dict[str, list[int]] = {}
    for rel in loaded:
        runs = coverage.get(rel, [])
        if rel not in sources or len(runs) != 1:
            continue
        counted = _count(runs[0], utf16_len(sources[rel]))
        if counted is not None:
            out[rel] = counted[0]
    return out


def _ran_functions(text: str, runs: list[list[dict]], loading: list[int] | None) -> list[str]:
    names: dict[str, None] = {}
    for functions in runs:
        for f in functions:
            first = f["ranges"][0]
            start = first["startOffset"]
            done_loading = loading[start] if loading is not None and start < len(loading) else 0
            if first["count"] > done_loading and start > 0:
                line = _line_of(text, start)
                names[f"{f.get('functionName') or '(anonymous)'}:{line}"] = None
    return list(names)


def scope(
    coverage: dict[str, list[list[dict]]],
    sources: dict[str, str],
    executed_only: bool,
    loading: dict[str, list[int]] | None = None,
) -> Scope:
    """The segments of each target (`sources`: project-relative path -> text) from V8's coverage
    of the candidate's run, less what each target runs when it loads (`loading`, `load_counts`:
    gate 4 only); see the module docstring for the rule."""
    out = _seen(coverage, sources, loading or {})
    ran_a_function = any(_FUNC in m for m in out.marks.values())
    if executed_only and loading and not ran_a_function:
        # the tests run nothing of the targets but their load: every mutant stays, as before
        out = _seen(coverage, sources, {})
        ran_a_function = any(_FUNC in m for m in out.marks.values())
    for rel, marks in out.marks.items():
        if executed_only and ran_a_function:
            classes = {_FUNC: RUN, _TOP: OUT, _UNRUN: OUT}
        else:
            classes = {_FUNC: RUN, _TOP: RUN, _UNRUN: NO_COVERAGE}
        out.segments[rel] = _segments(marks, classes)
    if not (executed_only and ran_a_function):
        out.functions = {}
    out.marks = {}
    return out


def _seen(
    coverage: dict[str, list[list[dict]]], sources: dict[str, str], loading: dict[str, list[int]]
) -> Scope:
    out = Scope()
    for rel, text in sources.items():
        if not rel.endswith(SCOPED_SUFFIXES):
            out.whole.append(rel)
            continue
        size = utf16_len(text)
        merged = bytearray(size)  # never loaded: never run
        for functions in coverage.get(rel, []):
            painted = _paint(functions, size, loading.get(rel))
            if painted is None:
                break
            merged = bytearray(max(x, y) for x, y in zip(merged, painted, strict=True))
        else:
            out.marks[rel] = merged
            out.functions[rel] = _ran_functions(text, coverage.get(rel, []), loading.get(rel))
            continue
        out.whole.append(rel)
    return out


def _segments(marks: bytearray, classes: dict[int, int]) -> list[tuple[int, int, int]]:
    segs: list[tuple[int, int, int]] = []
    start = 0
    for i in range(1, len(marks) + 1):
        if i == len(marks) or classes[marks[i]] != classes[marks[start]]:
            segs.append((start, i, classes[marks[start]]))
            start = i
    return segs


def top_level_out(config: dict, own: Path) -> None:
    """Gate 4 with a per-test runner: assay's ignorer plugin (`stryker_toplevel.mjs`) leaves out
    each target's top-level code, out of scope as Python's module level is (knitwork's table of
    reserved names charged every test file with its strings)."""
    own.mkdir(exist_ok=True)
    plugin = own / "toplevel.mjs"
    shutil.copyfile(Path(__file__).with_name("stryker_toplevel.mjs"), plugin)
    (own / "toplevel.json").write_text(json.dumps({"reason": REASONS[OUT]}), encoding="utf-8")
    # Stryker writes its report and backups here as the tests' uid
    hand_over(own, plugin, own / "toplevel.json")
    config["plugins"] = [*config.get("plugins", []), str(plugin)]
    config["ignorers"] = [*config.get("ignorers", []), "assay-top-level"]


def logging_out(config: dict, own: Path) -> None:
    """Every Stryker run: assay's ignorer plugin (`stryker_logging.mjs`) leaves out logging calls
    (`console.log`, `logger.info`, the `debug` package's `debug(...)`), which Python's operators
    never mutate: their mutants change a message no test reads (router's `debug('dispatching
    %s %s', ...)` → `debug("", ...)` survived every test)."""
    own.mkdir(exist_ok=True)
    plugin = own / "logging.mjs"
    shutil.copyfile(Path(__file__).with_name("stryker_logging.mjs"), plugin)
    (own / "logging.json").write_text(json.dumps({"reason": LOGGING}), encoding="utf-8")
    hand_over(own, plugin, own / "logging.json")
    config["plugins"] = [*config.get("plugins", []), str(plugin)]
    config["ignorers"] = [*config.get("ignorers", []), "assay-logging"]


def sample_out(config: dict, own: Path, size: int) -> None:
    """Gate 4 with a per-test runner: assay's checker plugin (`stryker_sample.mjs`) runs at most
    `size` of the mutants in scope, one per line first, as Python's gate 4 samples (router's
    test/route.js ran 492 mutants, past gate 4's 600 s); the others are reported with `SAMPLE`."""
    own.mkdir(exist_ok=True)
    plugin = own / "sample.mjs"
    shutil.copyfile(Path(__file__).with_name("stryker_sample.mjs"), plugin)
    (own / "sample.json").write_text(json.dumps({"size": size, "reason": SAMPLE}), "utf-8")
    hand_over(own, plugin, own / "sample.json")
    config["plugins"] = [*config.get("plugins", []), str(plugin)]
    config["checkers"] = [*config.get("checkers", []), "assay-sample"]
