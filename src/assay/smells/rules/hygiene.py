"""Warn- and info-level rules: habits that make tests slow, flaky or hard to read, but not worthless."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from assay.smells.config import SmellsConfig
from assay.smells.context import Module, TestFunc, dotted, last_name
from assay.smells.model import Hit, rule

NETWORK = ("requests.", "httpx.", "urllib.request.urlopen", "urllib.urlopen", "http.client.", "socket.socket",
           "socket.create_connection", "aiohttp.ClientSession", "smtplib.", "ftplib.")
FS_WRITES = {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "os.mkdir", "os.makedirs", "os.rename",
             "os.replace", "shutil.rmtree", "shutil.move", "shutil.copy", "shutil.copy2", "shutil.copyfile",
             "shutil.copytree"}
PATH_WRITES = {"write_text", "write_bytes", "unlink", "mkdir", "touch", "rmdir"}
CLOCK = {"time.time", "time.time_ns", "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
         "datetime.date.today"}
TMP = re.compile(r"tmp|temp", re.IGNORECASE)
PUBLIC_UNDERSCORE = {"_replace", "_asdict", "_fields", "_make", "_field_defaults", "_meta", "_value_", "_name_",
                     "_missing_", "_ignore_", "_generate_next_value_"}


@rule("AS010", "sleep", "warn", "time.sleep in a unit test",
      "Wait on the condition itself or inject a clock; sleeping makes tests slow and flaky.")
def sleep(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Sleeping makes a test slow, and still flaky on a loaded machine.

    Bad:
        def test_expiry():
            c = Cache(ttl=0.1)
            time.sleep(0.2)
            assert c.get("k") is None

    Good:
        def test_expiry():
            clock = FakeClock()
            c = Cache(ttl=1, clock=clock)
            clock.advance(2)
            assert c.get("k") is None
    """
    for call, name in test.calls:
        if name == "time.sleep":
            yield Hit.at(call)


def _in_subtest_loop(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and last_name(dotted(n.func, {})) == "subTest" for n in ast.walk(node))


@rule("AS011", "conditional-assertion", "warn", "assertion under conditional logic",
      "Make each case its own test (pytest.mark.parametrize / subTest); avoid `if` around checks.")
def conditional_assertion(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Assertions under `if` may never run; assertions in loops hide which case failed.
    A loop that only builds data is fine, and so is a loop using `self.subTest`.

    Bad:
        def test_discounts():
            for amount, expected in CASES:
                if amount > 0:
                    assert discount(amount) == expected

    Good:
        @pytest.mark.parametrize("amount, expected", CASES)
        def test_discount(amount, expected):
            assert discount(amount) == expected
    """
    seen: set[int] = set()
    for a in test.assertions:
        if a.kind == "raise":
            continue
        for anc in test.ancestors(a.node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                break
            if isinstance(anc, (ast.If, ast.For, ast.AsyncFor, ast.While)) and id(anc) not in seen:
                seen.add(id(anc))
                if isinstance(anc, ast.If):
                    yield Hit.at(anc, "assertion under `if`: it may never run")
                elif not _in_subtest_loop(anc):
                    yield Hit.at(anc, "assertion inside a loop: one failure hides the other cases")


def _unseeded_random(call: ast.Call, name: str) -> bool:
    if last_name(name) in ("Random", "default_rng", "RandomState"):
        return not call.args and not call.keywords
    for prefix in ("random.", "numpy.random."):
        if name.startswith(prefix) and "." not in name[len(prefix):]:
            return last_name(name) not in ("seed", "SystemRandom", "Generator", "PCG64")
    return False


@rule("AS012", "nondeterminism", "warn", "unseeded randomness or wall-clock time",
      "Seed the generator (random.Random(42)) and pass times in explicitly (or freeze them).")
def nondeterminism(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Unseeded random values and the current time make a test's input differ on every run.

    Bad:
        def test_shuffle_keeps_items():
            items = [random.randint(0, 100) for _ in range(5)]
            assert sorted(shuffled(items)) == sorted(items)

    Good:
        def test_shuffle_keeps_items():
            rng = random.Random(42)
            items = [rng.randint(0, 100) for _ in range(5)]
            assert sorted(shuffled(items)) == sorted(items)
    """
    if test.module.seeded:
        return
    for call, name in test.calls:
        if name and (name in CLOCK or name in ("uuid.uuid1", "uuid.uuid4") or _unseeded_random(call, name)):
            yield Hit.at(call, f"nondeterministic input: `{name}()`")


def _mentions_tmp(test: TestFunc, node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if TMP.search(n.id) or any(TMP.search(ast.dump(v)) for v in test.assigned.get(n.id, [])
                                       if isinstance(v, (ast.expr, ast.With))):
                return True
        elif isinstance(n, ast.Attribute) and TMP.search(n.attr):
            return True
    return False


def _writes_file(call: ast.Call, name: str) -> bool:
    if name == "open":
        mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
        return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and any(c in mode.value for c in "wax+")
    return name in FS_WRITES or (isinstance(call.func, ast.Attribute) and call.func.attr in PATH_WRITES
                                 and name.count(".") >= 1 and "Path" in name)


@rule("AS013", "external-resource", "warn", "network or real filesystem access",
      "Use tmp_path for files and a local fake (or a recorded response) for the network.")
def external_resource(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Tests that talk to the network or write outside a temporary directory are slow,
    flaky, and can damage the machine they run on.

    Bad:
        def test_save():
            save_report("/tmp/report.txt")
            assert open("/tmp/report.txt").read() == "ok"

    Good:
        def test_save(tmp_path):
            save_report(tmp_path / "report.txt")
            assert (tmp_path / "report.txt").read_text() == "ok"
    """
    for call, name in test.calls:
        if not name:
            continue
        if name.startswith(NETWORK):
            yield Hit.at(call, f"network access: `{name}()`")
        elif _writes_file(call, name) and not _mentions_tmp(test, call):
            yield Hit.at(call, f"writes to the real filesystem: `{name}()` outside tmp_path")


@rule("AS014", "private-access", "warn", "private member access or reflection",
      "Test through the public interface; private names change without notice.")
def private_access(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Reading `_private` members, `__dict__`, or attributes by string ties the test to internals.

    Bad:
        def test_cache():
            c = Cache()
            c.put("k", 1)
            assert c._store == {"k": 1}

    Good:
        def test_cache():
            c = Cache()
            c.put("k", 1)
            assert c.get("k") == 1
    """
    reported: set[str] = set()
    aliases = test.module.aliases
    for node in test.of(ast.Attribute):
        attr = node.attr
        private = attr.startswith("_") and not attr.endswith("__") and attr not in PUBLIC_UNDERSCORE
        if (private or attr == "__dict__") and not (isinstance(node.value, ast.Name)
                                                    and node.value.id in ("self", "cls")) and attr not in reported:
            reported.add(attr)
            yield Hit.at(node, f"private access: `.{attr}`")
    for node in test.of(ast.Name):
        if node.id.startswith("_") and not node.id.startswith("__") and node.id in aliases \
                and node.id not in reported:
            reported.add(node.id)
            yield Hit.at(node, f"private access: `{node.id}` imported from its module")
    for call, name in test.calls:
        if name in ("getattr", "setattr") and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant):
            yield Hit.at(call, f"reflection: `{name}(..., {call.args[1].value!r})`")


@rule("AS015", "print", "warn", "print in a test",
      "Remove the print; put what matters into an assertion (its message) instead.")
def print_call(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Output from a passing test is noise nobody reads; a failing test should say why in its assertion.

    Bad:
        def test_total():
            print(total([1, 2]))
            assert total([1, 2]) == 3

    Good:
        def test_total():
            assert total([1, 2]) == 3
    """
    for call, name in test.calls:
        if name in ("print", "pprint", "pprint.pprint"):
            yield Hit.at(call)


def _magic(node: ast.AST) -> ast.Constant | None:
    tolerances: set[int] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.keyword):  # approx(x, rel=1e-9), places=3: tolerances, not expectations
            tolerances.update(id(c) for c in ast.walk(n.value))
        elif isinstance(n, ast.Constant) and type(n.value) in (int, float) and id(n) not in tolerances \
                and not (-1 <= n.value <= 10 or n.value == 100):
            return n
    return None


@rule("AS016", "magic-number", "warn", "magic number in assertion",
      "Name the number (a constant or a variable saying what it is), or derive it from the input.")
def magic_number(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """An unexplained number in an assertion does not say where it comes from. Small numbers
    (-10 to 10) and 100 are exempt.

    Bad:
        def test_price():
            assert price(order) == 4213

    Good:
        def test_price():
            base, shipping = 4000, 213
            assert price(order) == base + shipping
    """
    for a in test.assertions:
        if a.kind in ("assert", "method"):
            const = _magic(a.node.test if isinstance(a.node, ast.Assert) else ast.Tuple(elts=list(a.node.args)))
            if const is not None:
                yield Hit.at(const, f"magic number {const.value!r} in assertion")


def _statement_lists(test: TestFunc) -> Iterator[list[ast.stmt]]:
    yield test.node.body
    for node in test.nodes:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


@rule("AS017", "duplicate-assert", "warn", "duplicate assertion",
      "Remove the repeated assertion, or change it to check what was meant.")
def duplicate_assert(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """The same assertion twice, with nothing in between that could change its outcome, is a
    copy-paste slip: usually a different value was meant.

    Bad:
        def test_bounds():
            assert clamp(-5) == 0
            assert clamp(-5) == 0

    Good:
        def test_bounds():
            assert clamp(-5) == 0
            assert clamp(15) == 10
    """
    for block in _statement_lists(test):
        seen: set[str] = set()
        for stmt in block:
            if not isinstance(stmt, ast.Assert):
                seen.clear()
                continue
            key = ast.dump(stmt)
            if key in seen:
                yield Hit.at(stmt)
            seen.add(key)


@rule("AS018", "broad-raises", "warn", "pytest.raises on a broad exception without match=",
      "Expect the specific exception type, and pass match= for its message.")
def broad_raises(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """`pytest.raises(Exception)` passes on any error, including a typo in the test itself.

    Bad:
        def test_parse_rejects_garbage():
            with pytest.raises(Exception):
                parse("garbage")

    Good:
        def test_parse_rejects_garbage():
            with pytest.raises(ValueError, match="unexpected 'g'"):
                parse("garbage")
    """
    bound: dict[int, str] = {}
    for w in test.of(ast.With, ast.AsyncWith):
        for item in w.items:
            if isinstance(item.optional_vars, ast.Name):
                bound[id(item.context_expr)] = item.optional_vars.id
    for call, name in test.calls:
        if last_name(name) not in ("raises", "assertRaises") or not call.args:
            continue
        types = call.args[0].elts if isinstance(call.args[0], ast.Tuple) else [call.args[0]]
        broad = any(last_name(dotted(t, {})) in ("Exception", "BaseException") for t in types)
        used = id(call) in bound and sum(1 for n in test.of(ast.Name) if n.id == bound[id(call)]) > 1
        if broad and not any(k.arg == "match" for k in call.keywords) and not used:
            yield Hit.at(call)


def _skip_without_reason(d: ast.AST, aliases: dict[str, str]) -> str | None:
    call = d if isinstance(d, ast.Call) else None
    name = dotted(call.func if call else d, aliases) or ""
    if not name.endswith(("mark.skip", "mark.skipif", "unittest.skip")):
        return None
    if call is None:
        return name
    if any(k.arg == "reason" for k in call.keywords):
        return None
    positional_reason = 0 if name.endswith("skip") else 1
    return name if len(call.args) <= positional_reason else None


@rule("AS019", "skip-without-reason", "warn", "skipped test without a reason",
      "Give the skip a reason (`reason=\"...\"`) saying when it can be re-enabled.")
def skip_without_reason(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A skip without a reason is forgotten; nobody knows when the test may run again.

    Bad:
        @pytest.mark.skip
        def test_export():
            assert export(doc) == b"%PDF"

    Good:
        @pytest.mark.skip(reason="needs the PDF backend, see #42")
        def test_export():
            assert export(doc) == b"%PDF"
    """
    for owner in (test.cls, test.node):
        for d in owner.decorator_list if owner is not None else []:
            name = _skip_without_reason(d, test.module.aliases)
            if name:
                yield Hit.at(d, f"`@{name.rsplit('.', 2)[-2]}.{last_name(name)}` without a reason")
    for call, name in test.calls:
        if name in ("pytest.skip", "self.skipTest") and not call.args and not call.keywords:
            yield Hit.at(call, f"`{name}()` without a reason")


@rule("AS008", "duplicate-test", "reject", "duplicate test",
      "Delete the copy, or change it to check the case it was meant for.")
def duplicate_test(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Two tests with the same body (and the same decorators and parameters), names aside,
    check the same thing twice: one of them was meant to check something else.

    Bad:
        def test_add():
            assert add(2, 3) == 5

        def test_add_negative():
            assert add(2, 3) == 5

    Good:
        def test_add():
            assert add(2, 3) == 5

        def test_add_negative():
            assert add(-2, -3) == -5
    """
    first = test.module.duplicates.get(id(test.node))
    if first is not None:
        yield Hit.at(test.node, f"duplicate test: same body as {first}")


@rule("AS022", "long-test", "info", "long test",
      "Split the test by behaviour; long tests check many things at once and are hard to fix.")
def long_test(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test longer than `max_test_lines` (default 60) lines usually checks several behaviours.

    Bad:
        def test_everything():
            ...  # 80 lines of setup, calls and checks

    Good:
        def test_refund_restores_stock():
            ...  # setup, one call, the checks of one behaviour
    """
    lines = (test.node.end_lineno or test.node.lineno) - test.node.lineno + 1
    if lines > cfg.max_test_lines:
        yield Hit.at(test.node, f"long test: {lines} lines (max {cfg.max_test_lines})")


@rule("AS023", "no-tests", "info", "file defines no tests",
      "Name test functions test_* (in Test* classes or unittest.TestCase subclasses).", scope="file")
def no_tests(module: Module, cfg: SmellsConfig) -> Iterator[Hit]:
    """A test file that defines no test function runs nothing.

    Bad:
        def check_total():
            assert total([1]) == 1

    Good:
        def test_total():
            assert total([1]) == 1
    """
    if not module.tests:
        yield Hit(1, 1)
