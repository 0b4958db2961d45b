"""Target of case_typecontracts.py: a protocol, a logger, a lazy proxy that hands one out."""

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Bindable(Protocol):
    def bind(self, **values: Any) -> "Bindable": ...


class BaseLogger:
    def __init__(self, context: dict | None = None) -> None:
        self.context = context or {}

    def bind(self, **values: Any) -> "BaseLogger":
        return type(self)({**self.context, **values})


class Proxy:
    def __init__(self, wrapper_class: type | None = None) -> None:
        self.wrapper_class = wrapper_class or BaseLogger

    def bind(self, **values: Any) -> Bindable:
        return self.wrapper_class(values)

    def same(self) -> "Proxy":
        return self


def get_logger() -> Any:
    return Proxy()


def make() -> BaseLogger:
    return BaseLogger()
