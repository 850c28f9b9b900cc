"""One SQLite file shared by threads: the connection, WAL, a lock, closing and a JSON meta table.

Why: the run store and the build store (and anything else physeval keeps on disk) need the
same guarantees: one connection used from several threads under one lock, write-ahead logging
so a killed process keeps every committed row, autocommit (each statement its own transaction)
and a ``meta`` table of JSON values. Subclasses add their own tables through ``schema``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Self

__all__ = ["SQLiteFile"]

_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"


class SQLiteFile:
    """``path`` opened in WAL mode, autocommit, usable from several threads of one process."""

    def __init__(self, path: str | Path, schema: str, *, timeout: float = 5.0, synchronous: str | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=timeout)
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous:
            self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.executescript(_META + schema)

    def close(self) -> None:
        """Checkpoint the WAL and close."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value under ``key``."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        """The JSON value stored under ``key``, or ``default``."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default
