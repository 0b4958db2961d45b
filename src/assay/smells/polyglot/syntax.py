"""Test files of other languages than Python as tree-sitter sees them: every call in a test with its
callee and arguments as text, and the shapes shared by every language's rules module (`Case`,
`Call`, `Family`). Each language's test cases are found by its own module here (`java`, `go`,
`rust`, `csharp`, `js`), named by its `Language.smells.rules`.

One grammar wheel per language (`tree-sitter-java`, ...): the all-in-one language pack downloads its
grammars at run time, which a machine without general network access cannot do.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

ASSERT_NAME = re.compile(r"^(assert|expect|verify|check|should|must|require|fail|ensure)", re.I)
_SPACE = re.compile(r"\s+")


@cache
def parser(grammar: str) -> Any | None:
    """A tree-sitter parser for `grammar` ("module:function" of a grammar wheel), or None when it is
    not installed."""
    try:
        from tree_sitter import Language, Parser

        module, _, fn = grammar.partition(":")
        return Parser(Language(getattr(importlib.import_module(module), fn)()))
    except (ImportError, AttributeError, KeyError, ValueError, TypeError):
        return None


def text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def norm(s: str) -> str:
    return _SPACE.sub("", s)


@dataclass
class Call:
    name: str  # last identifier of the callee: assertEquals, Errorf, assert_eq, toBe, Equal
    callee: str  # the callee's text: Assertions.assertEquals, t.Errorf, expect(a).toBe
    args: list[str]
    line: int
    col: int
    # expect(x).toBe(y): the args of expect(...)
    receiver_args: list[str] = field(default_factory=list)
    # False when the test uses the call's result (`if !assert.Equal(1, 1) { t.Error(..) }`):
    # then it is the code under test (an assertion library's own suite), not an assertion
    statement: bool = True


@dataclass
class Case:
    """One test case: its name as the runner reports it, where it starts, its body, and how it
    is skipped."""

    name: str
    line: int
    col: int
    body: Any  # the tree-sitter node of its body (a block, a function body)
    skip: str | None = None  # None: not skipped; "": skipped without a reason; else the reason
    # annotations / attributes (should_panic, ExpectedException)
    attrs: set[str] = field(default_factory=set)


def _split_tokens(node: Any) -> list[str]:
    """A Rust macro's token tree split on its top-level commas."""
    inner = text(node)[1:-1]
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def calls(kinds: tuple[str, ...], body: Any, named_args: bool = False) -> list[Call]:
    """Every call under `body` (nodes of `kinds`), in source order, with the calls written
    inside a Rust macro's arguments (`test_stream!(data, |s| { assert_eq!(...) })`);
    `named_args`: `name: value` arguments are taken by their value."""
    out: list[Call] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in kinds:
            out.append(_call(node, named_args))
        elif node.type == "struct_expression":  # Rust's `Counter { .. }` builds a type of the file
            name = text(node.child_by_field_name("name"))
            out.append(Call(name, name, [], node.start_point[0] + 1, node.start_point[1] + 1))
        if node.type == "token_tree":
            out += token_calls(node)
            continue
        stack.extend(reversed(node.named_children))
    return out


def token_calls(tree: Any) -> list[Call]:
    """Calls in a Rust token tree, which tree-sitter leaves as tokens: `name!(...)` and
    `name(...)` (a macro's arguments, a `macro_rules!` body)."""
    out: list[Call] = []
    kids = tree.children
    for i, kid in enumerate(kids):
        if kid.type in ("token_tree", "token_repetition"):  # `$( assert!($x); )*`
            out += token_calls(kid)
        if kid.type != "identifier" or i + 1 >= len(kids):
            continue
        bang = kids[i + 1].type == "!"
        args = kids[i + 2] if bang and i + 2 < len(kids) else kids[i + 1]
        if args.type == "token_tree" and (bang or text(args).startswith("(")):
            name = text(kid) + ("!" if bang else "")
            line, col = kid.start_point[0] + 1, kid.start_point[1] + 1
            out.append(Call(name, name, _split_tokens(args), line, col))
    return out


# where a call's result is not used: a statement, a block's tail, a lambda's body
_STATEMENT = frozenset(
    {"expression_statement", "block", "arrow_function", "statement_block", "lambda_expression"}
)


def _call(node: Any, named_args: bool) -> Call:
    if node.type == "macro_invocation":
        name = text(node.child_by_field_name("macro") or node.named_children[0]) + "!"
        tree = next((c for c in node.named_children if c.type == "token_tree"), None)
        return Call(
            name.split("::")[-1],
            name,
            _split_tokens(tree) if tree else [],
            node.start_point[0] + 1,
            node.start_point[1] + 1,
        )
    args_node = node.child_by_field_name("arguments")
    if args_node is None:
        args_node = next(
            (c for c in node.named_children if c.type in ("argument_list", "arguments")), None
        )
    end = args_node.start_byte if args_node is not None else node.end_byte
    callee = node.text[: end - node.start_byte].decode("utf-8", "replace").strip()
    args = (
        [text(a) for a in args_node.named_children if a.type != "comment"]
        if args_node is not None
        else []
    )
    if named_args:
        args = [re.sub(r"^\w+\s*:\s*", "", a) for a in args]
    # `Assertions.assertEquals`, `List<T>`, Rust's turbofish `assert_send::<T>` -> the last name
    name = re.split(r"[.:]+", re.sub(r"(::)?<.*>$", "", callee))[-1].strip()
    receiver: list[str] = []
    obj = node.child_by_field_name("function") or node.child_by_field_name("object")
    if obj is not None and obj.type == "member_expression":
        inner = obj.child_by_field_name("object")
        # expect(x).toBe(y), expect(x).not.toBe(y)
        if inner is not None and inner.type == "call_expression":
            receiver = _call(inner, named_args).args
    parent = node.parent.type if node.parent is not None else ""
    return Call(
        name,
        callee,
        args,
        node.start_point[0] + 1,
        node.start_point[1] + 1,
        receiver,
        parent in _STATEMENT,
    )


def _no_file_mocks(source: str) -> int:
    return 0


def _no_skip(call: Call) -> bool:
    return False


def _no_modules(root: Any, path: str) -> list[str]:
    return []


def _no_package(root: Any) -> str | None:
    return None


def _none_imported(source: str) -> frozenset[str]:
    return frozenset()


def default_assertion(call: Call) -> bool:
    """An assertion by name (assertEquals, Assert.Equal, assertThat ...): Java's and C#'s style."""
    return bool(ASSERT_NAME.match(call.name)) or call.callee.startswith(
        ("Assert.", "assert", "Assertions.")
    )


@dataclass(frozen=True)
class Family:
    """A language's test syntax as the rules see it (JavaScript and TypeScript share one): each
    rules module in this package defines its `FAMILY`."""

    # (parsed root, project-relative path) -> the file's test cases
    cases: Callable[[Any, str], list[Case]]
    is_assertion: Callable[[Call], bool] = default_assertion
    # mocks made for every test of the file, from its source
    file_mocks: Callable[[str], int] = _no_file_mocks
    # a call that skips without a reason (Go's `t.Skip()`)
    unexplained_skip: Callable[[Call], bool] = _no_skip
    named_args: bool = False  # `name: value` arguments (C#): compared by their value
    # (parsed root, path) -> project-relative paths of the modules the file declares
    modules: Callable[[Any, str], list[str]] = _no_modules
    # `==` can be the type's own code (Java's equals, Rust's PartialEq, C#'s Equals): comparing a
    # variable with itself tests it (reflexivity), unless the test binds it to a plain value
    own_equality: bool = False
    getters: bool = False  # `a.b` may run code (JavaScript getters, C# properties)
    # (parsed root) -> the file's package when its own functions are called unqualified (Go):
    # assertions of that package are the code under test (testify's own tests)
    package: Callable[[Any], str | None] = _no_package
    # (source) -> names the file imports from an assertion module (`import { equal } from
    # 'node:assert'`): a call of one asserts
    imported_assertions: Callable[[str], frozenset[str]] = _none_imported
