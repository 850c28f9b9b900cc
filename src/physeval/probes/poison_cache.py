"""A disk cache of poisoned items: a solution is perturbed once per kind, seed and truncation.

Perturbing a solution converts its equations to SymPy and probes the edits; a second run, a
resume, ``regrade`` or ``score`` of the same items reads the result here instead. The key is a
SHA-256 of the problem (id, solution, answer), the item's settings and the source of every module
an item depends on (the probes package, the LaTeX reader, the equivalence probe), so a
change of the code is a new key, never a stale item. The file is ``poison.sqlite`` beside the
response cache (``PHYSEVAL_CACHE_DIR``); a cache that cannot be opened is not used.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Any

from physeval.errors import StorageError
from physeval.sqlite_file import SQLiteFile

__all__ = ["PoisonCache", "code_identity", "item_key"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS items (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
_MODULES = ("physeval.answers.latex", "physeval.answers.latex_normalize", "physeval.grading.equivalence",
            "physeval.grading.symbolic")
"""Modules outside the probes package an item depends on (every module of the package counts)."""


def _sources() -> list[Path]:
    here = Path(__file__).resolve().parent
    found = sorted(here.rglob("*.py"))
    for name in _MODULES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and os.path.isfile(spec.origin):
            found.append(Path(spec.origin))
    return found


@lru_cache(maxsize=1)
def code_identity() -> str:
    """A hash of the source of every module a poisoned item depends on (the probes package and
    the LaTeX reader and equivalence probe it calls)."""
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def item_key(problem_id: str, solution: str, answer: str, kind: str, seed: int, truncation: str) -> str:
    """The cache key of one (problem, kind) item."""
    payload = json.dumps([code_identity(), problem_id, solution, answer, kind, seed, truncation], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class PoisonCache(SQLiteFile):
    """Item results by :func:`item_key`: a JSON object (the item's fields, or why it was not made)."""

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            from physeval.paths import cache_dir

            path = cache_dir() / "poison.sqlite"
        super().__init__(path, _SCHEMA, timeout=30)

    @classmethod
    def open_or_none(cls, path: str | Path | None = None) -> PoisonCache | None:
        """The cache, or ``None`` when it cannot be opened (a read-only disk): items are then computed."""
        try:
            return cls(path)
        except (OSError, sqlite3.Error, StorageError):  # StorageError: what SQLiteFile makes of the first two
            return None

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached result for ``key``, or ``None``."""
        with self._lock:
            row = self._db.execute("SELECT value FROM items WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Remember ``value`` under ``key`` (a write that fails is dropped: the cache is an optimisation)."""
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO items(key, value) VALUES (?, ?)",
                                 (key, json.dumps(value, ensure_ascii=False)))
        except sqlite3.Error:
            pass
