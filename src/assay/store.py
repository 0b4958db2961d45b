"""SQLite state under `<root>/.assay/assay.db`: verdict cache and run history.

WAL journal and one transaction per write, so a SIGKILL mid-write leaves the last committed state.
Values are JSON documents addressed by (namespace, key); each concern owns its namespace
(`verify`, `mutation`, ...).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    command TEXT NOT NULL,
    started REAL NOT NULL,
    duration_s REAL NOT NULL,
    summary TEXT NOT NULL
);
"""


class Store:
    def __init__(self, root: Path | None):
        """Open `<root>/.assay/assay.db`; where the project cannot be written (a read-only
        checkout), an in-memory store serves the run instead and `problem` says why nothing
        persists. `root=None`: in memory on purpose (the cache is off), and nothing is written to
        the project."""
        self.problem: str | None = None
        self._lock = threading.Lock()
        if root is None:
            self._db = self._connect(":memory:")
            return
        self.dir = root / ".assay"
        self.path = self.dir / "assay.db"
        try:
            self.dir.mkdir(exist_ok=True)
            gitignore = self.dir / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("*\n")
            self._db = self._connect(str(self.path))
        except (OSError, sqlite3.Error) as err:
            self.problem = f"cache not kept: cannot write {self.path}: {err}"
            self._db = self._connect(":memory:")

    @staticmethod
    def _connect(target: str) -> sqlite3.Connection:
        db = sqlite3.connect(target, timeout=30, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        return db

    def get(self, namespace: str, key: str) -> Any | None:
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM entries WHERE namespace=? AND key=?", (namespace, key)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, namespace: str, key: str, value: Any) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO entries(namespace, "
                "key, value, created) VALUES (?, ?, ?, ?)",
                (namespace, key, json.dumps(value), time.time()),
            )

    def record_run(
        self, command: str, started: float, duration_s: float, summary: dict[str, Any]
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO runs(command, started, duration_s, summary) VALUES (?, ?, ?, ?)",
                (command, started, duration_s, json.dumps(summary)),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
