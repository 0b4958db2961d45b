"""Base of every settings section: a dataclass whose fields say their bounds and description
(`setting`), validated by assay itself. pydantic did this before, but its import and the sections'
schemas were ~0.17 s CPU of the ~0.45 s every command starts with (a cached verify is mostly that
start). In its own module so that gate packages can define their sections without importing
`assay.config` (which imports them).

Unknown keys are errors and assignments are validated: a typo or a bad value must not fall back to
a default. The methods keep pydantic's names (`model_validate`, `model_dump`, `model_copy`,
`model_fields`, `model_fields_set`), which every caller already used; the messages are pydantic's
("Input should be greater than 0")."""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import sys
import types
from collections.abc import Callable
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - type checkers read the branch above

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda cls: cls


S = TypeVar("S", bound="Section")
RULE = "assay.setting"


class Invalid(ValueError):
    """A value that does not fit its field. `loc`: the keys from the section validated down to the
    value, as the user wrote them; `unknown`: a key that names no field."""

    def __init__(self, loc: tuple[str | int, ...], message: str, unknown: bool = False) -> None:
        super().__init__(message)
        self.loc, self.message, self.unknown = loc, message, unknown

    def under(self, *keys: str | int) -> Invalid:
        return Invalid((*keys, *self.loc), self.message, self.unknown)


@dataclasses.dataclass(frozen=True)
class Rule:
    """What a field accepts beyond its type, and what the docs say of it."""

    description: str = ""
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    key: str | None = None  # the key in the data when it is not the field's name
    aliases: tuple[str, ...] = ()  # older keys that are still read
    check: Callable[[Any], Any] | None = None  # raises ValueError, or returns the value to keep


def setting(
    default: Any = dataclasses.MISSING,
    *,
    factory: Callable[[], Any] | None = None,
    description: str = "",
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    key: str | None = None,
    aliases: tuple[str, ...] = (),
    check: Callable[[Any], Any] | None = None,
) -> Any:
    """A field of a section: its default (a list or dict default is copied for each instance) and
    its `Rule`."""
    rule = Rule(description, ge, gt, le, lt, key, aliases, check)
    if factory is None and isinstance(default, list | dict):
        factory = functools.partial(copy.deepcopy, default)
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={RULE: rule})
    return dataclasses.field(default=default, metadata={RULE: rule})


@dataclass_transform(field_specifiers=(setting,))
class Section:
    """A settings table: each subclass is made a dataclass, its fields declared with `setting` (or
    a plain default)."""

    model_fields: ClassVar[dict[str, dataclasses.Field[Any]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(cls)
        cls.model_fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]

    def __new__(cls, *args: Any, **kwargs: Any) -> Section:
        made = super().__new__(cls)
        object.__setattr__(made, "_given", set(kwargs))
        return made

    def __post_init__(self) -> None:
        object.__setattr__(self, "_ready", True)

    def __setattr__(self, name: str, value: Any) -> None:
        fields = type(self).model_fields
        if name not in fields:
            raise Invalid((name,), "Object has no attribute", unknown=True)
        rule = rule_of(fields[name])
        object.__setattr__(self, name, _fit(type(self).hints()[name], value, (name,), rule))
        if self.__dict__.get("_ready"):
            self.__dict__["_given"].add(name)

    @property
    def model_fields_set(self) -> set[str]:
        """The fields the data or the caller gave, as opposed to defaults."""
        return set(self.__dict__.get("_given", ()))

    @classmethod
    def hints(cls) -> dict[str, Any]:
        """Each field's type, resolved (once: the types a module names exist once it has run)."""
        found = _HINTS.get(cls)
        if found is None:
            found = _HINTS[cls] = get_type_hints(cls)
        return found

    @classmethod
    def arranged(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The data before its keys are matched to fields (a subclass may move keys)."""
        return data

    @classmethod
    def model_validate(cls: type[S], data: Any) -> S:
        """A section from its table; `Invalid` names the first key that does not fit."""
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise Invalid((), f"Input should be a valid dictionary or instance of {cls.__name__}")
        data = cls.arranged(data)
        given: dict[str, Any] = {}
        keys: dict[str, str] = {}  # field name -> the key it came from
        for name, field in cls.model_fields.items():
            rule = rule_of(field)
            for key in (rule.key or name, *rule.aliases):
                if key in data:
                    given[name], keys[name] = data[key], key
                    break
        try:
            made = cls(**given)
        except Invalid as err:
            first = err.loc[0] if err.loc else ""
            where = keys.get(first, first) if isinstance(first, str) else first
            raise Invalid((where, *err.loc[1:]), err.message, err.unknown) from None
        # an older key given beside the current one is not read: it is unknown, not ignored
        known = {rule_of(f).key or name for name, f in cls.model_fields.items()}
        known |= set(keys.values())
        for key in data:
            if key not in known:
                raise Invalid((key,), "Extra inputs are not permitted", unknown=True)
        return made

    def model_dump(self, mode: str = "python", by_alias: bool = False) -> dict[str, Any]:
        """Plain data (dicts, lists, numbers, strings) that `model_validate` reads back; `by_alias`:
        under each field's key rather than its name. `mode` is taken for pydantic's callers: the
        data is JSON-ready in both."""
        out = {}
        for name, field in type(self).model_fields.items():
            rule = rule_of(field)
            out[rule.key or name if by_alias else name] = _plain(getattr(self, name), by_alias)
        return out

    def model_copy(self: S, update: dict[str, Any] | None = None, deep: bool = False) -> S:
        """A copy (nested sections shared unless `deep`), with `update`'s fields set (validated)."""
        made = copy.deepcopy(self) if deep else copy.copy(self)
        object.__setattr__(made, "_given", set(self.model_fields_set))
        for name, value in (update or {}).items():
            setattr(made, name, value)
        return made


def rule_of(field: dataclasses.Field[Any]) -> Rule:
    """A field's `Rule` (the default one for a field declared without `setting`)."""
    return field.metadata.get(RULE) or Rule()


_HINTS: dict[type, dict[str, Any]] = {}


def _plain(value: Any, by_alias: bool) -> Any:
    if isinstance(value, Section):
        return value.model_dump(by_alias=by_alias)
    if isinstance(value, dict):
        return {k: _plain(v, by_alias) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, by_alias) for v in value]
    return value


def _choices(values: tuple[Any, ...]) -> str:
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _number(hint: type, value: Any, loc: tuple[str | int, ...]) -> Any:
    """An int or float field takes a number (a whole one for int) or a number in a string, as
    pydantic's lax mode did; never a boolean (TOML keeps them apart: `jobs = true` is a typo)."""
    what = "a valid integer" if hint is int else "a valid number"
    if isinstance(value, str):
        try:
            value = hint(value.strip())
        except ValueError:
            kind = "an integer" if hint is int else "a number"
            raise Invalid(
                loc, f"Input should be {what}, unable to parse string as {kind}"
            ) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Invalid(loc, f"Input should be {what}")
    if hint is float:
        if not math.isfinite(value):  # `timeout_s = inf` would overflow where it is used
            raise Invalid(loc, "Input should be a finite number")
        return float(value)
    if isinstance(value, float) and not value.is_integer():
        raise Invalid(loc, f"Input should be {what}, got a number with a fractional part")
    return int(value)


def fit(hint: Any, value: Any) -> Any:
    """`value` as a value of type `hint` (what a field of that type keeps), or `Invalid`."""
    return _fit(hint, value, ())


def _fit(hint: Any, value: Any, loc: tuple[str | int, ...], rule: Rule | None = None) -> Any:
    """`value` as a field of type `hint` keeps it (a whole number in a float field becomes a float),
    or `Invalid` at `loc`."""
    origin = get_origin(hint)
    if hint is Any:
        fitted = value
    elif origin is Union or origin is types.UnionType:
        options = [a for a in get_args(hint) if a is not type(None)]
        if value is None and len(options) < len(get_args(hint)):
            return None
        fitted = _first_fit(options, value, loc)
    elif origin is Literal:
        if value not in get_args(hint) or isinstance(value, bool):
            raise Invalid(loc, f"Input should be {_choices(get_args(hint))}")
        fitted = value
    elif origin is list:
        if not isinstance(value, list | tuple):
            raise Invalid(loc, "Input should be a valid list")
        (item,) = get_args(hint)
        fitted = [_fit(item, v, (*loc, i)) for i, v in enumerate(value)]
    elif origin is dict:
        if not isinstance(value, dict):
            raise Invalid(loc, "Input should be a valid dictionary")
        key_type, item = get_args(hint)
        fitted = {_fit(key_type, k, (*loc, k)): _fit(item, v, (*loc, k)) for k, v in value.items()}
    elif isinstance(hint, type) and issubclass(hint, Section):
        try:
            fitted = hint.model_validate(value)
        except Invalid as err:
            raise err.under(*loc) from None
    elif hint is int or hint is float:
        fitted = _number(hint, value, loc)
    else:
        if not isinstance(value, hint):  # bool, str
            raise Invalid(loc, f"Input should be a valid {'boolean' if hint is bool else 'string'}")
        fitted = value
    return _ruled(fitted, loc, rule) if rule is not None else fitted


def _first_fit(options: list[Any], value: Any, loc: tuple[str | int, ...]) -> Any:
    first: Invalid | None = None
    for option in options:
        try:
            return _fit(option, value, loc)
        except Invalid as err:
            first = first or err
    assert first is not None
    raise first


_BOUNDS = (
    ("gt", lambda v, b: v > b, "greater than"),
    ("ge", lambda v, b: v >= b, "greater than or equal to"),
    ("lt", lambda v, b: v < b, "less than"),
    ("le", lambda v, b: v <= b, "less than or equal to"),
)


def _ruled(value: Any, loc: tuple[str | int, ...], rule: Rule) -> Any:
    if value is None:
        return None
    for attr, holds, words in _BOUNDS:
        bound = getattr(rule, attr)
        if bound is not None and not holds(value, bound):
            raise Invalid(loc, f"Input should be {words} {bound}")
    if rule.check is not None:
        try:
            return rule.check(value)
        except ValueError as err:
            raise Invalid(loc, str(err)) from None
    return value
