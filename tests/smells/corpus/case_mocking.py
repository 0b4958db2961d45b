# ruff: noqa
import os

import pricing
from unittest import mock
from unittest.mock import MagicMock, patch

from pricing import Cart, total


@patch("shop.db")
@patch("shop.mailer")
@patch("shop.clock")
@patch("shop.tax")
@patch("shop.stock")
@patch("shop.audit")
@patch("shop.cache")
def test_seven_patches(*mocks):  # expect[AS004]
    pricing.checkout(Cart())
    mocks[0].commit.assert_called_once()


def test_many_mock_objects():  # expect[AS004]
    a, b, c, d = MagicMock(), MagicMock(), mock.Mock(), mock.Mock()
    with patch("shop.x"), patch("shop.y"), patch.object(pricing, "z"):
        pricing.checkout(a, b, c, d)
    a.save.assert_called_once()


def test_six_is_fine(mocker):
    a, b, c = MagicMock(), MagicMock(), MagicMock()
    mocker.patch("shop.x")
    mocker.patch("shop.y")
    mocker.patch("shop.z")
    pricing.checkout(a, b, c)
    a.save.assert_called_once()


@patch("pricing.total", return_value=6)
def test_patched_sut_called(_):
    assert pricing.total([1, 2, 3]) == 6  # expect[AS005]


def test_patched_sut_imported_name(mocker):
    mocker.patch("pricing.total", return_value=6)
    assert total([1, 2, 3]) == 6  # expect[AS005]


def test_patched_method_of_sut():
    cart = Cart()
    with patch.object(Cart, "price", return_value=3):
        assert cart.price() == 3  # expect[AS005]


def test_monkeypatched_sut(monkeypatch):
    monkeypatch.setattr(pricing, "total", lambda items: 0)
    assert pricing.total([5]) == 0  # expect[AS005]


@patch("pricing.fetch_rates", return_value={"EUR": 1.0})
def test_patching_collaborator_is_fine(_):
    assert pricing.total([1, 2, 3], "EUR") == 6


def test_patching_env_is_fine(monkeypatch):
    monkeypatch.setenv("CURRENCY", "EUR")
    with patch.dict("os.environ", {"A": "1"}):
        assert total([1]) == 1


@mock.patch("pricing.Cart.price", return_value=3)
def test_method_patched_through_its_class_path(_):
    assert pricing.Cart.parse("1 x A").price() == 3  # expect[AS005]


@mock.patch("pricing.Cart.price", return_value=3)
def test_method_patched_through_its_class_path_on_a_built_object(_):
    cart = Cart.from_lines(["1 x A"])
    assert cart.price() == 3  # expect[AS005]


@mock.patch("pricing.Cart.price", return_value=3)
def test_patched_method_used_by_another_method_is_fine(_):
    assert Cart.parse("1 x A").total() == 3


@mock.patch("builtins.open", mock.mock_open(read_data="1 x A"))
def test_patched_builtin_is_fine():
    with open("cart.txt") as f:
        assert pricing.load(f).size == 1


@mock.patch("os.path.exists", return_value=True)
def test_patched_stdlib_is_fine(_):
    assert os.path.exists("cart.db")
    assert pricing.load_cart("cart.db").size == 0
