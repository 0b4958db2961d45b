"""Reject-level rules about test doubles: so many that the test checks the mocks, or the very code under test
replaced by one."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.smells.config import SmellsConfig
from assay.smells.context import TestFunc, dotted, last_name
from assay.smells.model import Hit, rule

MOCK_FACTORIES = {"Mock", "MagicMock", "AsyncMock", "NonCallableMock", "NonCallableMagicMock", "PropertyMock",
                  "create_autospec", "spy", "stub"}


def _is_patch(name: str | None) -> bool:
    if not name:
        return False
    return "patch" in name.split(".") or name.endswith("monkeypatch.setattr")


def _patches(test: TestFunc) -> list[ast.Call | ast.AST]:
    """Patch decorators of the test and its class, and patch calls in its body."""
    aliases = test.module.aliases
    found: list[ast.AST] = []
    for owner in (test.cls, test.node):
        for d in owner.decorator_list if owner is not None else []:
            if _is_patch(dotted(d.func if isinstance(d, ast.Call) else d, aliases)):
                found.append(d)
    found += [c for c, name in test.calls if _is_patch(name)]
    return found


@rule("AS004", "excessive-mocking", "reject", "excessive mocking",
      "Test through a smaller unit or use real collaborators (fakes, tmp_path); "
      "a test of mostly mocks checks the mocks.")
def excessive_mocking(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """More mock objects and patches than `max_mocks` (default 6) in one test.

    Bad:
        @patch("shop.db")
        @patch("shop.mailer")
        @patch("shop.clock")
        @patch("shop.tax")
        @patch("shop.stock")
        @patch("shop.audit")
        @patch("shop.cache")
        def test_checkout(*mocks):
            checkout(cart())
            mocks[0].commit.assert_called_once()

    Good:
        def test_checkout(tmp_path):
            shop = Shop(db=SqliteDb(tmp_path / "db"), mailer=FakeMailer())
            shop.checkout(cart())
            assert shop.orders() == [cart().order()]
    """
    n = len(_patches(test)) + sum(1 for _, name in test.calls if last_name(name) in MOCK_FACTORIES)
    if n > cfg.max_mocks:
        yield Hit.at(test.node, f"excessive mocking: {n} mocks/patches (max {cfg.max_mocks})")


def _target(call: ast.AST, test: TestFunc) -> tuple[str, str] | None:
    """(owner, attribute) a patch replaces: `patch("a.b.f")` -> ("a.b", "f")."""
    if not isinstance(call, ast.Call) or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and "." in first.value:
        owner, _, attr = first.value.rpartition(".")
        return owner, attr
    if len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        owner = dotted(first, test.module.aliases)
        return (owner, call.args[1].value) if owner else None
    return None


def _same_path(a: str, b: str) -> bool:
    a, b = a.lstrip("."), b.lstrip(".")
    return a == b or a.endswith("." + b) or b.endswith("." + a)


@rule("AS005", "mocked-sut", "reject", "the code under test is mocked",
      "Mock only collaborators of the code under test, never the function the test calls and checks.")
def mocked_sut(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test that patches the very function (or method) it then calls checks the mock's return value.

    Bad:
        @patch("pricing.total", return_value=6)
        def test_total(_):
            assert pricing.total([1, 2, 3]) == 6

    Good:
        @patch("pricing.fetch_rates", return_value={"EUR": 1.0})
        def test_total(_):
            assert pricing.total([1, 2, 3], "EUR") == 6
    """
    aliases = test.module.aliases
    patched = [(p, t) for p in _patches(test) if (t := _target(p, test))]
    if not patched:
        return
    instances: dict[str, str] = {}  # local name -> class it was built from
    for name, values in test.assigned.items():
        if len(values) == 1 and isinstance(values[0], ast.Call):
            cls = dotted(values[0].func, aliases)
            if cls:
                instances[name] = cls
    patch_ids = {id(p) for p, _ in patched}
    for call, name in test.calls:
        if id(call) in patch_ids or not name:
            continue
        func = call.func
        for _, (owner, attr) in patched:
            direct = last_name(name) == attr and _same_path(name, f"{owner}.{attr}")
            method = isinstance(func, ast.Attribute) and func.attr == attr and isinstance(func.value, ast.Name) \
                and _same_path(instances.get(func.value.id, "\0"), owner)
            if direct or method:
                yield Hit.at(call, f"`{attr}` is patched and then called: the test checks its mock")
                return
