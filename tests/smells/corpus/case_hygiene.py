# ruff: noqa
import datetime
import io
import os
import pprint
import random
import shutil
import sys
import time
from pathlib import Path

import pricing
import pytest
import requests

from pricing import Cart, _round_cents, add, discount, parse, total
from whatever import _

CASES = [(1, 1), (2, 2)]


def test_sleeps():
    time.sleep(0.1)  # expect[AS010]
    assert total([1]) == 1


def test_if_around_assert():
    value = total([1])
    if value > 0:  # expect[AS011]
        assert value == 1


def test_loop_over_cases():
    for amount, expected in CASES:  # expect[AS011]
        assert discount(amount) == expected


def test_loop_building_data_is_fine():
    items = []
    for i in range(3):
        items.append(i)
    assert total(items) == 3


@pytest.mark.parametrize("amount, expected", [(i, i) for i in range(3)])
def test_parametrized_is_fine(amount, expected):
    assert discount(amount) == expected


def test_loop_with_subtest_is_fine(self):
    for amount, expected in CASES:
        with self.subTest(amount=amount):
            self.assertEqual(discount(amount), expected)


def test_random_input():
    items = [random.randint(0, 9) for _ in range(3)]  # expect[AS012]
    assert total(items) == sum(items)


def test_now():
    stamp = datetime.datetime.now()  # expect[AS012]
    assert parse(stamp.isoformat()) == stamp


def test_unseeded_draws_are_one_finding():
    point = complex(random.random(), random.random())  # expect[AS012]
    size = random.randrange(5)
    assert abs(parse(str(point) * size)) <= 2


def test_benchmark_with_todays_date_is_fine(benchmark):
    benchmark(parse, datetime.date.today().isoformat())


def test_seeded_generator_is_fine():
    rng = random.Random(42)
    items = [rng.randint(0, 9) for _ in range(3)]
    assert total(items) == sum(items)


def test_network():
    r = requests.get("https://example.com/rates")  # expect[AS013]
    assert total([r.json()["x"]]) == 1


def test_network_through_a_session():
    session = requests.Session()
    r = session.get("https://example.com/rates")  # expect[AS013]
    with requests.Session() as s:
        s.post("https://example.com/orders", json={})  # expect[AS013]
    assert total([r.json()["x"]]) == 1


def test_building_a_client_is_fine():
    session = requests.Session()
    session.headers["X-Test"] = "1"
    assert parse(session.headers["X-Test"]) == 1


def test_writes_real_file():
    with open("/tmp/out.txt", "w") as f:  # expect[AS013]
        f.write("x")
    assert parse("/tmp/out.txt") == "x"


def test_writes_into_tmp_path_is_fine(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("x")
    with open(out, "w") as f:
        f.write("y")
    assert parse(str(out)) == "y"


def test_path_built_from_tmp_path_in_steps_is_fine(tmp_path):
    folder = tmp_path / "out"
    target = folder / "report.txt"
    shutil.copy2(Path(__file__), target)
    assert parse(target.read_text()) == "x"


def test_path_named_like_tmp_but_written_literally():
    target = "/tmp/report.txt"
    with open(target, "w") as f:  # expect[AS013]
        f.write("x")
    assert parse(target) == "x"


def test_a_helper_class_writing_where_the_test_tells_it_is_fine(tmpdir):
    # tinydb's test_yaml: a storage class of the test's own opens the path it is handed
    class Storage:
        def __init__(self, filename):
            self.filename = filename

        def write(self, data):
            with open(self.filename, "w") as handle:
                handle.write(data)

    Storage(str(tmpdir.join("test.db"))).write("x")
    assert parse(str(tmpdir.join("test.db"))) == "x"


def test_a_helper_class_handed_a_real_path():
    class Storage:
        def __init__(self, filename):
            self.filename = filename

        def write(self, data):
            with open(self.filename, "w") as handle:  # expect[AS013]
                handle.write(data)

    Storage("/var/data/test.db").write("x")
    assert parse("/var/data/test.db") == "x"


def test_a_helper_writing_a_literal_path():
    def save(data):
        with open("/tmp/saved.txt", "w") as handle:  # expect[AS013]
            handle.write(data)

    save("x")
    assert parse("/tmp/saved.txt") == "x"


def test_reading_a_fixture_file_is_fine():
    with open(os.path.join(os.path.dirname(__file__), "data.txt")) as f:
        assert parse(f.read()) == "x"


def test_private_attribute():
    cart = Cart()
    cart.add(1)
    assert cart._items == [1]  # expect[AS014]


def test_private_function():
    assert _round_cents(1.005) == 1.0  # expect[AS014]


def test_reflection():
    cart = Cart()
    assert getattr(cart, "_size") == 0  # expect[AS014]


def test_reflection_on_a_public_name_is_fine():
    cart = Cart()
    with pytest.raises(AttributeError):
        setattr(cart, "size", 3)


def test_private_chain_is_one_finding():
    cart = Cart()
    assert cart._store._items == []  # expect[AS014]


class TestOwnHelpers:
    def test_own_private_helper_is_fine(self):
        assert total(self._items()) == 1


def test_dunder_dict():
    assert Cart().__dict__ == {}  # expect[AS014]


def test_dict_of_a_class_the_test_made_is_fine():
    # funcy's test_empty_quirks: the test's own class's namespace is the input
    class A:
        FLAG = 1

    assert total(A.__dict__) == {}


def test_placeholder_underscore_is_fine():
    # funcy's tests: `from whatever import _`, a library's public placeholder (gettext's `_` too)
    assert total(map(_ + 1, [1])) == 2


def test_namedtuple_api_is_fine():
    assert parse("a")._replace(x=1).x == 1


def test_prints():
    print(total([1]))  # expect[AS015]
    assert total([1]) == 1


def test_prints_to_stderr():
    print(total([1]), file=sys.stderr)  # expect[AS015]
    assert total([1]) == 1


def test_print_into_a_buffer_is_fine():
    buf = io.StringIO()
    for line in parse("a\nb"):
        print(line, file=buf)
    pprint.pprint(total([1]), stream=buf)
    assert buf.getvalue() == "a\nb\n1\n"


def test_magic_number():
    assert len(parse("x" * 5000)) <= 4096  # expect[AS016]


def test_inputs_and_expected_value_are_fine():
    assert total([4000, 213]) == 4213


def test_small_numbers_are_fine():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0
    assert add(6, 4) == 10
    assert total([0.1, 0.2]) == pytest.approx(0.3, rel=1e-9)


def test_duplicate_assert():
    assert add(-5, 0) == -5
    assert add(-5, 0) == -5  # expect[AS017]


def test_duplicate_assert_between_others_without_calls():
    cart = Cart()
    assert cart.size == 0
    assert cart.items == []
    assert cart.size == 0  # expect[AS017]


def test_same_state_read_again_after_other_calls_is_fine():
    # termcolor's test_cached_behavior: `cache_info().hits == 1` again after two more calls
    assert total([1]) == 1
    assert pricing.stats().hits == 0
    assert total([2]) == 2
    assert pricing.stats().hits == 0


def test_a_repeated_call_observed_later_is_fine():
    # termcolor's test_cached_behavior: the second call is the cache hit the next line counts
    assert total([1]) == 1
    assert total([1]) == 1
    assert pricing.stats().hits == 1


def test_repeated_call_of_a_test_object_is_fine():
    memo = Cart().memoized_total
    it = iter([1, 1])
    assert memo([1]) == 1
    assert memo([1]) == 1
    assert next(it) == 1
    assert next(it) == 1


def test_same_assert_after_action_is_fine():
    cart = Cart()
    assert cart.size == 0
    cart.add(1)
    cart.remove(1)
    assert cart.size == 0


def test_broad_raises():
    with pytest.raises(Exception):  # expect[AS018]
        parse("garbage")


def test_broad_raises_with_match_is_fine():
    with pytest.raises(Exception, match="garbage"):
        parse("garbage")


def test_broad_raises_checked_later_is_fine():
    with pytest.raises(Exception) as info:
        parse("garbage")
    assert "garbage" in str(info.value)


def test_specific_raises_is_fine():
    with pytest.raises(ValueError):
        parse("garbage")


@pytest.mark.skip  # expect[AS019]
def test_skipped_without_reason():
    assert total([1]) == 1


@pytest.mark.skip(reason="needs the network, see #12")
def test_skipped_with_reason_is_fine():
    assert total([1]) == 1


@pytest.mark.skipif(os.name == "nt")  # expect[AS019]
def test_skipif_without_reason():
    assert total([1]) == 1


@pytest.mark.skipif(os.name == "nt", reason="posix paths")
def test_skipif_with_reason_is_fine():
    assert total([1]) == 1


def test_add():
    assert add(2, 3) == 5


def test_add_again():  # expect[AS008]
    assert add(2, 3) == 5


@pytest.mark.parametrize("x", [1, 2])
def test_same_body_other_params_is_fine(x):
    assert add(2, 3) == 5


def test_suppressed():  # assay: ignore[AS001]
    total([2])


def test_suppressed_line():
    print(total([5]))  # assay: ignore
    assert total([5]) == 5


def test_suppression_of_another_rule_does_not_hide():  # assay: ignore[AS015] expect[AS001]
    total([3])
