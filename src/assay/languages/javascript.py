"""JavaScript: `node --check` for gate 1, then the project's vitest, jest or `node --test`
(see `node.py`)."""

from __future__ import annotations

from assay.languages.base import Toolchain
from assay.languages.typescript import NODE_INSTALL, NODE_PROFILE, NodeLanguage

JAVASCRIPT = NodeLanguage(
    name="javascript",
    title="JavaScript",
    extensions=(".js", ".mjs", ".cjs", ".jsx"),
    build_files=("package.json",),
    test_globs=(
        "*.test.js",
        "*.spec.js",
        "*.test.mjs",
        "*.spec.mjs",
        "*.test.cjs",
        "*.spec.cjs",
        "*.test.jsx",
        # jest's default `testMatch` also takes every file under `__tests__`
        "__tests__/*.js",
        "*/__tests__/*.js",
        "__tests__/*.jsx",
        "*/__tests__/*.jsx",
    ),
    toolchain=(Toolchain("node", NODE_INSTALL),),
    profile=NODE_PROFILE,
    fences=("js", "javascript", "jsx", "mjs"),
    test_mark=r"\b(it|test)\s*\(",
    smells=NodeLanguage.Smells(
        "tree_sitter_javascript:language",
        ("call_expression",),
        "js",
        sleep=NodeLanguage.SLEEP,
        mocks=NodeLanguage.MOCKS,
    ),
)
