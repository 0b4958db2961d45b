"""Recount, independently of assay's analyzer, the unexplained assertions behind every
AS003 finding.

Run by hand after `bench/smells_real.py` has unpacked the projects:
    .venv/bin/python bench/smells_recount.py bench/.cache/smells_src/toolz-1.2.0/toolz/tests ...
Counts plain `assert` without a message and `self.assertX(...)` calls without `msg=` in the
finding's test function; prints the findings where the recount differs from assay's count.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path


def project_root(path: Path) -> Path:
    for d in (path, *path.parents):
        if (d / "pyproject.toml").exists() or (d / "setup.py").exists():
            return d
    return path


def recount(fn: ast.AST) -> int:
    n = 0
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert) and node.msg is None:
            n += 1
        elif isinstance(node, ast.Call):
            name = (
                node.func.attr
                if isinstance(node.func, ast.Attribute)
                else getattr(node.func, "id", "")
            )
            if re.match(r"assert[A-Z]", name) and not any(k.arg == "msg" for k in node.keywords):
                n += 1
    return n


def main(paths: list[str]) -> None:
    total = agree = 0
    for arg in paths:
        root = project_root(Path(arg).resolve())
        out = subprocess.run(
            [sys.executable, "-m", "assay", "smells", arg, "-f", "json"],
            capture_output=True,
            text=True,
        ).stdout
        for f in json.loads(out)["findings"]:
            if f["rule"] != "AS003":
                continue
            total += 1
            claimed = int(re.search(r"(\d+) assertions", f["message"]).group(1))
            tree = ast.parse((root / f["path"]).read_text(encoding="utf-8"))
            fn = next(
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.lineno == f["line"]
            )
            mine = recount(fn)
            if mine == claimed:
                agree += 1
            else:
                print(f"{f['path']}::{f['test']}: assay {claimed}, recount {mine}")
    print(f"AS003 findings: {total}; recount agrees on {agree}")


if __name__ == "__main__":
    main(sys.argv[1:])
