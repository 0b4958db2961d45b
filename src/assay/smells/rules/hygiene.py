"""Warn-level rules about what a test touches: the clock, randomness, the network and disk
(internals: `private`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from assay.config.smells import SmellsConfig
from assay.smells.model import Hit, rule
from assay.smells.names import dotted, last_name
from assay.smells.rules.mocking import patched_paths, same_path
from assay.smells.testfunc import TestFunc

HTTP_VERBS = {
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "head",
    "options",
    "request",
    "stream",
    "send",
}
HTTP_CLIENTS = {
    "requests.Session",
    "requests.session",
    "httpx.Client",
    "httpx.AsyncClient",
    "aiohttp.ClientSession",
}
NETWORK = (
    *(f"{lib}.{verb}" for lib in ("requests", "httpx") for verb in HTTP_VERBS),
    "urllib.request.urlopen",
    "urllib.urlopen",
    "http.client.",
    "socket.socket",
    "socket.create_connection",
    "smtplib.",
    "ftplib.",
)
FS_WRITES = {
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "os.mkdir",
    "os.makedirs",
    "os.rename",
    "os.replace",
    "shutil.rmtree",
    "shutil.move",
    "shutil.copy",
    "shutil.copy2",
    "shutil.copyfile",
    "shutil.copytree",
}
PATH_WRITES = {"write_text", "write_bytes", "unlink", "mkdir", "touch", "rmdir"}
CLOCK = {
    "time.time",
    "time.time_ns",
    "datetime.datetime.now",
    "datetime.datetime.utcnow",
    "datetime.datetime.today",
    "datetime.date.today",
}
TMP = re.compile(r"tmp|temp", re.IGNORECASE)


@rule(
    "AS010",
    "sleep",
    "warn",
    "time.sleep in a unit test",
    "Wait on the condition itself or inject a clock; sleeping makes tests slow and flaky.",
)
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


def _faked(test: TestFunc, name: str) -> bool:
    """The test patches what it calls (`patch("requests.get")`): the call reaches the fake."""
    return any(same_path(name, p) for p in patched_paths(test))


def _unseeded_random(call: ast.Call, name: str) -> bool:
    if last_name(name) in ("Random", "default_rng", "RandomState"):
        return not call.args and not call.keywords
    for prefix in ("random.", "numpy.random."):
        if name.startswith(prefix) and "." not in name[len(prefix) :]:
            return last_name(name) not in ("seed", "SystemRandom", "Generator", "PCG64")
    return False


@rule(
    "AS012",
    "nondeterminism",
    "warn",
    "unseeded randomness or wall-clock time",
    "Seed the generator (random.Random(42)) and pass times in explicitly (or freeze them).",
)
def nondeterminism(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Unseeded random values and the current time make a test's input differ on every run, so a
    failure may not come back. A test that checks nothing (a benchmark) has no outcome to change,
    and a patched clock or generator (`monkeypatch.setattr(time, "time", ...)`) is not flagged. One
    finding per test and source (random, clock, uuid), at its first use: one seed or frozen clock
    fixes them all. When such a value decides an assertion by itself, AS024 rejects the test.

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
    if test.module.seeded or not test.assertions:
        return  # a test that checks nothing (a benchmark) has no outcome to change
    # kind -> its calls: one seed (or frozen clock) fixes all
    found: dict[str, list[tuple[ast.Call, str]]] = {}
    for call, name in test.calls:
        if not name or _faked(test, name):
            continue
        kind = (
            "clock"
            if name in CLOCK
            else "uuid"
            if name in ("uuid.uuid1", "uuid.uuid4")
            else "random"
            if _unseeded_random(call, name)
            else None
        )
        if kind:
            found.setdefault(kind, []).append((call, name))
    for calls in found.values():
        call, name = calls[0]
        more = f" (and {len(calls) - 1} more)" if len(calls) > 1 else ""
        yield Hit.at(call, f"nondeterministic input: `{name}()`{more}")


def _mentions_tmp(test: TestFunc, node: ast.AST, depth: int = 0) -> bool:
    """The expression names a temporary directory, directly or through the local names it is built
    from (`catalog = messages / "x.po"`, `messages = tmp_path / "locale"`)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if TMP.search(n.id):
                return True
            for v in test.assigned.get(n.id, []) if depth < 5 else []:
                sources = [i.context_expr for i in v.items] if isinstance(v, ast.With) else [v]
                if any(
                    isinstance(e, ast.expr) and _mentions_tmp(test, e, depth + 1) for e in sources
                ):
                    return True
        elif isinstance(n, ast.Attribute) and TMP.search(n.attr):
            return True
    return False


def _client_call(test: TestFunc, call: ast.Call) -> bool:
    """A request sent through an HTTP client object: `requests.Session().get(u)`, `s.post(u)` after
    `s = httpx.Client()` or `with requests.Session() as s`. Building the client sends nothing."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in HTTP_VERBS):
        return False
    receiver: ast.AST | None = func.value
    if isinstance(receiver, ast.Name):
        local = receiver.id
        values = test.assigned.get(local, [])
        if len(values) != 1:
            return False
        receiver = values[0]
        if isinstance(receiver, ast.With):
            receiver = next(
                (
                    i.context_expr
                    for i in receiver.items
                    if isinstance(i.optional_vars, ast.Name) and i.optional_vars.id == local
                ),
                None,
            )
    return (
        isinstance(receiver, ast.Call)
        and dotted(receiver.func, test.module.aliases) in HTTP_CLIENTS
    )


def _writes_file(call: ast.Call, name: str) -> bool:
    if name == "open":
        mode = (
            call.args[1]
            if len(call.args) > 1
            else next((k.value for k in call.keywords if k.arg == "mode"), None)
        )
        return (
            isinstance(mode, ast.Constant)
            and isinstance(mode.value, str)
            and any(c in mode.value for c in "wax+")
        )
    return name in FS_WRITES or (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in PATH_WRITES
        and name.count(".") >= 1
        and "Path" in name
    )


@rule(
    "AS013",
    "external-resource",
    "warn",
    "network or real filesystem access",
    "Use tmp_path for files and a local fake (or a recorded response) for the network.",
)
def external_resource(test: TestFunc, cfg: SmellsConfig) -> Iterator[Hit]:
    """Tests that talk to the network or write outside a temporary directory are slow, flaky, and
    can damage the machine they run on. Network access is a request (`requests.get`, a `Session`'s
    `.post`, `urlopen`, an SMTP/FTP connection), not building a client or reading an exception
    class. A call the test has patched (`patch("requests.get")`) reaches the fake, and a path built
    from `tmp_path` (or a `tempfile` directory), even in steps through local names, is temporary:
    neither is flagged. A helper the test defines that writes to the path it is handed
    (`open(self.filename, "w")` in a storage class of the test's) writes where the test says: not
    flagged when the test takes a temporary directory.

    Bad:
        def test_save():
            with open("/tmp/report.txt", "w") as f:
                save_report(f)
            assert open("/tmp/report.txt").read() == "ok"

    Good:
        def test_save(tmp_path):
            out = tmp_path / "report.txt"
            with open(out, "w") as f:
                save_report(f)
            assert out.read_text() == "ok"
    """
    for call, name in test.calls:
        if not name or _faked(test, name):
            continue
        if (
            (name in NETWORK or name.startswith(NETWORK))
            and "()" not in name
            or _client_call(test, call)
        ):
            # `requests.get(u).json()`: reported at `get`
            yield Hit.at(call, f"network access: `{name}()`")
        elif (
            _writes_file(call, name)
            and not _mentions_tmp(test, call)
            and not (_handed_in(test, call) and _uses_tmp(test))
        ):
            yield Hit.at(call, f"writes to the real filesystem: `{name}()` outside tmp_path")


def _handed_in(test: TestFunc, call: ast.Call) -> bool:
    """A write inside a helper the test defines (a storage class's `write`, a nested function) to a
    path made only of the helper's parameters (`open(self.filename, "w")`): the path is whatever the
    test hands it, so the helper's line alone cannot say where it writes (tinydb's `test_yaml`)."""
    nested = [
        a
        for a in test.ancestors(call)
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    ]
    params = {
        x.arg for f in nested for x in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs)
    }
    parts = list(call.args) + [k.value for k in call.keywords if k.arg != "mode"]
    if isinstance(call.func, ast.Attribute):
        parts.append(call.func.value)
    names = {n.id for e in parts for n in ast.walk(e) if isinstance(n, ast.Name)}
    return bool(nested) and bool(names) and names <= params


def _uses_tmp(test: TestFunc) -> bool:
    """The test takes a temporary directory (a fixture, a `tempfile` call) somewhere."""
    return any(TMP.search(p) for p in test.params) or any(
        TMP.search(n.id) for n in test.of(ast.Name)
    )
