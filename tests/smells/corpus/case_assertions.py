# ruff: noqa
# Corpus for the assertion rules. A `# expect[ID,...]` marker on a line lists every finding due there;
# lines without a marker must stay clean.
import pytest
from unittest import TestCase, mock

from pricing import add, parse, total
from pricing import ChildConfig, Config
from pricing.schema import raises as schema_raises


def test_project_raises_context():
    # voluptuous exports `raises`, a context manager asserting the exception and its message
    with schema_raises(ValueError, "required key not provided"):
        parse({})


def test_runs_only():  # expect[AS001]
    total([1, 2, 3])


def test_result_encodes_to_ascii():
    # Unidecode's test_all_to_ascii: a non-ASCII result raises UnicodeEncodeError, the failure
    for n in range(0x80, 0x100):
        text = total([n])
        text.encode("ascii")


def test_encodes_with_errors_replaced():  # expect[AS001]
    total([1]).encode("ascii", errors="replace")


def test_encodes_to_utf8():  # expect[AS001]
    total([1]).encode("utf-8")


def test_only_pass():  # expect[AS002]
    pass


def test_only_docstring():  # expect[AS002]
    """To do."""


def test_ellipsis():  # expect[AS002]
    ...


def test_plain_assert():
    assert add(2, 3) == 5


def test_raises_counts():
    with pytest.raises(ValueError, match="bad"):
        parse("bad")


def test_mock_assert_counts():
    m = mock.Mock()
    total([1], sink=m)
    m.assert_called_once_with(1)


def _check_total(items, expected):
    assert total(items) == expected


def _indirect(items):
    _check_total(items, sum(items))


def test_helper_that_asserts():
    _indirect([1, 2])


def test_helper_that_does_not_assert():  # expect[AS001]
    _make([1, 2])


def _make(items):
    return list(items)


def test_explicit_raise_is_a_check():
    if total([1]) != 1:
        raise AssertionError("total of one item")


def test_benchmark(benchmark):
    benchmark(total, [1, 2, 3])


class TestUnittestStyle(TestCase):
    def _verify(self, x):
        self.assertEqual(total([x]), x)

    def test_helper_method(self):
        self._verify(3)

    def test_fail_counts(self):
        try:
            total(None)
        except TypeError:
            return
        self.fail("no TypeError")

    def test_nothing(self):  # expect[AS001]
        total([1])


def test_roulette():  # expect[AS003]
    assert add(1, 1) == 2
    assert add(1, 2) == 3
    assert add(1, 3) == 4
    assert add(1, 4) == 5
    assert add(1, 5) == 6
    assert add(1, 6) == 7


def test_five_asserts_is_fine():
    assert add(1, 1) == 2
    assert add(1, 2) == 3
    assert add(1, 3) == 4
    assert add(1, 4) == 5
    assert add(1, 5) == 6


def test_messages_explain():
    assert add(1, 1) == 2, "one plus one"
    assert add(1, 2) == 3, "one plus two"
    assert add(1, 3) == 4, "one plus three"
    assert add(1, 4) == 5, "one plus four"
    assert add(1, 5) == 6, "one plus five"
    assert add(1, 6) == 7, "one plus six"


class TestRouletteUnittest(TestCase):
    def test_many(self):  # expect[AS003]
        self.assertEqual(add(1, 1), 2)
        self.assertEqual(add(1, 2), 3)
        self.assertEqual(add(1, 3), 4)
        self.assertEqual(add(1, 4), 5)
        self.assertTrue(add(1, 5))
        self.assertIsNotNone(add(1, 6))

    def test_many_with_msg(self):
        self.assertEqual(add(1, 1), 2, "a")
        self.assertEqual(add(1, 2), 3, "b")
        self.assertEqual(add(1, 3), 4, "c")
        self.assertEqual(add(1, 4), 5, msg="d")
        self.assertTrue(add(1, 5), "e")
        self.assertIsNotNone(add(1, 6), "f")


def test_assert_true():
    assert True  # expect[AS006]


def test_self_check():
    x = total([1])
    assert x == x  # expect[AS006]


def test_two_literals():
    total([1])
    assert 3 == 3  # expect[AS006]


def test_recomputed_expected():
    expected = total([1, 2])
    assert total([1, 2]) == expected  # expect[AS006]


def test_recomputed_both_named():
    result = total([1, 2])
    expected = total([1, 2])
    assert result == expected  # expect[AS006]


def test_recomputed_inline():
    assert total([4]) == total([4])  # expect[AS006]


class TestTautologyUnittest(TestCase):
    def test_assert_true_literal(self):
        self.assertTrue(True)  # expect[AS006]

    def test_equal_literals(self):
        self.assertEqual(1, 1)  # expect[AS006]


def test_literal_expected_is_fine():
    expected = 3
    assert total([1, 2]) == expected


def test_add_literal_is_fine():
    assert add(2, 4) == 6


def test_other_arguments_is_fine():
    assert total([1, 2]) == total([2, 1])


def test_state_changes_between_is_fine():
    before = total.cache_info()
    total([1])
    assert total.cache_info() == before


def test_same_object_is_cached():
    assert parse("a") is parse("a")


def test_eq_reflexive():
    x = parse("a")
    assert x == x  # expect[AS006]


def test_reflexive_next_to_other_equalities_is_fine():
    x = parse("a")
    assert x == x
    assert x == parse("a")
    assert x != parse("b")


class TestReflexiveOrder:
    def test_ge_is_fine(self):
        assert self.day >= self.day
        assert self.day >= self.day.start


def test_hash_stable_is_fine():
    assert hash(parse("a")) == hash(parse("a"))


def test_hash_of_a_repeated_call():
    # the name announces hashing; the code compares one call with itself and checks nothing else
    assert total([6]) == total([6])  # expect[AS006]


def test_repeated_call_next_to_a_distinguishing_check_is_fine():
    assert total([4]) == total([4])
    assert total([4]) != total([5])


def test_two_new_objects_equal_is_fine():
    assert Money(1) == Money(1)


class TestKeysUnittest(TestCase):
    def test_key_deterministic_and_distinguishing_is_fine(self):
        self.assertEqual(key(), key())
        self.assertEqual(key(1, 2), key(1, 2))
        self.assertNotEqual(key(1, 2), key(2, 1))

    def test_key_alone(self):
        self.assertEqual(key(1, 2), key(1, 2))  # expect[AS006]


def test_assert_false_is_not_a_tautology():
    if total([]) != 0:  # expect[AS011]
        assert False, "empty total"


def test_assert_in_except():
    try:
        parse("garbage")
    except ValueError as e:  # expect[AS007]
        assert "garbage" in str(e)


def test_except_with_fail_is_fine():
    try:
        parse("garbage")
        pytest.fail("no error")
    except ValueError as e:
        assert "garbage" in str(e)


def test_wrapper_callback_that_checks_and_reraises_is_fine():
    # pluggy 1.5.0's test_wrapper_exception: a hook wrapper looks at the exception passing through
    # and raises it on; the test itself checks that it came
    def wrapper():
        try:
            yield
        except BaseException as e:
            assert isinstance(e, ValueError)
            raise

    with pytest.raises(ValueError):
        run_hooks(wrapper, raising=ValueError)


def test_callback_that_checks_and_swallows():
    def on_error():
        try:
            parse("garbage")
        except ValueError as e:  # expect[AS007]
            assert "garbage" in str(e)

    run_hooks(on_error)


def test_swallowing_try():
    try:
        assert total([1]) == 1
    except Exception:  # expect[AS007]
        pass


def test_bare_except_swallows():
    try:
        assert total([1]) == 1
    except:  # expect[AS007]
        print("failed")  # expect[AS015]


def test_try_reraising_is_fine():
    try:
        assert total([1]) == 1
    except AssertionError:
        dump_state()
        raise


def test_try_narrow_except_is_fine():
    try:
        value = total([1])
    except KeyError:
        value = None
    assert value == 1


def test_raise_assertion_error_in_except_is_fine():
    try:
        total([1])
    except TypeError:
        raise AssertionError("total raised")


def test_pytest_fail_in_except_is_fine():
    try:
        total([1])
    except Exception:
        pytest.fail("total raised")


class TestWeekdays(TestCase):
    def test_inequality(self):
        monday = parse("a=1")
        tuesday = parse("a=2")
        self.assertTrue(monday == monday)
        self.assertFalse(monday == tuesday)

    def test_not_equal(self):
        monday = parse("a=1")
        self.assertTrue(monday == monday)
        self.assertNotEqual(monday, parse("a=2"))

    def test_self_only(self):
        monday = parse("a=1")
        self.assertTrue(monday == monday)  # expect[AS006]


class TestHashable(TestCase):
    def test_hashable(self):
        try:
            {parse("a=1"): "test"}
        except:
            self.fail("failed to hash")

    def test_fail_after_a_check_in_except(self):
        try:
            parse("garbage")
        except ValueError as e:  # expect[AS007]
            self.assertIn("garbage", str(e))
            self.fail("parse raised")


def test_not_none_only():
    result = parse("a=1")
    assert result is not None  # expect[AS009]


def test_truthy_only():
    result = parse("a=1")
    assert result  # expect[AS009]


def test_isinstance_only():
    assert isinstance(parse("a=1"), dict)  # expect[AS009]


def test_handler_returns_and_the_try_is_followed_by_a_failure():
    # dpath's test_merge_typesafe_and_separator
    try:
        parse("garbage")
    except ValueError as e:
        assert str(e).endswith("garbage")
        return
    raise Exception("parse failed to raise")


def test_handler_returns_and_nothing_follows():
    try:
        parse("garbage")
    except ValueError as e:  # expect[AS007]
        assert str(e).endswith("garbage")
        return


def test_a_live_exception_made_by_the_test_itself():
    # structlog's test_json_traceback_max_frames: the try only makes an exception to format;
    # its own helpers divide by zero, so the handler always runs
    def spam():
        return 1 / 0

    def eggs():
        spam()

    try:
        eggs()
    except Exception as e:
        assert parse(str(e)) == {}


def test_a_literal_division_by_zero():
    try:
        0 / 0
    except ZeroDivisionError as e:
        assert parse(repr(e)) == {}


def test_a_helper_that_may_return_does_not_surely_raise(flag):
    def maybe():
        if flag:
            return 1
        return 1 / 0

    try:
        maybe()
    except ZeroDivisionError as e:  # expect[AS007]
        assert parse(repr(e)) == {}


def test_nested_values_are_converted_to_the_class():
    # addict's test_hook_in_constructor: a dict inside becomes the project's own class
    config = Config({"a": {"b": 1}})
    assert isinstance(config["a"], Config)


def test_a_part_checked_against_a_builtin_type():
    assert isinstance(parse("a=1")["a"], int)  # expect[AS009]


def test_the_result_itself_against_the_projects_class():
    assert isinstance(parse("a=1"), Config)  # expect[AS009]


class AbstractConfigTests:
    # addict's mixin: `Dict` is a `dict`, the class statement's promise (no other value to check)
    config_class = None

    def test_is_a_dict(self):
        self.assertTrue(isinstance(self.config_class(), dict))


class ConfigTests(TestCase, AbstractConfigTests):
    config_class = Config


class ChildConfigTests(TestCase, AbstractConfigTests):
    config_class = ChildConfig


def test_a_constructed_object_against_another_class():
    assert isinstance(Config({"a": 1}), dict)


def test_a_constructed_object_against_its_own_class():
    assert isinstance(Config({"a": 1}), Config)  # expect[AS009]


class TestWeakUnittest(TestCase):
    def test_is_not_none(self):
        self.assertIsNotNone(parse("a"))  # expect[AS009]

    def test_is_instance(self):
        self.assertIsInstance(parse("a"), dict)  # expect[AS009]


def test_predicate_is_fine():
    assert is_valid("a=1")


def test_predicate_result_variable_is_fine():
    ok = is_valid("a=1")
    assert ok


def test_not_none_plus_value_is_fine():
    result = parse("a=1")
    assert result is not None
    assert result["a"] == 1


def test_empty_result_is_a_real_check():
    errors = validate({"a": 1})
    assert not errors


@pytest.mark.parametrize("failure", ["none", "body"])
def test_both_paths_checked_by_an_else(failure):
    # pyee 16.1's test_owned_nursery_cleared_after_exit: the `else` checks the path where nothing
    # is raised, so the test does not pass on it unchecked
    try:
        total([1]) if failure == "none" else parse("garbage")
    except ValueError as exc:
        assert failure != "none"
        assert "garbage" in str(exc)
    else:
        assert failure == "none"


def test_else_that_only_logs():
    try:
        parse("garbage")
    except ValueError as e:  # expect[AS007]
        assert "garbage" in str(e)
    else:
        print("no error")  # expect[AS015]
