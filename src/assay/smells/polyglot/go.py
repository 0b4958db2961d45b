"""Go test files: `func TestX(t *testing.T)`, failures by `t.Error*`/`t.Fatal*`, `t.Skip()` without
a reason."""

from __future__ import annotations

import re
from typing import Any

from assay.smells.polyglot.syntax import ASSERT_NAME, Call, Case, Family, text

GO_FAIL = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"}


def _go(root: Any) -> list[Case]:
    out = []
    for child in root.named_children:
        if child.type != "function_declaration":
            continue
        name = text(child.child_by_field_name("name"))
        params = text(child.child_by_field_name("parameters"))
        if re.match(r"Test[A-Z_0-9]?", name) and "*testing.T" in params:
            out.append(
                Case(
                    name,
                    child.start_point[0] + 1,
                    child.start_point[1] + 1,
                    child.child_by_field_name("body"),
                )
            )
    return out


def is_assertion(call: Call) -> bool:
    return (
        call.name in GO_FAIL
        or bool(ASSERT_NAME.match(call.name))
        or call.callee.split(".")[0] in ("assert", "require")
        or "t" in call.args
    )


def unexplained_skip(call: Call) -> bool:
    return call.callee.endswith((".Skip", ".SkipNow", ".Skipf")) and not call.args


def _package(root: Any) -> str | None:
    clause = next((c for c in root.named_children if c.type == "package_clause"), None)
    return text(clause.named_children[0]) if clause is not None else None


FAMILY = Family(
    cases=lambda root, path: _go(root),
    is_assertion=is_assertion,
    unexplained_skip=unexplained_skip,
    package=_package,
)
