"""A small shop project in a real git repository whose history is a sprint: tasks of every class,
each named by the commits that did it, and one the rules cannot place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SPRINT = "S42"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}
TASKS = [
    {"id": "SPAN-1", "title": "Discount must not exceed the price", "type": "Story"},
    {"id": "SPAN-2", "title": "Stock goes negative on refunds", "type": "Bug"},
    {"id": "SPAN-3", "title": "Cart total misaligned on mobile", "type": "Bug"},
    {"id": "SPAN-4", "title": "Notify the sales channel on big orders", "type": "Story"},
    {"id": "SPAN-5", "title": "Bump httpx and run CI on 3.12", "type": "Task"},
    {"id": "SPAN-6", "title": "Checkout 500s on Friday night", "type": "Incident"},
    {"id": "SPAN-7", "title": "Look into the thing Bob mentioned", "type": "Task"},
    {"id": "SPAN-8", "title": "Explain how tax is rounded", "type": ""},
]
EXPECTED = {
    "SPAN-1": "core",
    "SPAN-2": "core",
    "SPAN-3": "frontend",
    "SPAN-4": "adapters",
    "SPAN-5": "technical",
    "SPAN-6": "incident",
    "SPAN-7": "unclassified",
    "SPAN-8": "unclassified",  # a docstring alone changed: no code, no target, no class
}

PRICING_V1 = '''
def apply_discount(price, percent):
    """The price less `percent` per cent, rounded down to the cent."""
    return price - price * percent // 100


def with_tax(price, rate=20):
    return price + price * rate // 100
'''
PRICING_V2 = '''
def apply_discount(price, percent):
    """The price less `percent` per cent, rounded down to the cent."""
    if percent < 0 or percent > 100:
        raise ValueError("percent out of range")
    return price - price * percent // 100


def with_tax(price, rate=20):
    return price + price * rate // 100
'''
STOCK_V1 = """
class Stock:
    def __init__(self):
        self.items = {}

    def add(self, sku, n):
        self.items[sku] = self.items.get(sku, 0) + n

    def refund(self, sku, n):
        self.items[sku] = self.items.get(sku, 0) - n
        return self.items[sku]
"""
STOCK_V2 = STOCK_V1.replace(
    "        self.items[sku] = self.items.get(sku, 0) - n\n",
    '        if n <= 0:\n            raise ValueError("refund a positive quantity")\n'
    "        self.items[sku] = self.items.get(sku, 0) + n\n",
)


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return subprocess.run(
        ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout


def commit(root: Path, files: dict[str, str], message: str, date: str | None = None) -> str:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, date=date)
    return git(root, "rev-parse", "HEAD").strip()


def sprint_repo(root: Path) -> Path:
    """The project and its history; `tasks.json` (the tracker export) lies outside the repo."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    venv_python = root / ".venv" / "bin" / "python"  # ignored by git, as a project's venv is
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    venv_python.chmod(0o755)
    commit(
        root,
        {
            "pyproject.toml": '[project]\nname = "shop"\nversion = "0"\n\n'
            '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n\n'
            "[tool.assay.stability]\nreruns = 1\nbudget_s = 0\n\n"
            # the project's own interpreter, as README step 1 has it (tests/sprint/conftest.py)
            '[tool.assay.python]\ninterpreter = ".venv/bin/python"\n\n'
            # the recorded answers (tests/sprint/recorded/) outlive a change of assay's prompts
            '[tool.assay.llm]\nreplay_match = "order"\n',
            ".gitignore": ".venv/\n",
            "src/shop/__init__.py": "",
            "src/shop/pricing.py": PRICING_V1,
            "src/shop/stock.py": STOCK_V1,
            "tests/test_pricing.py": "from shop.pricing import with_tax\n\n\n"
            "def test_with_tax():\n    assert with_tax(100) == 120\n",
        },
        "initial shop",
        date="2025-01-06T10:00:00Z",  # apply_discount's docstring is older than its code
    )
    commit(root, {"src/shop/pricing.py": PRICING_V2}, "SPAN-1: refuse discounts beyond the price")
    commit(root, {"src/shop/stock.py": STOCK_V2}, "Fix refunds (SPAN-2)")
    commit(root, {"docs/notes.md": "notes\n"}, "SPAN-10: release notes")
    commit(
        root,
        {
            "templates/cart.html": "<div class=total>{{ total }}</div>\n",
            "static/cart.css": ".total { text-align: right }\n",
        },
        "SPAN-3 align the total",
    )
    commit(
        root,
        {"src/shop/adapters/sales_channel.py": "def notify(order):\n    return {'text': order}\n"},
        "SPAN-4: post big orders to the sales channel",
    )
    commit(
        root,
        {".github/workflows/ci.yml": "on: push\n", "requirements.txt": "httpx==0.28.1\n"},
        "SPAN-5 bump httpx, CI on 3.12",
    )
    commit(root, {"src/shop/config.py": "TIMEOUT = 30\n"}, "SPAN-6: raise the timeout")
    taxed = PRICING_V2.replace(
        "def with_tax(price, rate=20):\n",
        'def with_tax(price, rate=20):\n    """Tax in whole per cent, rounded down."""\n',
    )
    commit(root, {"src/shop/pricing.py": taxed}, "SPAN-8: say how tax is rounded")
    (root.parent / "tasks.json").write_text(
        json.dumps({"tasks": [{**t, "sprint": SPRINT} for t in TASKS]}, indent=1)
    )
    return root
