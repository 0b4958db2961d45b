# ruff: noqa
from tests.test_serializer import TestSerializer  # expect[AS025]
from tests.base_test import TestBase as Base  # a name pytest does not collect
from tests import test_timed as timed
from tests.helpers import TestData
from .test_signer import make_signer

from pricing import total


class TestURLSafe(TestSerializer, timed.TestTimed, Base):
    def test_total(self):
        assert total([TestData().value]) == 1


def test_module_import_of_a_base_is_fine():
    assert make_signer().sign(b"x") != b"x"
