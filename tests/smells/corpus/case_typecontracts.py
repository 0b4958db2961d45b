# ruff: noqa
# targets: typed/loggers.py
# AS009 where a type check is the whole contract (structlog 26.1.0's test_config.py): judged on the
# target's code - a protocol, the implementation a function hands out where its signature promises
# less, a class the test file made - and where it is not.
import pytest

from typed.loggers import BaseLogger, Bindable, Proxy, get_logger, make


class Wrapper(BaseLogger):
    pass


@pytest.fixture(name="proxy")
def _proxy():
    return Proxy()


def test_a_protocols_members_are_the_contract_is_fine():
    assert isinstance(get_logger(), Bindable)


def test_the_implementation_a_proxy_hands_out_is_fine(proxy):
    assert isinstance(proxy.bind(), BaseLogger)


def test_the_implementation_a_local_proxy_hands_out_is_fine():
    p = Proxy()
    assert isinstance(p.bind(x=1), BaseLogger)


def test_the_wrapper_class_the_file_made_is_fine():
    b = Proxy(wrapper_class=Wrapper).bind()
    assert isinstance(b, Wrapper)


def test_the_class_the_signature_already_promises():
    assert isinstance(make(), BaseLogger)  # expect[AS009]


def test_a_result_annotated_any_against_a_class():
    assert isinstance(get_logger(), Proxy)  # expect[AS009]


def test_a_method_that_returns_its_own_class(proxy):
    assert isinstance(proxy.same(), Proxy)  # expect[AS009]


def test_a_logger_bound_from_a_logger():
    assert isinstance(BaseLogger().bind(x=1), BaseLogger)  # expect[AS009]


def test_a_class_the_test_made_by_a_metaclass_call_is_fine():
    # injector 0.24.0's test_binder_provider_for_type_with_metaclass: `abc.ABCMeta(...)` makes the
    # class as a class statement would; the check is that the code builds one of it
    import abc

    Made = abc.ABCMeta("Made", (BaseLogger,), {})
    assert isinstance(Proxy(wrapper_class=Made).bind(), Made)


def test_a_class_a_call_of_three_values_hands_back():
    # not a class the test made: what `make` returns
    Other = make("a", "b", "c")
    assert isinstance(make(), Other)  # expect[AS009]
