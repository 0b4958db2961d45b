# ruff: noqa
"""Target module of the low-value corpus: trivial code next to code with logic."""

from dataclasses import dataclass
from enum import Enum

LABELS = {"sq": "square", "rd": "round"}


class Kind(Enum):
    SQUARE = "square"
    ROUND = "round"


@dataclass
class Point:
    x: int
    y: int

    def distance(self, other):
        return ((self.x - other.x) ** 2 + (self.y - other.y) ** 2) ** 0.5


class Account:
    def __init__(self, owner, balance):
        self.owner = owner
        self._balance = balance

    @property
    def balance(self):
        return self._balance

    def get_owner(self):
        return self.owner

    def __str__(self):
        return f"{self.owner}"

    def withdraw(self, amount):
        if amount > self._balance:
            raise ValueError("insufficient funds")
        self._balance -= amount
        return self._balance


class Validated:
    def __init__(self, n):
        if n < 0:
            raise ValueError("negative")
        self.n = n


def label(kind):
    match kind:
        case Kind.SQUARE:
            return "square"
        case Kind.ROUND:
            return "round"


def short_label(code):
    return LABELS[code]


def describe(kind):
    if kind == "sq":
        return "square"
    elif kind == "rd":
        return "round"
    raise ValueError(kind)


def area(kind, w, h):
    if kind is Kind.SQUARE:
        return w * h
    return 3.14159 * w * h / 4
