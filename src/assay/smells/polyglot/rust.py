"""Rust test files: `#[test]` functions (named by their module path, as libtest names
them), `#[ignore]`."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from assay.smells.polyglot.syntax import ASSERT_NAME, Call, Case, Family, norm, text

RUST_ASSERTS = re.compile(
    r"^(debug_|prop_)?assert(_eq|_ne|_matches)?!$|^(panic|unreachable|todo|unimplemented)!$"
)


def _module(path: str) -> str:
    """A Rust source file's module path (`src/price/mod.rs` -> `price`), as libtest prefixes
    its tests."""
    parts = PurePosixPath(path).with_suffix("").parts
    if "src" not in parts or "tests" in parts:
        return ""
    inner = list(parts[parts.index("src") + 1 :])
    if inner and inner[-1] in ("lib", "main", "mod"):
        inner.pop()
    return "::".join(inner)


def _rust(node: Any, path: list[str]) -> list[Case]:
    out = []
    attrs: list[str] = []
    for child in node.named_children:
        if child.type == "attribute_item":
            attrs.append(norm(text(child)))
            continue
        if child.type == "mod_item":
            body = child.child_by_field_name("body")
            if body is not None:
                out += _rust(body, [*path, text(child.child_by_field_name("name"))])
        elif child.type == "function_item" and any(
            re.match(r"#\[(\w+::)?test\b", a) for a in attrs
        ):
            skip = None
            ignore = next((a for a in attrs if a.startswith("#[ignore")), None)
            if ignore is not None:
                m = re.search(r'"(.*)"', ignore)
                skip = m.group(1) if m else ""
            names = {re.sub(r"[\[\]#(=].*|#\[", "", a.removeprefix("#[")) for a in attrs}
            out.append(
                Case(
                    "::".join([*path, text(child.child_by_field_name("name"))]),
                    child.start_point[0] + 1,
                    child.start_point[1] + 1,
                    child.child_by_field_name("body"),
                    skip,
                    names,
                )
            )
        attrs = []
    return out


def is_assertion(call: Call) -> bool:
    """`assert*!`, `panic!`, an assert-named helper, and `.unwrap()`/`.expect(..)`: they panic
    when the call fails, so `VersionReq::parse("1.2.3").unwrap()` (or a helper `req(..)` doing
    it) checks that the input parses; trybuild's `compile_fail` checks that code is refused;
    `quickcheck(prop)` (or `QuickCheck::new().quickcheck(prop)`) panics when `prop` fails."""
    return (
        bool(RUST_ASSERTS.match(call.name))
        or bool(ASSERT_NAME.match(call.name))
        or call.name
        in ("unwrap", "expect", "unwrap_err", "expect_err", "compile_fail", "quickcheck")
    )


def _cases(root: Any, path: str) -> list[Case]:
    module = _module(path)
    return _rust(root, [module] if module else [])


def _modules(root: Any, path: str) -> list[str]:
    """Files of the modules a file declares (`mod util;` -> util.rs or util/mod.rs beside it)."""
    here = PurePosixPath(path).parent
    out = []
    for child in root.named_children:
        if child.type == "mod_item" and child.child_by_field_name("body") is None:
            name = text(child.child_by_field_name("name"))
            out += [str(here / f"{name}.rs"), str(here / name / "mod.rs")]
    return out


FAMILY = Family(
    cases=_cases,
    is_assertion=is_assertion,
    modules=_modules,
    own_equality=True,
)
