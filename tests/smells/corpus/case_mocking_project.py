# ruff: noqa
# targets: mockproj/billing.py
# AS005 with the project's modules known: only the project's own code counts as the code under test.
import json
from unittest import mock

import requests

from mockproj import billing
from mockproj.billing import Invoice, fetch_rate


@mock.patch("mockproj.billing.Invoice.total", return_value=7.0)
def test_method_patched_through_its_class_path(_):
    assert billing.Invoice.parse("ab\ncd").total() == 7.0  # expect[AS005]


@mock.patch("mockproj.billing.fetch_rate", return_value=2.0)
def test_patched_project_function_then_called(_):
    assert fetch_rate("USD") == 2.0  # expect[AS005]


@mock.patch("mockproj.billing.fetch_rate", return_value=2.0)
def test_patching_a_collaborator_is_fine(_):
    assert Invoice.parse("ab\ncd").total("USD") == 8.0


@mock.patch("requests.get")
def test_patched_dependency_is_fine(fake_get):
    fake_get.return_value.json.return_value = {"rate": "2"}
    assert requests.get("https://rates.example/USD").json() == {"rate": "2"}
    assert fetch_rate("USD") == 2.0


@mock.patch("json.loads", return_value={"rate": "3"})
def test_patched_stdlib_is_fine(_):
    assert json.loads("{}") == {"rate": "3"}
    assert Invoice(["abc"]).total() == 3.0


def test_method_patched_on_a_local_object():
    invoice = Invoice(["ab"])
    with mock.patch.object(invoice, "total", return_value=1.0):
        assert invoice.total() == 1.0  # expect[AS005]


def test_patched_method_of_a_dependency_object_is_fine():
    session = requests.Session()
    with mock.patch.object(session, "get") as fake_get:
        session.get("https://rates.example/USD")
        fake_get.assert_called_once()
    assert fetch_rate("EUR") == 1.0
