"""Shared fixtures: real runs of the mutation engine on small projects under fixtures/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.config import SandboxConfig
from assay.sandbox import Sandbox
from tests.mutation._mutation_support import FIXTURES, run_engine, tree_digest

collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(scope="session")
def shop_root(tmp_path_factory) -> Path:
    """A private copy of the shop project (tests may write .assay/ into it)."""
    dest = tmp_path_factory.mktemp("shop") / "shop"
    shutil.copytree(FIXTURES / "shop", dest)
    return dest


@pytest.fixture(scope="session")
def sandbox(shop_root) -> Sandbox:
    return Sandbox(SandboxConfig(timeout_s=30), protect=shop_root)


@pytest.fixture(scope="session")
def shop_run(shop_root, sandbox):
    """The whole pricing module against its good tests; the user's tree must stay byte-identical."""
    before = tree_digest(shop_root)
    run = run_engine(
        shop_root, sandbox, ["src/shop/pricing.py"], ["tests/test_pricing.py"], timeout_s=1.0
    )
    assert tree_digest(shop_root) == before
    return run
