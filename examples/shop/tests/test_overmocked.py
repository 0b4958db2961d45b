"""Over-mocked: the unit under test is patched away, so the test checks its own mocks."""

from unittest import mock

from shop import parser


def test_parse_order_with_everything_mocked():
    with mock.patch.object(parser, "parse_line") as fake_line, \
            mock.patch.object(parser, "LINE") as fake_re, \
            mock.patch.object(parser, "parse_order") as fake_order:
        fake_order.return_value = [fake_line.return_value]
        m1, m2, m3, m4 = mock.Mock(), mock.Mock(), mock.Mock(), mock.Mock()
        result = parser.parse_order("1 x A @ 1")
        fake_order.assert_called_once_with("1 x A @ 1")
        assert result == [fake_line.return_value]
        assert fake_re is not None and m1 and m2 and m3 and m4
