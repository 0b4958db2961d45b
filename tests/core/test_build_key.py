"""Cached verdicts and mutant results are keyed by assay's own code, not only its version: an
edited install judges again (pluggy 1.5.0: a smell rule changed, and `verify` kept answering the old
verdict from the cache until `--no-cache`)."""

from __future__ import annotations

import os

from assay.version import __version__, build, code_digest


def test_the_build_key_follows_every_edit_of_assays_code(tmp_path):
    pkg = tmp_path / "assay"
    (pkg / "smells" / "__pycache__").mkdir(parents=True)
    rule = pkg / "smells" / "rules.py"
    rule.write_text("LEVEL = 'reject'\n")
    (pkg / "plan.mjs").write_text("export {}\n")
    before = code_digest(pkg)
    # bytecode caches and other files change nothing
    (pkg / "smells" / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"\0")
    (pkg / "README.txt").write_text("notes")
    assert code_digest(pkg) == before
    rule.write_text("LEVEL = 'warn'\n\n")
    edited = code_digest(pkg)
    assert edited != before
    st = rule.stat()
    os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # same size, later edit
    assert code_digest(pkg) != edited
    (pkg / "plan.mjs").unlink()
    assert code_digest(pkg) not in (before, edited)
    assert build().startswith(f"{__version__}+")
