"""Fetch and unpack sdists of real projects into bench/.cache (PyPI is the only network the
benches use)."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"


def _archives(downloads: Path, name: str, version: str | None) -> list[Path]:
    pattern = re.compile(
        re.escape(name) + "_" + (re.escape(version) + r"\.(tar|zip)" if version else r"\d")
    )
    return [p for p in downloads.iterdir() if pattern.match(p.name.lower().replace("-", "_"))]


def fetch(spec: str, cache: Path = CACHE) -> Path:
    """Download `spec` (e.g. 'inflection==0.5.1') as an sdist once into `cache` and return the
    unpacked project root."""
    downloads = cache / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    name = spec.split("==")[0].lower().replace("-", "_")
    version = spec.split("==")[1] if "==" in spec else None
    archives = _archives(downloads, name, version)
    if not archives:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(downloads),
                spec,
            ],
            check=True,
        )
        archives = _archives(downloads, name, version)
    archive = sorted(archives)[-1]
    dest = cache / "projects"
    stem = archive.name.removesuffix(".tar.gz").removesuffix(".zip")
    root = dest / stem
    if not root.exists():
        dest.mkdir(parents=True, exist_ok=True)
        if archive.suffix == ".zip":
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(dest)
        else:
            with tarfile.open(archive) as tf:
                tf.extractall(dest, filter="data")
    return root
