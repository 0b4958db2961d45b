"""Before/after check of a refactoring: the verdicts and reports of `assay verify`, `mutate` and
`smells` on the demo project and the bench projects, with run times and absolute paths taken out, so
that two snapshots taken with two versions of assay can be compared field by field.

Run by hand:
  .venv/bin/python bench/behaviour.py snapshot bench/.cache/behaviour-before.json
  .venv/bin/python bench/behaviour.py compare bench/.cache/behaviour-before.json \\
      bench/.cache/behaviour-after.json
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sdists import fetch  # noqa: E402

VERIFY = {
    "shop": "tests",
    "inflection==0.5.1": "test_inflection.py",
    "toolz==1.2.0": "toolz/tests",
    "humanize==4.17.0": "tests",
}
MUTATE = {
    "inflection==0.5.1": ("inflection/__init__.py", "test_inflection.py"),
    "toolz==1.2.0": ("toolz/itertoolz.py", "toolz/tests/test_itertoolz.py"),
}
SMELLS = {
    "inflection==0.5.1": "test_inflection.py",
    "toolz==1.2.0": "toolz/tests",
    "humanize==4.17.0": "tests",
    "more-itertools==11.2.1": "tests",
}
VOLATILE = {"duration_s", "cached", "root", "sandbox", "notes", "timeout_s"}


def _clean(value: Any, roots: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v, roots) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_clean(v, roots) for v in value]
    if isinstance(value, str):
        for root in roots:
            value = value.replace(root, "<root>")
        return value
    return value


def _project(spec: str) -> Path:
    src = HERE.parent / "examples" / "shop" if spec == "shop" else fetch(spec)
    work = Path(tempfile.mkdtemp(prefix="bench-behaviour-")) / src.name
    shutil.copytree(src, work, ignore=shutil.ignore_patterns(".assay", "__pycache__", "mutants"))
    (work / "pyproject.toml").touch()
    return work


def _assay(root: Path, *args: str) -> tuple[Any, float]:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "assay", *args], cwd=root, capture_output=True, text=True
    )
    took = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(
            f"assay {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}"
        )
    return json.loads(proc.stdout), took


def snapshot(out: Path) -> None:
    data: dict[str, Any] = {"verify": {}, "mutate": {}, "smells": {}, "wall_s": {}}
    for spec, tests in VERIFY.items():
        root = _project(spec)
        doc, took = _assay(root, "verify", str(root / tests), "-f", "json", "--no-cache")
        data["verify"][spec] = _clean(doc, [str(root)])
        data["wall_s"][f"verify {spec}"] = round(took, 2)
        per_file = {f["path"]: f["duration_s"] for f in doc["files"]}
        data["wall_s"][f"verify {spec} per file"] = per_file
        print(f"verify {spec}: {took:.1f} s", flush=True)
    for spec, (target, tests) in MUTATE.items():
        root = _project(spec)
        doc, took = _assay(
            root,
            "mutate",
            str(root / target),
            "--tests",
            str(root / tests),
            "-f",
            "json",
            "--no-cache",
        )
        mutants = {
            m["id"]: {k: m[k] for k in ("status", "killed_by", "line", "operator")}
            for m in doc["mutants"]
        }
        data["mutate"][spec] = {"score": doc["score"], "mutants": mutants}
        data["wall_s"][f"mutate {spec}"] = round(took, 2)
        print(f"mutate {spec}: {took:.1f} s", flush=True)
    for spec, tests in SMELLS.items():
        root = _project(spec)
        doc, took = _assay(root, "smells", str(root / tests), "-f", "json")
        data["smells"][spec] = _clean(doc, [str(root)])
        data["wall_s"][f"smells {spec}"] = round(took, 2)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True))
    print(f"written {out}")


def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}.{k}: only in {'after' if k in b else 'before'}")
            else:
                _diff(a[k], b[k], f"{where}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{where}[{i}]", out)
    elif a != b:
        out.append(f"{where}: {str(a)[:200]!r} -> {str(b)[:200]!r}")


_PYTHON = re.compile(r"/\S*?/bin/python[\d.]*")


def _normal(data: Any) -> Any:
    """What may differ without a change of behaviour: the interpreter's path, the order of tests
    parametrized over a set (it changes between processes), which test killed a mutant first (the
    fastest at that moment)."""
    if isinstance(data, dict):
        out = {k: _normal(v) for k, v in data.items() if k != "killed_by"}
        if isinstance(out.get("tests"), list) and all(
            isinstance(t, dict) and "id" in t for t in out["tests"]
        ):
            out["tests"] = sorted(out["tests"], key=lambda t: t["id"])
        return out
    if isinstance(data, list):
        return [_normal(v) for v in data]
    if isinstance(data, str):
        return _PYTHON.sub("<python>", data)
    return data


def compare(before: Path, after: Path) -> int:
    a, b = _normal(json.loads(before.read_text())), _normal(json.loads(after.read_text()))
    differences: list[str] = []
    for part in ("verify", "mutate", "smells"):
        _diff(a[part], b[part], part, differences)
    for key in a["wall_s"]:
        x, y = a["wall_s"][key], b["wall_s"].get(key)
        if isinstance(x, float) and isinstance(y, float):
            print(f"{key}: {x:.2f} s -> {y:.2f} s")
        elif isinstance(x, dict) and isinstance(y, dict):
            for f in x:
                if f in y:
                    print(f"  {f}: {x[f]:.2f} s -> {y[f]:.2f} s")
    print(f"{len(differences)} differences in verdicts and reports")
    for line in differences:
        print("  " + line)
    return 1 if differences else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "snapshot":
        snapshot(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        raise SystemExit(__doc__)
