"""Reject-level rules about test doubles: so many that the test checks the mocks, or the very code
under test replaced by one."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.testfunc import TestFunc

MOCK_FACTORIES = {
    "Mock",
    "MagicMock",
    "AsyncMock",
    "NonCallableMock",
    "NonCallableMagicMock",
    "PropertyMock",
    "create_autospec",
    "spy",
    "stub",
}


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


def patched_paths(test: TestFunc) -> list[str]:
    """Dotted paths the test replaces: `patch("requests.get")`,
    `monkeypatch.setattr(time, "time", f)`."""
    key = ("patched", id(test.node), id(test.cls))
    if key not in test.module.memo:
        test.module.memo[key] = [
            f"{t[0]}.{t[1]}" for p in _patches(test) if (t := _target(p, test))
        ]
    return test.module.memo[key]  # type: ignore[return-value]


@rule(
    "AS004",
    "excessive-mocking",
    "reject",
    "excessive mocking",
    "Test through a smaller unit or use real collaborators (fakes, tmp_path); "
    "a test of mostly mocks checks the mocks.",
)
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
    if (
        len(call.args) >= 2
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
    ):
        named = dotted(first, test.module.aliases)
        return (named, call.args[1].value) if named else None
    return None


def same_path(a: str, b: str) -> bool:
    a, b = a.lstrip("."), b.lstrip(".")
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def _project_code(test: TestFunc, owner: str, attr: str) -> bool:
    """The patched name is the project's own code, never a builtin, the standard library or a
    dependency. With the project's modules known (the analyser's targets): a name in one of them.
    Without: anything but builtins and the standard library."""
    index = test.module.targets
    if index is not None:
        return index.owns(f"{owner}.{attr}")
    root = owner.lstrip(".").split(".")[0]
    return root not in sys.stdlib_module_names and root not in ("builtins", "__builtin__")


def _class_of(test: TestFunc, receiver: ast.AST, instances: dict[str, str]) -> str | None:
    """The class path an object was built from: `cart` after `cart = Cart()`, `Cart()`, or a factory
    of the class (`Duration.parse(s)` -> the class path followed by the factory's name)."""
    if isinstance(receiver, ast.Name):
        return instances.get(receiver.id)
    if isinstance(receiver, ast.Call):
        return dotted(receiver.func, test.module.aliases)
    return None


def _owner_class(path: str) -> str:
    """`pkg.Class.parse` (a factory) -> `pkg.Class`; other paths unchanged."""
    base, _, last = path.rpartition(".")
    return base if base and last_name(base)[:1].isupper() and not last[:1].isupper() else path


def _built_from(cls: str | None, owner: str) -> bool:
    if not cls:
        return False
    if same_path(cls, owner):
        return True
    base = cls.rpartition(".")[0]  # Class.parse(...): a factory of Class
    return bool(base) and last_name(owner)[:1].isupper() and same_path(base, owner)


def _kept_original(test: TestFunc, name: str, patch: ast.AST) -> bool:
    """A bare local name the test bound before the patch holds the original, not the mock:
    python-box's `append = data.append`, then `monkeypatch.setattr(data, "append", bounded)`,
    whose wrapper calls `append(item)` to delegate (the test checks `extend`)."""
    values = test.assigned.get(name) if "." not in name else None
    line = getattr(patch, "lineno", 0)
    return bool(values) and all(getattr(v, "lineno", line) < line for v in values or [])


@rule(
    "AS005",
    "mocked-sut",
    "reject",
    "the code under test is mocked",
    "Mock only collaborators of the code under test, never the function the test calls and checks.",
)
def mocked_sut(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test that patches the very function (or method) of the project it then calls checks the
    mock's return value. Caught: `patch("pkg.mod.f")` then `pkg.mod.f(...)` or an imported `f(...)`;
    `patch("pkg.Class.method")` or `patch.object(Class, "method")` then `.method()` on an object
    built from `Class` (`Class(...)`, or one of its factories like `Class.parse(...)`). Patched
    builtins, standard-library and third-party functions (`builtins.print`, `time.time`,
    `requests.get`) are collaborators, never the code under test: the project's own modules are.

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
    instances: dict[str, str] = {}  # local name -> class (or class factory) it was built from
    for local, values in test.assigned.items():
        if len(values) == 1 and isinstance(values[0], ast.Call):
            cls = dotted(values[0].func, aliases)
            if cls:
                instances[local] = cls
    # `patch.object(cart, "price")` on a local object: judged by the class the object was built from
    patched = [
        (p, t)
        for p in _patches(test)
        if (t := _target(p, test))
        and _project_code(test, _owner_class(instances[t[0]]) if t[0] in instances else t[0], t[1])
    ]
    if not patched:
        return
    patch_ids = {id(p) for p, _ in patched}
    for call, name in test.calls:
        if id(call) in patch_ids or not name:
            continue
        func = call.func
        for p, (owner, attr) in patched:
            direct = (
                last_name(name) == attr
                and same_path(name, f"{owner}.{attr}")
                and not _kept_original(test, name, p)
            )
            method = (
                isinstance(func, ast.Attribute)
                and func.attr == attr
                and _built_from(_class_of(test, func.value, instances), owner)
            )
            if direct or method:
                yield Hit.at(call, f"`{attr}` is patched and then called: the test checks its mock")
                return
