"""Verdicts that follow the code, not the names of tests or functions."""

from __future__ import annotations

import textwrap

from assay.smells import analyze

CHECKS = {
    "pkg/checks.py": textwrap.dedent(
        """\
        def in_stock(order):
            return order.total > 0 and bool(order.items)


        def is_ready(order):
            return order.items
        """
    )
}


def weak(source: str) -> list[int]:
    findings = analyze(textwrap.dedent(source), "tests/test_checks.py", CHECKS)
    return [f.line for f in findings if f.rule == "AS009"]


def test_truthiness_of_a_target_function_is_judged_on_what_it_returns():
    # `in_stock` returns a comparison: asserting its answer is the whole check, name aside
    assert (
        weak(
            """\
            from pkg.checks import in_stock

            def test_valid():
                ok = in_stock(order(3))
                assert ok
            """
        )
        == []
    )
    # `is_ready` returns the items themselves: truthiness says little, though named like a predicate
    assert weak(
        """\
        from pkg.checks import is_ready

        def test_ready():
            ready = is_ready(order(3))
            assert ready
        """
    ) == [5]


def no_assertion(source: str) -> list[int]:
    findings = analyze(textwrap.dedent(source), "tests/test_checks.py", {})
    return [f.line for f in findings if f.rule == "AS001"]


def test_a_helper_of_the_file_counts_as_a_check_by_its_code_not_its_name():
    source = """\
        from pkg.checks import in_stock

        def check_stock(order):
            return in_stock(order)

        def check_total(order):
            return sum(order)

        def verify_total(order):
            assert sum(order) > 0

        def test_stock():
            check_stock([1])

        def test_total():
            check_total([1])

        def test_verified():
            verify_total([1])
        """
    # check_stock hands its work to code not in the file: its name is all there is to go on
    assert no_assertion(source) == [15]


def test_a_call_of_another_files_test_routine_is_a_check():
    """idna 3.7's codec tests run the checks of `test_idna.IDNATests.test_decode` with another
    decoder: that call is where their assertions are."""
    source = """\
        import unittest

        class CodecTests(unittest.TestCase):
            def setUp(self):
                from . import test_idna
                self.idnatests = test_idna.IDNATests()

            def test_direct_decode(self):
                self.idnatests.test_decode(decode=lambda b: b.decode("idna2008"))

            def test_runs_only(self):
                self.idnatests.decode_all()
        """
    assert no_assertion(source) == [11]


def tautologies(source: str, sources: dict[str, str]) -> list[int]:
    findings = analyze(textwrap.dedent(source), "tests/test_spec.py", sources)
    return [f.line for f in findings if f.rule == "AS006"]


SPEC = {
    "pkg/spec.py": textwrap.dedent(
        """\
        class PathSpec:
            def __init__(self, patterns):
                self.patterns = patterns

            def __eq__(self, other):
                return self.patterns == other.patterns

            @classmethod
            def from_lines(cls, lines):
                return cls(sorted(lines))


        def normalize(lines):
            return sorted(lines)
        """
    )
}


def test_two_objects_built_alike_by_an_alternate_constructor_test_the_class_equality():
    """pathspec 0.12.1's `test_02_eq` builds two specs with `PathSpec.from_lines` and checks
    they are equal: that is `PathSpec.__eq__` under test, not a tautology. The same pair of calls
    of a plain function still is one."""
    source = """\
        from pkg.spec import PathSpec, normalize

        def test_eq():
            first = PathSpec.from_lines(["*.txt", "!a/**"])
            second = PathSpec.from_lines(["*.txt", "!a/**"])
            assert first == second

        def test_normalize():
            expected = normalize(["b", "a"])
            assert normalize(["b", "a"]) == expected
        """
    assert tautologies(source, SPEC) == [10]


def test_a_test_class_imported_from_another_test_module_is_flagged_where_it_runs_again():
    """itsdangerous 2.2.0: `from test_itsdangerous.test_serializer import TestSerializer` in
    test_url_safe.py made pytest run TestSerializer's tests there again, on plain `Serializer`."""
    source = """\
        from test_pkg.test_serializer import TestSerializer
        from test_pkg import test_timed as timed
        from pkg.helpers import TestData
        from .test_signer import make_signer

        class TestURLSafe(TestSerializer, timed.TestTimed):
            def test_dumps(self):
                assert make_signer().dumps(TestData()) == "x"
        """
    findings = analyze(textwrap.dedent(source), "tests/test_url_safe.py", CHECKS)
    hits = [(f.line, f.message) for f in findings if f.rule == "AS025"]
    assert hits == [
        (
            1,
            "`TestSerializer` imported from test_pkg.test_serializer: pytest collects it here too "
            "and runs its tests again",
        )
    ]


def test_a_helper_test_case_without_tests_imported_from_the_package_is_not_flagged(tmp_path):
    """Markdown 3.11.3: `from markdown.test_tools import TestCase` is the package's helper base
    (assertion helpers, no test of its own): pytest collects nothing from it a second time. A base
    there that holds tests, directly or through a base beside it, is still flagged."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "test_tools.py").write_text(
        textwrap.dedent(
            """\
            import unittest

            class TestCase(unittest.TestCase):
                def assertRenders(self, source, expected):
                    self.assertEqual(source.upper(), expected)

            class Checks:
                def test_shared(self):
                    assert True

            class TestWithChecks(Checks, TestCase):
                pass
            """
        )
    )
    source = """\
        from pkg.test_tools import TestCase, TestWithChecks

        class TestAbbr(TestCase):
            def test_upper(self):
                self.assertRenders("a", "A")
        """
    findings = analyze(textwrap.dedent(source), "tests/test_abbr.py", CHECKS, root=tmp_path)
    hits = [f.message for f in findings if f.rule == "AS025"]
    assert hits == [
        "`TestWithChecks` imported from pkg.test_tools: pytest collects it here too and runs its "
        "tests again"
    ]


def test_an_object_the_test_built_compared_with_itself_checks_its_class_equality():
    # rfc3986's `assert uri == uri`: `==` runs URIReference.__eq__, the project's own code
    assert (
        tautologies(
            """\
            from rfc3986 import URIReference

            def test_same_basic_uri():
                uri = URIReference.from_string("http://example.com")
                assert uri == uri
            """,
            {},
        )
        == []
    )
    # a plain value, or identity, compared with itself holds whatever the code does
    assert tautologies(
        """\
        from rfc3986 import total

        def test_total():
            x = total([1, 2])
            assert x == x

        def test_same_object():
            uri = URIReference.from_string("http://example.com")
            assert uri is uri
        """,
        {},
    ) == [5, 9]


def test_an_attribute_read_twice_compared_by_identity_checks_what_access_returns():
    # `__getattr__` or a property may build a new object on each read (munch's
    # DefaultFactoryMunch stores the default it makes): `b.foo is b.foo` checks that it does not;
    # a plain name compared with itself is still a tautology
    assert tautologies(
        """\
        from munch import DefaultFactoryMunch

        def test_default_is_stored():
            b = DefaultFactoryMunch(object)
            assert b.foo is b.foo
            assert b["bar"] is b["bar"]
            value = object()
            assert value is value
        """,
        {},
    ) == [8]


STREAMS = {
    "pkg/streams.py": textwrap.dedent(
        """\
        class Wrapper:
            log: list

            def __init__(self, wrapped, strip=None):
                self.wrapped = wrapped
                if strip is None:
                    strip = not wrapped.isatty()
                self.strip = strip
                self.converted = wrapped.isatty() and strip
                self.count = 0
                self.name = "wrapper"

            @property
            def closed(self):
                return self.wrapped.closed is True

            @property
            def lines(self):
                return [line for line in self.log]
        """
    )
}


def weak_attribute(*body: str) -> list[int]:
    """AS009's lines in a test file of `body`'s lines, after three import lines and a blank."""
    head = [
        "from io import StringIO",
        "from unittest import mock",
        "from pkg.streams import Wrapper",
    ]
    source = "\n".join([*head, "", *body]) + "\n"
    findings = analyze(source, "tests/test_streams.py", STREAMS)
    return [f.line for f in findings if f.rule == "AS009"]


def test_the_truthiness_of_a_flag_is_its_value():
    # a flag the test's action set, on an object of code assay cannot read (colorama's
    # `self.assertTrue(s.closed)` after a `with StreamWrapper(s, ...)` block)
    closes = ["def test_closes():", "    s = StringIO()", "    s.close()", "    assert s.closed"]
    assert weak_attribute(*closes) == []
    # flags of the project's class: assigned a comparison, a `not`, an `and` of flags, a
    # parameter, or a property that returns a comparison
    for attr in ("strip", "converted", "closed"):
        flag = ["def test_flag():", "    w = Wrapper(StringIO())", f"    assert w.{attr}"]
        assert weak_attribute(*flag) == [], attr


def test_the_truthiness_of_a_value_attribute_stays_weak():
    # the project's code gives these a number, a string, a list: truthiness passes for almost any
    for attr in ("count", "name", "lines", "log"):
        value = ["def test_value():", "    w = Wrapper(StringIO())", f"    assert w.{attr}"]
        assert weak_attribute(*value) == [7], attr
    # a mock's call record is truthy once anything was called (colorama's
    # `assertTrue(m.write.call_args, (...))`)
    called = ["def test_delegates():", "    m = mock.Mock()", "    Wrapper(m).wrapped.write('x')"]
    assert weak_attribute(*called, "    assert m.write.call_args") == [8]
    # a dunder holds a value (semver's `assert func.__doc__`)
    assert weak_attribute("def test_doc():", "    assert Wrapper.__doc__") == [6]
    # the result of a call is still judged as before
    result = ["def test_result():", "    r = Wrapper(StringIO()).wrapped.read()", "    assert r"]
    assert weak_attribute(*result) == [7]


def test_the_type_of_a_result_is_the_check_when_the_test_made_the_class():
    # zipp's `test_subclass` and `test_inheritance`: a subclass the test defines (or builds with
    # `type`) must come back from the code's operations: a result of the base class fails
    local = ["def test_subclass():", "    class Sub(Wrapper):", "        pass", ""]
    assert weak_attribute(*local, "    assert isinstance(Sub(1).wrapped, Sub)") == []
    built = ["def test_built():", "    cls = type('Child', (Wrapper,), {})"]
    assert weak_attribute(*built, "    assert isinstance(cls(1).wrapped, cls)") == []
    # a class the test did not make: any instance of it passes
    assert weak_attribute("def test_type():", "    assert isinstance(Wrapper(1), Wrapper)") == [6]


def test_a_fixture_named_like_a_test_is_not_a_test():
    """configobj 5.0.9's `@pytest.fixture def testconfig1(): return \"\"\"...\"\"\"` (a config text
    for other tests) was reported as a test with "AS001 no assertion", and its file rejected;
    pytest never runs a fixture as a test. A function decorated as a fixture (`pytest.fixture`,
    `fixture(...)`, pytest-asyncio's) is not a test, whatever its name; the test using it is."""
    source = """\
        import pytest
        import pytest_asyncio
        from pytest import fixture

        @pytest.fixture
        def testconfig1():
            return "key = val"

        @fixture(scope="module")
        def testconfig2():
            return "key = other"

        @pytest_asyncio.fixture
        async def testloop():
            return 1

        class TestParse:
            @pytest.fixture
            def test_text(self):
                return "a = 1"

            def test_parses(self, test_text):
                parse(test_text)

        def test_reads(testconfig1):
            parse(testconfig1)
        """
    assert no_assertion(source) == [22, 25]
