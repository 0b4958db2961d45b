"""The one table of the field bench (Markdown), the gate-4 rejections with the lead's reading
from read.toml, and the spread of the verify/pytest ratio."""

from __future__ import annotations

import statistics
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

COLUMNS = (
    "project",
    "files",
    "files a/r/f/l/u",
    "tests a/r/f/l/u",
    "verify s",
    "pytest s",
    "verify/pytest",
    "mutate s",
    "mutmut s",
    "mutate/mutmut",
    "score assay",
    "score mutmut",
    "gate-4 rejects (read)",
    "environment gaps",
    "load",
)


def load_reading(path: Path) -> dict[str, dict]:
    """read.toml: `"project/path" = {read = "sound" | "weak", why = "..."}`, filled by hand."""
    return tomllib.loads(path.read_text()) if path.exists() else {}


def _counts(counts: dict) -> str:
    return "/".join(str(n) for n in counts.values())


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}x" if a is not None and b else "-"


def _secs(part: dict | None) -> str:
    if not part:
        return "-"
    if "error" in part:
        return "error"
    bound = "" if part.get("finished", True) else ">"
    return f"{bound}{part['wall_s']:.1f}"


def _score(part: dict | None) -> str:
    if not part or part.get("score") is None:
        return "-"
    return f"{part['score']:.1f}%"


def _read(row: dict, reading: dict[str, dict]) -> str:
    marks = []
    for reject in row["verify"].get("gate4", []):
        read = reading.get(f"{row['project']}/{reject['path']}", {}).get("read", "?")
        marks.append(read)
    return f"{len(marks)} ({', '.join(marks)})" if marks else "0"


def cpu_ratio(row: dict) -> float | None:
    """verify's CPU seconds over pytest's (all their processes): what a shared machine's load
    leaves alone."""
    verify, pytest = row.get("verify") or {}, row.get("pytest") or {}
    if "cpu_s" not in verify or not pytest.get("cpu_s"):
        return None
    return verify["cpu_s"] / pytest["cpu_s"]


def verify_ratio(row: dict) -> float | None:
    verify, pytest = row.get("verify") or {}, row.get("pytest") or {}
    if "wall_s" not in verify or not pytest.get("wall_s"):
        return None
    return verify["wall_s"] / pytest["wall_s"]


def line(row: dict, reading: dict[str, dict]) -> list[str]:
    name = f"{row['project']} {row['version']}"
    if row.get("error"):
        return [name, "-", f"**{row['error']}**", *["-"] * (len(COLUMNS) - 3)]
    verify, pytest = row["verify"], row["pytest"]
    mutate, mutmut = row.get("mutate"), row.get("mutmut")
    failed = [
        f"{k}: {p['error']}"
        for k, p in (("mutate", mutate), ("mutmut", mutmut))
        if p and "error" in p
    ]
    gaps = "; ".join(verify["gaps"][:3]) + (
        f" (+{len(verify['gaps']) - 3})" if len(verify["gaps"]) > 3 else ""
    )
    return [
        name,
        str(sum(verify["files"].values())),
        _counts(verify["files"]),
        _counts(verify["tests"]),
        _secs(verify),
        _secs(pytest),
        _ratio(verify["wall_s"], pytest["wall_s"]),
        _secs(mutate),
        _secs(mutmut),
        _ratio((mutate or {}).get("wall_s"), (mutmut or {}).get("wall_s")),
        _score(mutate),
        _score(mutmut),
        _read(row, reading),
        "; ".join(filter(None, [gaps, *failed])) or "-",
        str(row.get("load", "-")),
    ]


def render(rows: list[dict], reading: dict[str, dict]) -> str:
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    out += ["| " + " | ".join(line(row, reading)) + " |" for row in rows]
    out.append("")
    out.append(
        "a/r/f/l/u = accepted/rejected/flaky/low_value/unvalidated; '>' = stopped at the limit"
    )
    ratios = sorted(r for r in map(verify_ratio, rows) if r is not None)
    if ratios:
        worst = max((r for r in rows if verify_ratio(r) is not None), key=verify_ratio)  # type: ignore[arg-type]
        out.append(
            f"verify/pytest over {len(ratios)} projects: median {statistics.median(ratios):.1f}x,"
            f" worst {ratios[-1]:.1f}x ({worst['project']})"
        )
    cpu = sorted(r for r in map(cpu_ratio, rows) if r is not None)
    if cpu:
        out.append(
            f"verify/pytest in CPU seconds over {len(cpu)} projects: median"
            f" {statistics.median(cpu):.1f}x, worst {cpu[-1]:.1f}x"
        )
    files = sum(sum(r["verify"]["files"].values()) for r in rows if not r.get("error"))
    gate4 = [
        (r["project"], g) for r in rows if not r.get("error") for g in r["verify"].get("gate4", [])
    ]
    sound = sum(reading.get(f"{name}/{g['path']}", {}).get("read") == "sound" for name, g in gate4)
    unread = sum(f"{name}/{g['path']}" not in reading for name, g in gate4)
    out.append(
        f"rejected at gate 4 and read as sound: {sound} / {files} human-written files"
        f" ({len(gate4)} rejected at gate 4, {unread} not read yet)"
    )
    if gate4:
        out += ["", "Rejected at gate 4 (read.toml: sound | weak):"]
        for name, g in gate4:
            entry = reading.get(f"{name}/{g['path']}", {})
            read = f"{entry.get('read', '?')}: {entry.get('why', '')}".rstrip(": ")
            out.append(f"- {name}/{g['path']}: {g['reason']} [{read}]")
    others = [
        (r["project"], f) for r in rows if not r.get("error") for f in r["verify"]["not_accepted"]
    ]
    others = [(n, f) for n, f in others if f["at"] != "mutation"]
    if others:
        out += ["", "Other files not accepted:"]
        out += [
            f"- {n}/{f['path']}: {f['verdict']} at {f['at'] or '-'}: {f.get('why', '')}".rstrip(
                ": "
            )
            for n, f in others
        ]
    return "\n".join(out)
