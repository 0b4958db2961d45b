"""C# test files (xUnit, NUnit, MSTest): test methods by attribute, `Skip=`/`[Ignore]`,
named arguments."""

from __future__ import annotations

import re
from typing import Any

from assay.smells.polyglot.syntax import Case, Family, norm, text

CSHARP_TESTS = {"Fact", "Theory", "Test", "TestCase", "TestMethod", "DataTestMethod"}


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
                m = next(
                    (re.search(r'Skip="([^"]*)"', v) for v in attrs.values() if "Skip=" in v), None
                )
                if m is not None:
                    skip = m.group(1)
                if "Ignore" in attrs:
                    r = re.search(r'"([^"]*)"', attrs["Ignore"])
                    skip = r.group(1) if r else ""
                out.append(
                    Case(
                        text(node.child_by_field_name("name")),
                        node.start_point[0] + 1,
                        node.start_point[1] + 1,
                        node.child_by_field_name("body"),
                        skip,
                        set(attrs),
                    )
                )
            continue
        stack.extend(reversed(node.named_children))
    return out


FAMILY = Family(
    cases=lambda root, path: _csharp(root), named_args=True, own_equality=True, getters=True
)
