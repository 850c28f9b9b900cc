"""The response cache: re-running or re-scoring never pays for the same request twice.

A SQLite file in the user cache directory (``platformdirs``; ``PHYSEVAL_CACHE_DIR``
overrides it). The key is a SHA-256 of the model's identity (name and endpoint), the
messages, the sampling parameters and the sample index, so sample 3 of a K=8 run is not
served the answer of sample 0.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from physeval.models.base import Completion

__all__ = ["ResponseCache", "default_cache_path", "cache_key"]


def default_cache_path() -> Path:
    """``$PHYSEVAL_CACHE_DIR/responses.sqlite``, else the platform's user cache dir."""
    from physeval.paths import cache_dir

    return cache_dir() / "responses.sqlite"


def cache_key(model_identity: str, messages: list[dict[str, Any]], params: dict[str, Any], sample: int) -> str:
    """A stable hash of everything that determines a sampled response."""
    payload = json.dumps([model_identity, messages, params, sample], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """Completion lookups by :func:`cache_key`; safe across threads and processes (WAL)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, completion TEXT NOT NULL)")

    def get(self, key: str) -> Completion | None:
        """The cached completion for ``key``, or ``None``."""
        with self._lock:
            row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        return Completion(**json.loads(row[0])) if row else None

    def put(self, key: str, completion: Completion) -> None:
        """Remember ``completion`` under ``key``."""
        data = json.dumps(dataclasses.asdict(completion), ensure_ascii=False)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses(key, completion) VALUES (?, ?)", (key, data))

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
