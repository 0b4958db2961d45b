# ruff: noqa
"""Target module of the AS005 corpus: the project's own code, next to a dependency (requests)."""

import requests


def fetch_rate(currency):
    response = requests.get(f"https://rates.example/{currency}")
    return float(response.json()["rate"]) if response.ok else 1.0


class Invoice:
    def __init__(self, lines):
        self.lines = [line for line in lines if line]

    @classmethod
    def parse(cls, text):
        return cls([line.strip() for line in text.splitlines()])

    def total(self, currency="EUR"):
        return sum(len(line) for line in self.lines) * fetch_rate(currency)
