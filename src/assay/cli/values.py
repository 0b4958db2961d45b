"""Option values read without pydantic. Typer 0.2x coerces each parameter of the command it runs
through a pydantic `TypeAdapter` built at that run: pydantic's import and the adapters were ~0.1 s
CPU of every command's start (bench/README.md, "F, assay's fixed start"), for options that are
strings, numbers and paths.

`plain_values()` has Typer coerce a parameter of such a type (str, int, float, bool, Path, a list
of one of them; no parser or bounds) with `assay.section`'s rules, which give pydantic's messages
(a flag also takes `yes`, `off` ...), a path then checked by Typer's own `coerce_cli_path`; any
other parameter goes Typer's way, and so does every parameter under a Typer without these private
names (`_TyperParameter.get_runtime_param`,
`_coercion.RuntimeParam`, `_param_types.coerce_cli_path`)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from assay.section import Invalid, fit

PLAIN = (str, int, float, bool)
# a flag's value from the environment, as Typer's pydantic coercion reads it
WORDS = {w: True for w in ("1", "on", "t", "true", "y", "yes")} | {
    w: False for w in ("", "0", "off", "f", "false", "n", "no")
}


def plain_values() -> None:
    try:
        core = importlib.import_module("typer.core")
        coercion = importlib.import_module("typer._coercion")
        parameter, base = core._TyperParameter, coercion.RuntimeParam
        bad, checked = coercion.BadParameter, importlib.import_module("typer._param_types")
        path_checks = checked.coerce_cli_path
        original = parameter.get_runtime_param
    except (ImportError, AttributeError):
        return
    if getattr(original, "plain", False):
        return

    @dataclass(frozen=True)
    class PlainParam(base):  # type: ignore[misc,valid-type]
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            def one(annotation: Any, item: Any) -> Any:
                if annotation is bool and isinstance(item, str) and item.strip().lower() in WORDS:
                    return WORDS[item.strip().lower()]
                if annotation is not Path:
                    return fit(annotation, item)
                path = item if isinstance(item, Path) else Path(fit(str, item))
                info = self.parameter_info
                return path_checks(path, info, path_type=Path, param=param, ctx=ctx)

            try:
                if get_origin(self.annotation) is list:
                    (item,) = get_args(self.annotation)
                    items = value if isinstance(value, list | tuple) else [value]
                    return [one(item, v) for v in items]
                return one(self.annotation, value)
            except Invalid as err:
                raise bad(err.message, ctx=ctx, param=param) from None

    def get_runtime_param(self: Any) -> Any:
        info = self.type_descriptor.parameter_info
        if self._runtime_param is None and _is_plain(self.type_descriptor.annotation, info):
            self._runtime_param = PlainParam(
                parameter_info=info, annotation=self.type_descriptor.annotation
            )
        return original(self)

    get_runtime_param.plain = True  # type: ignore[attr-defined]
    parameter.get_runtime_param = get_runtime_param


def _is_plain(annotation: Any, info: Any) -> bool:
    """A type read here as Typer would, with no option that asks Typer for more than the path
    checks."""
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    asks = (info.parser, info.min, info.max, info.path_type, info.resolve_path, info.allow_dash)
    return (annotation in PLAIN or annotation is Path) and not any(asks)
