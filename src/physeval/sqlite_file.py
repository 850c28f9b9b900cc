"""One SQLite file shared by threads: the connection, WAL, a lock, closing and a JSON meta table.

Why: the run store and the build store (and anything else physeval keeps on disk) need the
same guarantees: one connection used from several threads under one lock, write-ahead logging
so a killed process keeps every committed row, autocommit (each statement its own transaction)
and a ``meta`` table of JSON values. Subclasses add their own tables through ``schema``.

Storage faults are named, never passed on as a bare ``sqlite3`` error: a statement that fails
because the disk is full, the file system is read-only or failing, or the file is damaged
raises :class:`~physeval.errors.StorageError` (``kind`` says which, ``hint`` what to do).
A damaged file (SQLite's ``SQLITE_CORRUPT`` or ``SQLITE_NOTADB``) raises
:class:`~physeval.errors.StoreDamaged` after SQLite's integrity check has run and the rows
of :attr:`SQLiteFile.rows_table` that can still be read have been counted
(:func:`readable_rows` reads them, skipping what is lost).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from physeval.errors import StorageError, StoreDamaged

__all__ = ["SQLiteFile", "storage_fault", "readable_rows", "integrity_problems", "write_error"]

_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"

_SQLITE_KINDS = (("SQLITE_FULL", "disk_full"), ("SQLITE_IOERR", "io_error"), ("SQLITE_READONLY", "read_only"),
                 ("SQLITE_PERM", "read_only"), ("SQLITE_CORRUPT", "damaged"), ("SQLITE_NOTADB", "damaged"),
                 ("SQLITE_CANTOPEN", "cannot_open"), ("SQLITE_BUSY", "busy"), ("SQLITE_LOCKED", "busy"))
"""SQLite's error names (extended ones start with these) -> the kind of storage fault."""

_OS_KINDS = {errno.ENOSPC: "disk_full", errno.EDQUOT: "disk_full", errno.EROFS: "read_only",
             errno.EACCES: "read_only", errno.EPERM: "read_only", errno.EIO: "io_error"}


def _execute(db: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
    """Every statement of :class:`SQLiteFile` goes through here (one place a test can fail it)."""
    return db.execute(sql, args)


def _classify(exc: BaseException) -> tuple[str, str] | None:
    """(kind, cause) of a storage fault, or ``None`` when ``exc`` is not one (a bug stays a bug)."""
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
        name = str(getattr(exc, "sqlite_errorname", "") or "")
        for prefix, kind in _SQLITE_KINDS:
            if name.startswith(prefix):
                return kind, str(exc)
        if type(exc) in (sqlite3.OperationalError, sqlite3.DatabaseError):
            return "sqlite", str(exc)
        return None
    if isinstance(exc, OSError) and not isinstance(exc, (FileNotFoundError, NotADirectoryError, IsADirectoryError)):
        return _OS_KINDS.get(exc.errno or 0, "io_error"), exc.strerror or str(exc)
    return None


def write_error(kind: str, path: Path | str, cause: str) -> StorageError:
    """The :class:`StorageError` of a failed write of ``path`` (``kind`` as :func:`storage_fault` names it)."""
    path = Path(path)
    folder = path.parent
    what, hint = {
        "disk_full": ("the disk is full", f"free space on the file system holding {folder} (df -h {folder})"),
        "read_only": ("cannot be written: the file system is read-only or the file is not writable",
                      f"make {folder} writable, or copy the folder to a writable disk and use the copy"),
        "io_error": ("the disk reported an I/O error",
                     f"check the disk holding {folder} (dmesg), copy the folder to a healthy disk and use the copy"),
        "cannot_open": ("cannot be opened", f"check that {folder} exists and is writable"),
        "busy": ("is locked by another program", "wait for the other program to finish, or stop it"),
    }.get(kind, ("SQLite failed", f"check the disk holding {folder}"))
    return StorageError(f"{path}: {what} ({cause})", kind=kind, path=str(path), cause=cause, hint=hint)


def storage_fault(exc: BaseException, path: Path | str, rows_table: str | None = None,
                  damage_hint: str = "") -> StorageError | None:
    """The :class:`StorageError` that ``exc`` (raised while using ``path``) stands for, or ``None``.

    A damaged file is diagnosed on the spot (integrity check, readable rows of ``rows_table``).
    """
    found = _classify(exc)
    if found is None:
        return None
    kind, cause = found
    if kind == "damaged":
        return damaged(path, cause, rows_table, damage_hint)
    return write_error(kind, path, cause)


def damaged(path: Path | str, cause: str, rows_table: str | None, hint: str = "") -> StoreDamaged:
    """The :class:`StoreDamaged` of ``path``: SQLite's cause, its integrity check, the readable rows."""
    path = Path(path)
    problems = tuple(integrity_problems(path))
    readable = sum(1 for _ in readable_rows(path, rows_table)) if rows_table else 0
    checked = f"; integrity check: {problems[0]}" if problems and problems[0] != cause else ""
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    rows = f"; {readable} rows are readable" if rows_table else ""
    if rows_table and not readable:  # nothing to keep: the advice to keep rows would lead nowhere
        hint = (f"nothing in it can be read: move it aside (`mv {path} {path}.damaged`, kept, not deleted) "
                f"and run the same command again into {path.parent}")
    return StoreDamaged(f"{path.name} is damaged ({cause}{checked}{more}){rows}", path=str(path), cause=cause,
                        hint=hint or f"move {path} aside (physeval then starts a new one)", readable=readable,
                        problems=problems)


def _open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that changes no data: read-only when SQLite can, else a plain one (no schema made).

    The read-only one reads a truncated file as far as it goes (``writable_schema`` lets SQLite take
    the file's size instead of refusing a header that promises more pages; nothing can be written).
    A missing file is an error, never created. (SQLite may leave an empty ``-wal`` and ``-shm``
    beside a file in WAL mode: its shared-memory index, not data.)
    """
    if not path.is_file():
        raise sqlite3.OperationalError(f"unable to open database file: {path} is not a file")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
        db.execute("PRAGMA writable_schema=ON")
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.Error:
        return sqlite3.connect(path, timeout=5.0)


def integrity_problems(path: Path | str, limit: int = 10) -> list[str]:
    """SQLite's ``PRAGMA integrity_check`` of ``path``: its first ``limit`` problems (empty: none found)."""
    try:
        db = _open_for_reading(Path(path))
    except sqlite3.Error as exc:
        return [str(exc)]
    try:
        found = [line.strip() for r in db.execute(f"PRAGMA integrity_check({int(limit)})").fetchall()
                 for line in str(r[0]).splitlines() if line.strip() and not line.startswith("*** in database")]
    except sqlite3.Error as exc:
        return [str(exc)]
    finally:
        db.close()
    return [] if found == ["ok"] else found[:limit]


def readable_rows(path: Path | str, table: str | None, columns: Sequence[str] = ("*",)) -> Iterator[tuple[Any, ...]]:
    """Every row of ``table`` in ``path`` that SQLite can still read, in rowid order, skipping damage.

    A read that fails mid-table resumes past the failing rowid, probing further ahead in doubling
    steps, so rows on intact pages after a damaged one are still found. No data is changed.
    Every step moves forward: a damaged page can answer a lookup with a rowid behind the one asked
    for (a truncated file answered ``rowid >= 17`` with 0), which counts as a failed lookup, so the
    scan always ends and never yields a row twice. A file whose last page was cut short is read
    from a copy of its whole pages (:func:`_whole_pages`), so no row comes back with a zeroed end.
    """
    if not table:
        return
    with _whole_pages(Path(path)) as readable:
        yield from _scan(readable, table, columns)


@contextlib.contextmanager
def _whole_pages(path: Path) -> Iterator[Path]:
    """``path``, or a temporary copy of its whole pages when its last page was cut short.

    SQLite reads a page cut short by a truncation as if its missing bytes were zeros, so a row on
    it comes back the same length with its end zeroed (found in a completion cut at 27,027
    bytes). Reading from a copy that stops at the last whole page loses that row instead of
    returning it wrong. The ``-wal`` file, if any, is copied along; the file itself is not touched.
    """
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
        size = path.stat().st_size
    except OSError:
        yield path
        return
    page = int.from_bytes(header[16:18], "big") if header.startswith(b"SQLite format 3\x00") else 0
    page = 65536 if page == 1 else page
    if page < 512 or page & (page - 1) or size % page == 0:  # no readable page size, or nothing cut short
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="physeval-salvage-") as tmp:
        copy = Path(tmp) / path.name
        try:
            shutil.copyfile(path, copy)
            os.truncate(copy, size - size % page)
            wal = path.with_name(path.name + "-wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        except OSError:  # no room for the copy: read the file as it is
            yield path
            return
        yield copy


def _scan(path: Path, table: str, columns: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """:func:`readable_rows` of a file whose pages are whole."""
    try:
        db = _open_for_reading(path)
    except sqlite3.Error:
        return
    sql = f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid > ? ORDER BY rowid"
    last = -(2 ** 63)
    try:
        while True:
            start = last
            try:
                for row in db.execute(sql, (last,)):
                    if not isinstance(row[0], int) or row[0] <= last:  # a row read from a damaged page
                        raise sqlite3.DatabaseError("rowids out of order")
                    last = row[0]
                    yield tuple(row[1:])
                return
            except sqlite3.Error:
                # nothing read: the first row past `last` is unreadable, step over it
                after = max(_first_rowid(db, table, last) or 0, last + 1) if last == start else last
                found = _next_readable(db, table, after)
                if found is None:
                    return
                last = found - 1
    finally:
        db.close()


def _first_rowid(db: sqlite3.Connection, table: str, after: int) -> int | None:
    """The first rowid past ``after`` (a key lookup, which may work where reading the row fails)."""
    try:
        row = db.execute(f"SELECT rowid FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT 1", (after,)).fetchone()
    except sqlite3.Error:
        return None
    return _past(row, after)


def _past(row: Any, after: int) -> int | None:
    """The rowid a lookup for rowids past ``after`` answered, or None (none, or one a damaged page put behind)."""
    if row is None or not isinstance(row[0], int) or row[0] <= after:
        return None
    return int(row[0])


def _next_readable(db: sqlite3.Connection, table: str, after: int) -> int | None:
    """The first rowid past ``after`` that a lookup can reach, probing 1, 2, 4 ... rowids ahead."""
    step = 1
    while after + step < 2 ** 63:
        try:
            row = db.execute(f"SELECT rowid FROM {table} WHERE rowid >= ? ORDER BY rowid LIMIT 1",
                             (after + step,)).fetchone()
        except sqlite3.Error:
            step *= 2
            continue
        if row is None:
            return None
        found = _past(row, after)
        if found is not None:
            return found
        step *= 2  # a rowid behind the one asked for: that lookup went through damage too
    return None


class SQLiteFile:
    """``path`` opened in WAL mode, autocommit, usable from several threads of one process.

    Subclasses name the table a damage report counts (:attr:`rows_table`) and what to do with a
    damaged file (:meth:`damage_hint`); every statement runs through :meth:`_write` or
    :meth:`_read`, which raise :class:`~physeval.errors.StorageError` on a storage fault.
    """

    rows_table: str | None = None

    def __init__(self, path: str | Path, schema: str, *, timeout: float = 5.0, synchronous: str | None = None) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=timeout)
            _execute(db, "PRAGMA journal_mode=WAL")
            if synchronous:
                _execute(db, f"PRAGMA synchronous={synchronous}")
            db.executescript(_META + schema)
        except (sqlite3.Error, OSError) as exc:
            if db is not None:
                db.close()
            fault = self._fault(exc)
            if fault is None:
                raise
            raise fault from exc
        self._db = db

    def damage_hint(self) -> str:
        """What to do with a damaged file (the subclass knows its command)."""
        return f"move {self.path} aside (physeval then starts a new one)"

    def _fault(self, exc: BaseException) -> StorageError | None:
        return storage_fault(exc, self.path, self.rows_table, self.damage_hint())

    def _write(self, sql: str, args: Sequence[Any] = ()) -> None:
        """Run one writing statement (its own transaction); a storage fault raises StorageError."""
        with self._lock:
            try:
                _execute(self._db, sql, args)
                return
            except (sqlite3.Error, OSError) as exc:
                error: BaseException = exc
        fault = self._fault(error)
        if fault is None:
            raise error
        raise fault from error

    def _write_many(self, statements: Sequence[tuple[str, Sequence[Any]]],
                    otherwise: Mapping[int, Callable[[], tuple[str, Sequence[Any]]]] | None = None) -> None:
        """Run ``statements`` in one transaction (all or none); a storage fault raises StorageError.

        ``otherwise[i]`` builds the statement run in the same transaction when statement ``i``
        changes no row (an ``UPDATE`` whose row is not there).
        """
        with self._lock:
            try:
                _execute(self._db, "BEGIN IMMEDIATE")
                for i, (sql, args) in enumerate(statements):
                    changed = _execute(self._db, sql, args).rowcount
                    if otherwise and changed == 0 and i in otherwise:
                        _execute(self._db, *otherwise[i]())
                _execute(self._db, "COMMIT")
                return
            except BaseException as exc:
                if self._db.in_transaction:
                    try:
                        self._db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                if not isinstance(exc, (sqlite3.Error, OSError)):
                    raise
                error: BaseException = exc
        fault = self._fault(error)
        if fault is None:
            raise error
        raise fault from error

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """All rows of one query; a storage fault (a damaged file) raises StorageError."""
        with self._lock:
            try:
                return _execute(self._db, sql, args).fetchall()
            except (sqlite3.Error, OSError) as exc:
                error: BaseException = exc
        fault = self._fault(error)
        if fault is None:
            raise error
        raise fault from error

    def close(self) -> None:
        """Checkpoint the WAL and close (a checkpoint that the disk refuses leaves the WAL, which is read next time)."""
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value under ``key``."""
        self._write("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        """The JSON value stored under ``key``, or ``default``; one that no longer decodes is damage."""
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        if not rows:
            return default
        try:
            return json.loads(rows[0][0])
        except (TypeError, ValueError) as exc:
            raise self.undecodable(f"meta {key!r}", exc) from exc

    def undecodable(self, what: str, exc: BaseException) -> StoreDamaged:
        """The :class:`StoreDamaged` for a value SQLite returned but that is not what physeval wrote.

        SQLite keeps no checksum of a row's content: a page overwritten inside a row's data (a
        zeroed block, a page copied over another) reads without an error, and is found here.
        """
        return damaged(self.path, f"{what} cannot be decoded: {exc}", self.rows_table, self.damage_hint())
