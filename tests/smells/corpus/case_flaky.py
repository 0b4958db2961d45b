# ruff: noqa
import datetime
import random
import socket
import time
import unittest
from urllib.request import urlopen

import pytest
import requests

from pricing import created_at, discount, pick, shuffled, stamp, total

LIMIT = 2.0
RATES = "https://api.example.com/rates"


def test_random_against_a_constant():
    rate = random.random()  # expect[AS012]
    assert rate < 0.9  # expect[AS024]


def test_expected_value_is_random():
    n = random.randint(0, 5)  # expect[AS012]
    assert pick([0, 1, 2, 3, 4, 5]) == n  # expect[AS024]


def test_unseeded_generator_object():
    rng = random.Random()  # expect[AS012]
    draws = [rng.random() for _ in range(3)]
    assert round(max(draws), 1) != 0.0  # expect[AS024]


def test_expected_year_from_the_clock():
    assert stamp().year == datetime.date.today().year  # expect[AS012,AS024]


def test_elapsed_wall_clock():
    start = time.time()  # expect[AS012]
    total([1])
    elapsed = time.time() - start
    assert elapsed < LIMIT  # expect[AS024]


def test_code_result_ordered_against_a_draw():
    n = random.randint(1, 5)  # expect[AS012]
    assert total([1]) < n  # expect[AS024]


def test_clock_with_approx():
    assert time.time() == pytest.approx(1.7e9, abs=5)  # expect[AS012,AS024]


def test_remote_server_answer():
    rates = requests.get("https://api.example.com/rates").json()  # expect[AS013]
    assert rates["EUR"] == 1  # expect[AS024]


def test_remote_address_in_a_constant():
    assert requests.get(RATES).status_code == 200  # expect[AS013,AS024]


def test_remote_socket_and_urlopen():
    assert socket.create_connection(("example.com", 80))  # expect[AS013,AS024]
    assert urlopen("http://example.com/").status == 200  # expect[AS013,AS024]


class TestUnittestAsserts(unittest.TestCase):
    def test_assert_less_random(self):
        self.assertLess(random.random(), 0.9)  # expect[AS012,AS024]


def test_random_input_to_a_property_is_fine():
    rate = random.random()  # expect[AS012]
    assert discount(100, rate) <= 100


def test_random_input_on_both_sides_is_fine():
    items = [random.randint(0, 9) for _ in range(5)]  # expect[AS012]
    assert sorted(shuffled(items)) == sorted(items)


def test_clock_round_trip_through_unpacking_is_fine():
    dt = datetime.datetime.now()  # expect[AS012]
    [res] = stamp(dt.isoformat())
    assert res == dt


def test_random_through_the_code_against_a_constant_is_fine():
    items = [random.random() for _ in range(5)]  # expect[AS012]
    assert len(shuffled(items)) == 5


def test_clock_bracketing_the_code_is_fine():
    before = datetime.datetime.now()  # expect[AS012]
    obj = created_at()
    after = datetime.datetime.now()
    assert before <= obj.created <= after


def test_clock_relative_to_the_code_is_fine():
    assert abs(time.time() - created_at().timestamp) < 5  # expect[AS012]


def test_local_server_is_fine(httpserver):
    assert requests.get(httpserver.url_for("/")).status_code == 200  # expect[AS013]
    assert requests.get("http://localhost:8080/health").json() == {"ok": True}  # expect[AS013]


def test_patched_clock_is_fine(monkeypatch):
    monkeypatch.setattr(time, "time", lambda: 0.0)
    assert time.time() < 1
