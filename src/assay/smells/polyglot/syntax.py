"""Test files of Java, Go, Rust, TypeScript, JavaScript and C# as tree-sitter sees them: the test cases (named
as the runners name them), and every call in a test with its callee and arguments as text.

One grammar wheel per language (`tree-sitter-java`, ...): the all-in-one language pack downloads its grammars at
run time, which a machine without general network access cannot do.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

GRAMMARS = {  # language -> (module, function)
    "java": ("tree_sitter_java", "language"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "javascript": ("tree_sitter_javascript", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
}
CALLS = {"java": ("method_invocation",), "go": ("call_expression",), "rust": ("macro_invocation", "call_expression"),
         "typescript": ("call_expression",), "tsx": ("call_expression",), "javascript": ("call_expression",),
         "csharp": ("invocation_expression", "object_creation_expression")}
JAVA_TESTS = {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"}
CSHARP_TESTS = {"Fact", "Theory", "Test", "TestCase", "TestMethod", "DataTestMethod"}
JS_TEST_CALLS = {"it", "test", "xit", "xtest", "fit"}
JS_SKIPS = {"skip", "todo"}
_SPACE = re.compile(r"\s+")


@cache
def parser(language: str) -> Any | None:
    """A tree-sitter parser for `language`, or None when its grammar package is not installed."""
    try:
        from tree_sitter import Language, Parser

        module, fn = GRAMMARS[language]
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
    receiver_args: list[str] = field(default_factory=list)  # expect(x).toBe(y): the args of expect(...)


@dataclass
class Case:
    """One test case: its name as the runner reports it, where it starts, its body, and how it is skipped."""

    name: str
    line: int
    col: int
    body: Any  # the tree-sitter node of its body (a block, a function body)
    skip: str | None = None  # None: not skipped; "": skipped without a reason; else the reason
    attrs: set[str] = field(default_factory=set)  # annotations / attributes (should_panic, ExpectedException)


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


def calls(language: str, body: Any) -> list[Call]:
    """Every call under `body`, in source order."""
    kinds = CALLS[language]
    out: list[Call] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in kinds:
            out.append(_call(language, node))
        stack.extend(reversed(node.named_children))
    return out


def _call(language: str, node: Any) -> Call:
    if node.type == "macro_invocation":
        name = text(node.child_by_field_name("macro") or node.named_children[0]) + "!"
        tree = next((c for c in node.named_children if c.type == "token_tree"), None)
        return Call(name.split("::")[-1], name, _split_tokens(tree) if tree else [], node.start_point[0] + 1,
                    node.start_point[1] + 1)
    args_node = node.child_by_field_name("arguments")
    if args_node is None:
        args_node = next((c for c in node.named_children if c.type in ("argument_list", "arguments")), None)
    end = args_node.start_byte if args_node is not None else node.end_byte
    callee = node.text[: end - node.start_byte].decode("utf-8", "replace").strip()
    args = [text(a) for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
    if language == "csharp":
        args = [re.sub(r"^\w+\s*:\s*", "", a) for a in args]
    name = re.split(r"[.:]+", re.sub(r"<[^<>]*>$", "", callee))[-1].strip()
    receiver: list[str] = []
    obj = node.child_by_field_name("function") or node.child_by_field_name("object")
    if obj is not None and obj.type == "member_expression":
        inner = obj.child_by_field_name("object")
        if inner is not None and inner.type == "call_expression":  # expect(x).toBe(y), expect(x).not.toBe(y)
            receiver = _call(language, inner).args
    return Call(name, callee, args, node.start_point[0] + 1, node.start_point[1] + 1, receiver)


def _annotations(modifiers: Any) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for a in modifiers.named_children if modifiers is not None else []:
        if a.type in ("marker_annotation", "annotation"):
            name = text(a.child_by_field_name("name")).split(".")[-1]
            args = a.child_by_field_name("arguments")
            found[name] = [text(x) for x in args.named_children] if args is not None else []
    return found


def cases(language: str, root: Any, module: str = "") -> list[Case]:
    """The test cases of a parsed file (`module`: a Rust source file's module path, as libtest names tests)."""
    if language == "java":
        return _java(root, [])
    if language == "go":
        return _go(root)
    if language == "rust":
        return _rust(root, [module] if module else [])
    if language == "csharp":
        return _csharp(root)
    return _js(root, [])


def _java(node: Any, outer: list[str]) -> list[Case]:
    out = []
    for child in node.named_children:
        if child.type == "class_declaration":
            name = text(child.child_by_field_name("name"))
            body = child.child_by_field_name("body")
            out += _java(body, [*outer, name]) if body is not None else []
        elif child.type == "method_declaration":
            modifiers = next((c for c in child.named_children if c.type == "modifiers"), None)
            notes = _annotations(modifiers)
            if not JAVA_TESTS & set(notes):
                continue
            skip = None
            if "Disabled" in notes:
                skip = notes["Disabled"][0].strip('"') if notes["Disabled"] else ""
            name = ".".join([*outer[1:], text(child.child_by_field_name("name"))])
            out.append(Case(name, child.start_point[0] + 1, child.start_point[1] + 1,
                            child.child_by_field_name("body"), skip, set(notes)))
        elif child.type in ("program", "class_body"):
            out += _java(child, outer)
    return out


def _go(root: Any) -> list[Case]:
    out = []
    for child in root.named_children:
        if child.type != "function_declaration":
            continue
        name = text(child.child_by_field_name("name"))
        params = text(child.child_by_field_name("parameters"))
        if re.match(r"Test[A-Z_0-9]?", name) and "*testing.T" in params:
            out.append(Case(name, child.start_point[0] + 1, child.start_point[1] + 1,
                            child.child_by_field_name("body")))
    return out


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
        elif child.type == "function_item" and any(re.match(r"#\[(\w+::)?test\b", a) for a in attrs):
            skip = None
            ignore = next((a for a in attrs if a.startswith("#[ignore")), None)
            if ignore is not None:
                m = re.search(r'"(.*)"', ignore)
                skip = m.group(1) if m else ""
            names = {re.sub(r"[\[\]#(=].*|#\[", "", a.removeprefix("#[")) for a in attrs}
            out.append(Case("::".join([*path, text(child.child_by_field_name("name"))]),
                            child.start_point[0] + 1, child.start_point[1] + 1, child.child_by_field_name("body"),
                            skip, names))
        attrs = []
    return out


def _csharp(root: Any) -> list[Case]:
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "method_declaration":
            attrs = {}
            for lst in (c for c in node.named_children if c.type == "attribute_list"):
                for a in (c for c in lst.named_children if c.type == "attribute"):
                    attrs[text(a.child_by_field_name("name")).split(".")[-1]] = norm(text(a))
            if CSHARP_TESTS & set(attrs):
                skip = None
                m = next((re.search(r'Skip="([^"]*)"', v) for v in attrs.values() if "Skip=" in v), None)
                if m is not None:
                    skip = m.group(1)
                if "Ignore" in attrs:
                    r = re.search(r'"([^"]*)"', attrs["Ignore"])
                    skip = r.group(1) if r else ""
                out.append(Case(text(node.child_by_field_name("name")), node.start_point[0] + 1,
                                node.start_point[1] + 1, node.child_by_field_name("body"), skip, set(attrs)))
            continue
        stack.extend(reversed(node.named_children))
    return out


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
            named = [a for a in args.named_children if a.type != "comment"] if args is not None else []
            title = _string(named[0]) if named else None
            callback = next((a for a in named[1:] if a.type in ("arrow_function", "function_expression",
                                                               "function")), None)
            is_skip = skipped or head in ("xit", "xtest", "xdescribe") or tail.split(".")[0] in JS_SKIPS
            if title is not None and head in ("describe", "xdescribe", "suite", "context"):
                if callback is not None:
                    out += _js(callback.child_by_field_name("body") or callback, [*path, title], is_skip)
                continue
            if title is not None and head in JS_TEST_CALLS and tail not in ("each",):
                body = callback.child_by_field_name("body") if callback is not None else None
                out.append(Case(" > ".join([*path, title]), child.start_point[0] + 1, child.start_point[1] + 1,
                                body, "" if is_skip else None))
                continue
        out += _js(child, path, skipped)
    return out
