"""A Go test file's text as `go test` reads it (its test and example functions) and where a new one
goes (the source's own package)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from assay.languages.base import WritePlan
from assay.languages.tooling import nearest, under

TEST_FUNC = re.compile(r"^func\s+(Test[A-Z_0-9]\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", re.M)
_PACKAGE = re.compile(r"^package\s+(\w+)", re.M)
_MODULE = re.compile(r"^module\s+(\S+)", re.M)


# an example function is a test when its body ends with an output comment (`go test` runs it and
# compares what it prints): fatih/camelcase's only test is `ExampleSplit`, and its file was
# "REJECT: Gate 1 — COMPILE ERROR ... no tests collected"
EXAMPLE_FUNC = re.compile(r"^func\s+(Example\w*)\s*\(\s*\)\s*\{", re.M)
_OUTPUT = re.compile(r"^\s*//\s*(?:Unordered output|Output):", re.M | re.I)


def test_names(source: str) -> list[str]:
    found = [(m.start(), m.group(1)) for m in TEST_FUNC.finditer(source)]
    for m in EXAMPLE_FUNC.finditer(source):
        end = source.find("\nfunc ", m.end())
        if _OUTPUT.search(source, m.end(), end if end >= 0 else len(source)):
            found.append((m.start(), m.group(1)))
    return list(dict.fromkeys(name for _, name in sorted(found)))


# what starts another process: a `go` command there builds the package afresh from its source (the
# overlay of gate 4's mutant is not its), another binary is not the test binary gate 4 mutates
_SPAWN = re.compile(
    r"\b(exec\.Command(?:Context)?|os\.StartProcess|syscall\.(?:Exec|ForkExec))\s*\("
)
_FUNC = re.compile(r"^func\s+(\w+)\s*\(", re.M)
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_LINE_COMMENT = re.compile(r"//[^\n]*")


def spawning_tests(source: str) -> dict[str, str]:
    """Test function -> how it, or a function of the file it calls by name, starts a process
    (`calls exec.Command`). cespare/xxhash's TestInlining runs `go test -gcflags=-m` to see which
    functions the compiler inlines: it was `low_value`, "reaches no mutant", for code gate 4 cannot
    see it run."""
    code = _LINE_COMMENT.sub("", source)
    starts = list(_FUNC.finditer(code))
    bodies: dict[str, str] = {}
    for i, m in enumerate(starts):  # a top-level function runs to the next one
        end = starts[i + 1].start() if i + 1 < len(starts) else len(code)
        bodies.setdefault(m.group(1), code[m.end() : end])
    out: dict[str, str] = {}
    for name in test_names(source):
        todo, seen = [name], {name}
        while todo:
            body = bodies.get(todo.pop(), "")
            if spawn := _SPAWN.search(body):
                out[name] = f"calls {spawn.group(1)}"
                break
            called = [c for c in _CALL.findall(body) if c in bodies and c not in seen]
            seen.update(called)
            todo.extend(called)
    return out


def write_plan(root: Path, source_rel: str, n: int = 1) -> WritePlan:
    """`<dir>/<stem>_assay_test.go` in the source's own package: unexported names are in scope,
    and `go test` builds it with the package, so no import path can be wrong."""
    src = PurePosixPath(source_rel)
    text = (root / source_rel).read_text(encoding="utf-8", errors="replace")
    pkg = m.group(1) if (m := _PACKAGE.search(text)) else src.parent.name
    module = nearest(root, source_rel, ("go.mod",)) or "."
    gomod = (
        (root / module / "go.mod").read_text(encoding="utf-8", errors="replace")
        if (root / module / "go.mod").is_file()
        else ""
    )
    path = m.group(1) if (m := _MODULE.search(gomod)) else ""
    inner = under(module, src.parent.as_posix())
    import_path = path + ("" if inner in ("", ".") else "/" + inner)
    suffix = "" if n == 1 else str(n)
    testify = "github.com/stretchr/testify" in gomod
    return WritePlan(
        (src.parent / f"{src.stem}_assay{suffix}_test.go").as_posix(),
        "Go's testing package (func TestXxx(t *testing.T), table-driven where it fits"
        + (
            "; testify is in go.mod)"
            if testify
            else "; only the standard library: go.mod requires no assertion library)"
        ),
        f"same package: the file starts with `package {pkg}` "
        f"(the package's unexported names are in scope, do "
        f"not import it){f'; its import path is {import_path}' if import_path else ''}",
    )
