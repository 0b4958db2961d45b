"""JavaScript and TypeScript test files (vitest, jest, mocha, node:test): `it`/`test` in `describe`
blocks, `.skip`/`xit`, `expect(...)` matchers, top-level `jest.mock`/`vi.mock`."""

from __future__ import annotations

import re
from typing import Any

from assay.smells.polyglot.syntax import ASSERT_NAME, Call, Case, Family, text

JS_TEST_CALLS = {"it", "test", "xit", "xtest", "fit"}
JS_SKIPS = {"skip", "todo"}
JS_MATCHER = re.compile(r"^to[A-Z]")


def _string(node: Any) -> str | None:
    if node is not None and node.type in ("string", "template_string"):
        return text(node)[1:-1]
    return None


def _js(node: Any, path: list[str], skipped: bool = False) -> list[Case]:
    out = []
    for child in node.named_children:
        if child.type == "call_expression":
            fn = text(child.child_by_field_name("function"))
            head, _, tail = fn.partition(".")
            args = child.child_by_field_name("arguments")
            named = (
                [a for a in args.named_children if a.type != "comment"] if args is not None else []
            )
            title = _string(named[0]) if named else None
            callback = next(
                (
                    a
                    for a in named[1:]
                    if a.type in ("arrow_function", "function_expression", "function")
                ),
                None,
            )
            is_skip = (
                skipped or head in ("xit", "xtest", "xdescribe") or tail.split(".")[0] in JS_SKIPS
            )
            if title is not None and head in ("describe", "xdescribe", "suite", "context"):
                if callback is not None:
                    out += _js(
                        callback.child_by_field_name("body") or callback, [*path, title], is_skip
                    )
                continue
            if title is not None and head in JS_TEST_CALLS and tail not in ("each",):
                body = callback.child_by_field_name("body") if callback is not None else None
                out.append(
                    Case(
                        " > ".join([*path, title]),
                        child.start_point[0] + 1,
                        child.start_point[1] + 1,
                        body,
                        "" if is_skip else None,
                    )
                )
                continue
        out += _js(child, path, skipped)
    return out


def is_assertion(call: Call) -> bool:
    return (
        call.callee.startswith(("expect", "assert", "t.", "should"))
        or bool(call.receiver_args and JS_MATCHER.match(call.name))
        or bool(ASSERT_NAME.match(call.name))
    )


# modules whose exports are assertions: node's assert, uvu's, chai's, power-assert
_ASSERT_MODULE = r"(?:node:)?assert(?:/strict)?|uvu/assert|chai|power-assert"
_IMPORTED = re.compile(
    rf"""import\s*\{{([^}}]*)\}}\s*from\s*['"](?:{_ASSERT_MODULE})['"]"""
    rf"""|(?:const|let|var)\s*\{{([^}}]*)\}}\s*=\s*require\(\s*['"](?:{_ASSERT_MODULE})['"]\s*\)"""
)


def imported_assertions(source: str) -> frozenset[str]:
    """The names the file imports from an assertion module: nanoid's tests assert with bare
    `equal(...)` and `match(...)` from 'node:assert', and each was "AP001: no assertion"."""
    names = set()
    for match in _IMPORTED.finditer(source):
        for item in (match.group(1) or match.group(2) or "").split(","):
            name = re.split(r"\s+as\s+|\s*:\s*", item.strip())[-1].strip()
            if re.fullmatch(r"[A-Za-z_$][\w$]*", name):
                names.add(name)
    return frozenset(names)


def _file_mocks(source: str) -> int:
    """Top-level `jest.mock(...)`/`vi.mock(...)`: mocks made for every test of the file."""
    return len(re.findall(r"\b(jest|vi)\.(mock|doMock)\(", source))


FAMILY = Family(
    cases=lambda root, path: _js(root, []),
    is_assertion=is_assertion,
    file_mocks=_file_mocks,
    getters=True,
    imported_assertions=imported_assertions,
)
