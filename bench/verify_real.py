"""`assay verify` on the own test files of real projects not written here: verdicts and wall time,
cold and cached.

Run by hand:  .venv/bin/python bench/verify_real.py [inflection==0.5.1 toolz==1.0.0 ...]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from sdists import CACHE, fetch

DEFAULT = ["inflection==0.5.1", "toolz==1.2.0", "humanize==4.17.0"]
TESTS_DIR = {"inflection": "test_inflection.py", "toolz": "toolz/tests", "humanize": "tests"}


def run(root: Path, target: str, *extra: str) -> tuple[dict, float]:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "assay", "verify", str(root / target), "-f", "json", *extra],
        capture_output=True,
        text=True,
    )
    elapsed = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"assay failed on {root}: {proc.stderr}")
    return json.loads(proc.stdout), elapsed


def main(specs: list[str]) -> None:
    for spec in specs:
        src = fetch(spec)
        work = CACHE / "verify" / src.name
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, work)
        (work / "pyproject.toml").touch()  # an sdist may lack a root marker
        name = spec.split("==")[0]
        doc, cold = run(work, TESTS_DIR[name])
        _, cached = run(work, TESTS_DIR[name])
        verdicts = Counter(f["verdict"] for f in doc["files"])
        tests = Counter(t["verdict"] for f in doc["files"] for t in f["tests"])
        print(
            f"\n## {spec}: {len(doc['files'])} test files, cold {cold:.1f} s, cached {cached:.2f} s"
        )
        print(f"file verdicts: {dict(verdicts)}; test verdicts: {dict(tests)}")
        for f in doc["files"]:
            gates = " ".join(
                f"{g['gate']}={g['status']}({g['duration_s']:.1f}s)" for g in f["gates"]
            )
            print(
                f"  {f['path']}: "
                f"{f['verdict']}{' at ' + f['rejected_at'] if f['rejected_at'] else ''}  {gates}"
            )
            if f["rejected_at"]:
                gate = next(g for g in f["gates"] if g["gate"] == f["rejected_at"])
                print("    " + "\n    ".join(gate["feedback"].splitlines()[:6]))


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
