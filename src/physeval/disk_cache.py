"""A content-addressed on-disk cache of grading work: parses and simplified EED trees outlive the process.

Parsing a LaTeX answer and simplifying its expression are the expensive steps of symbolic
grading, and a reference is graded against every sample of every run. This cache keeps each
result in one file named by the SHA-256 of everything that determines it -- the kind of work
(``parse``, ``tree``), the normalised LaTeX text, the mode and budget, the versions of
physeval, SymPy and latex2sympy2, and a fingerprint of the source of the modules that compute
the entries -- so a reference is parsed and simplified once per machine, not once per run, and
neither an upgrade nor an edit of that code ever reads an entry written before.

Guarantees:

* **Atomic writes.** An entry is written to a temporary file in its own directory and renamed
  into place (``os.replace``), so a reader sees a whole entry or none; a writer killed at any
  point leaves at most a ``.tmp-*`` file, which no reader opens.
* **Never trusted blindly.** Each entry carries the SHA-256 of its key and payload; an entry
  that is truncated, altered or misplaced fails the check, is treated as absent, and the caller
  recomputes (and rewrites) it.
* **Safe under concurrency.** Any number of processes and threads may read and fill the cache
  at once: two writers of one key write the same bytes, and the last rename wins.
* **Off switch.** ``PHYSEVAL_EED_CACHE=off`` (what ``--no-cache`` sets) bypasses it: nothing
  is read or written.

Entries are pickles of physeval's own objects, read back with SymPy's evaluation off so an
unevaluated parse returns node for node (the EED tree of an unsimplified side depends on it).
The directory (``$PHYSEVAL_CACHE_DIR/eed``,
else the platform's user cache directory) must be as trusted as the user's home: whoever can
write there can already change the code that runs. ``physeval cache info`` and ``physeval
cache clear`` show and empty it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["CacheInfo", "cache_dir", "clear", "code_fingerprint", "enabled", "get", "info", "put", "versions"]

_FORMAT = "physeval-disk-cache/1"
_MAGIC = b"PHYSEVAL-CACHE-1\n"
_DIGEST = 64  # hex characters of a SHA-256
_OFF = {"0", "off", "false", "no"}
_TMP_PREFIX = ".tmp-"


def enabled() -> bool:
    """False when ``PHYSEVAL_EED_CACHE`` is ``off`` (or ``0``, ``false``, ``no``)."""
    return os.environ.get("PHYSEVAL_EED_CACHE", "").strip().lower() not in _OFF


def cache_dir() -> Path:
    """``$PHYSEVAL_CACHE_DIR/eed``, else ``eed`` in the platform's user cache directory.

    Read on every call, so a test (or a caller) that changes the variable moves the cache.
    """
    from physeval.paths import cache_dir as physeval_cache_dir

    return physeval_cache_dir() / "eed"


# The modules whose code decides what an entry holds: their source is part of every key, so an
# edit to the parser, the bounds or the trees (even under the same version number) starts afresh.
_CODE = ("answers/latex.py", "answers/latex_fast.py", "answers/latex_tokens.py", "answers/latex_functions.py",
         "answers/bounds.py", "grading/eed.py",
         "grading/eed_tree.py", "grading/eed_budget.py", "disk_cache.py")


@lru_cache(maxsize=1)
def versions() -> tuple[str, str, str]:
    """The versions of physeval, SymPy and latex2sympy2_extended that every key includes."""
    from importlib.metadata import PackageNotFoundError, version

    import sympy

    from physeval.version import __version__

    try:
        parser = version("latex2sympy2_extended")
    except PackageNotFoundError:  # pragma: no cover - a dependency
        parser = "unknown"
    return __version__, sympy.__version__, parser


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 (16 hex digits) of the source of the modules in ``_CODE`` (read, not imported)."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _CODE:
        try:
            source = (root / name).read_bytes()
        except OSError:  # pragma: no cover - an installation without sources
            source = b"?"
        digest.update(name.encode("ascii") + b"\0" + source)
    return digest.hexdigest()[:16]


def _key(kind: str, parts: tuple[Any, ...]) -> str:
    payload = json.dumps([_FORMAT, kind, *versions(), code_fingerprint(), *(repr(p) for p in parts)],
                         ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _path(kind: str, key: str) -> Path:
    return cache_dir() / kind / key[:2] / key


def _digest(key: str, payload: bytes) -> bytes:
    return hashlib.sha256(key.encode("ascii") + b"\0" + payload).hexdigest().encode("ascii")


def get(kind: str, *parts: Any) -> Any | None:
    """The value stored for ``(kind, *parts)``, or ``None`` (absent, disabled, corrupt or unreadable).

    ``parts`` are turned into the key with ``repr``, so they must be plain values (strings,
    numbers, ``None``, frozen dataclasses of those). Never raises.
    """
    if not enabled():
        return None
    key = _key(kind, parts)
    try:
        data = _path(kind, key).read_bytes()
    except OSError:
        return None
    head = len(_MAGIC)
    if not data.startswith(_MAGIC) or len(data) < head + _DIGEST + 1 or data[head + _DIGEST] != 0x0A:
        return None
    payload = data[head + _DIGEST + 1:]
    if data[head:head + _DIGEST] != _digest(key, payload):
        return None  # truncated, altered or misplaced: recompute
    try:
        import sympy

        # SymPy objects are rebuilt from their arguments; with evaluation off an unevaluated
        # parse comes back node for node (with it on, nested products would be flattened).
        with sympy.evaluate(False):
            return pickle.loads(payload)  # noqa: S301 - physeval's own entries, checked above
    except Exception:  # a class that changed shape under the same version: recompute
        return None


def put(kind: str, *parts_and_value: Any) -> None:
    """Store the last argument under ``(kind, *the others)``, atomically; never raises.

    A failure to write (read-only or full disk) only loses the entry: grading goes on.
    """
    if not enabled() or not parts_and_value:
        return
    *parts, value = parts_and_value
    key = _key(kind, tuple(parts))
    path = _path(kind, key)
    tmp = None
    try:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(_MAGIC + _digest(key, payload) + b"\n" + payload)
        os.replace(tmp, path)
        tmp = None
    except Exception:  # noqa: BLE001 - the cache is an optimisation; it must never fail grading
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


@dataclass(frozen=True)
class CacheInfo:
    """What the cache holds: its directory, entries per kind, their bytes, leftover temp files."""

    path: Path
    entries: dict[str, int]
    bytes: int
    temp_files: int

    @property
    def total(self) -> int:
        """Entries of every kind."""
        return sum(self.entries.values())


def info() -> CacheInfo:
    """Count the entries under :func:`cache_dir` (per kind), their size and stray temp files."""
    root = cache_dir()
    entries: dict[str, int] = {}
    size = temp = 0
    if root.is_dir():
        for kind_dir in sorted(p for p in root.iterdir() if p.is_dir()):
            count = 0
            for file in kind_dir.glob("*/*"):
                if file.name.startswith(_TMP_PREFIX):
                    temp += 1
                    continue
                count += 1
                try:
                    size += file.stat().st_size
                except OSError:
                    pass
            entries[kind_dir.name] = count
    return CacheInfo(root, entries, size, temp)


def clear() -> int:
    """Remove every entry (and stray temp file) under :func:`cache_dir`; returns how many files went."""
    import shutil

    root = cache_dir()
    if not root.is_dir():
        return 0
    removed = sum(1 for p in root.rglob("*") if p.is_file())
    shutil.rmtree(root, ignore_errors=True)
    return removed
