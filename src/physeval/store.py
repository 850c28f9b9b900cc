"""The run store: one SQLite database (WAL) per run directory, one row per sample.

A row is keyed by (problem id, variant id, sample index) and committed the moment its outcome is
known (a run commits the rows of one turn of its event loop together, :meth:`RunStore.append_many`),
so a run killed at any point keeps every finished row and a resumed run skips exactly those.
Exports (JSONL, Parquet) are sorted by key, so they do not depend on the order in which requests
finished.

Guarantees beyond that:

* **Storage faults are named.** A write refused by a full, read-only or failing disk raises
  :class:`~physeval.errors.StorageError`; a damaged file raises
  :class:`~physeval.errors.StoreDamaged` with the number of rows still readable, and
  :meth:`RunStore.salvage` reads those rows without opening the store.
* **Every session is recorded.** :meth:`RunStore.begin_session` opens a session record that each
  transaction of rows updates (rows written, last write), so a session killed with SIGKILL still
  says when it started, when it last wrote and how much it did; the next session closes it as
  ``killed``. :meth:`RunStore.end_session` closes it with how it ended.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.sample_row import (
    COLUMNS,
    INSERT,
    JSON_COLUMNS,
    UNGRADED,
    UPDATE_VERDICT,
    SampleRow,
    decode_row,
    full_row,
    row_key,
    row_values,
    sorted_rows,
    verdict_values,
)
from physeval.sqlite_file import SQLiteFile, readable_rows

__all__ = ["RunStore", "RunMeta", "SampleRow", "DB_NAME", "UNGRADED", "export_rows", "Repair", "repair"]

DB_NAME = "samples.sqlite"

_SESSION_OPEN = "session_open"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
    problem_id    TEXT NOT NULL,
    variant       TEXT NOT NULL,
    sample        INTEGER NOT NULL,
    status        TEXT NOT NULL,          -- 'answered' or 'error'
    messages      TEXT NOT NULL,          -- JSON chat messages sent
    completion    TEXT,                   -- answer text (reasoning removed)
    reasoning     TEXT,
    finish_reason TEXT,
    usage         TEXT,                   -- JSON token counts
    latency_s     REAL,
    correct       INTEGER,                -- 0/1, NULL when the sample errored
    score         REAL,
    outcome       TEXT,
    grade         TEXT,                   -- JSON of every grade field
    error_kind    TEXT,
    error_message TEXT,
    attempts      INTEGER NOT NULL DEFAULT 0,
    cached        INTEGER NOT NULL DEFAULT 0,
    problem_meta  TEXT,                   -- JSON of the problem's meta, for breakdowns
    created_at    TEXT NOT NULL,
    PRIMARY KEY (problem_id, variant, sample)
);
"""

@dataclass
class RunMeta:
    """What defines a run, written once per session as one record (meta key ``run``).

    Attributes:
        task: The task's registered name.
        task_options: The options that rebuild the task (``get_task(task, **task_options)``).
        model: The model as the user named it (``vllm/Qwen3-8B``), or ``responses`` for ``score``.
        config: The run settings (:class:`physeval.flow.config.RunConfig` as a dict).
        settings: What decides a sample (model identity, sampling, task config); resuming with
            other settings is refused.
        planned: ``{"problems", "samples"}`` planned.
        data_sha256: SHA-256 of each data file the task read.
        invocation: The command line's resolved flags, reused by ``--resume DIR``.
    """

    task: str
    task_options: dict[str, Any] = field(default_factory=dict)
    model: str = "model"
    config: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    planned: dict[str, int] = field(default_factory=dict)
    data_sha256: dict[str, str] = field(default_factory=dict)
    invocation: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return json.loads(json.dumps(dataclasses.asdict(self), default=str))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunMeta:
        """Read back what :meth:`to_dict` wrote (unknown keys are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


class RunStore(SQLiteFile):
    """A run directory's SQLite database. Safe to use from one process, several threads."""

    rows_table = "samples"

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self._session: dict[str, Any] | None = None
        super().__init__(self.run_dir / DB_NAME, _SCHEMA, synchronous="NORMAL")

    @staticmethod
    def exists(run_dir: str | Path) -> bool:
        """Whether ``run_dir`` already holds a run database."""
        return (Path(run_dir) / DB_NAME).is_file()

    @staticmethod
    def resumable(run_dir: str | Path) -> bool:
        """Whether ``physeval run --resume run_dir`` finds a run there: a database with its run record.

        A run stopped between creating ``samples.sqlite`` and recording what it runs leaves a
        database without one; a damaged database counts as resumable (the resume names the damage).
        """
        if not RunStore.exists(run_dir):
            return False
        try:
            with RunStore(run_dir) as store:
                return store.run_meta() is not None
        except Exception:  # noqa: BLE001 - a damaged file: the resume itself says what to do
            return True

    def damage_hint(self) -> str:
        """What to do with a damaged ``samples.sqlite``: keep the readable rows, then resume."""
        return (f"`physeval repair {self.run_dir}` keeps them in a new {DB_NAME} (the damaged file is moved aside), "
                f"then `physeval run --resume {self.run_dir}` asks again for the rest; or `physeval export "
                f"{self.run_dir} --salvage` writes them to {self.run_dir / 'samples.salvaged.jsonl'}")

    # -- metadata (set_meta/get_meta come from SQLiteFile) ------------------------------
    def run_meta(self) -> RunMeta | None:
        """The run's :class:`RunMeta`, or ``None`` for a store no run has written yet."""
        data = self.get_meta("run")
        return RunMeta.from_dict(data) if isinstance(data, dict) else None

    def set_run_meta(self, meta: RunMeta) -> None:
        """Write the run's :class:`RunMeta` (one record, replacing the previous one)."""
        self.set_meta("run", meta.to_dict())

    # -- sessions -------------------------------------------------------------------------
    def begin_session(self, **fields: Any) -> None:
        """Open this session's record (pid, host, start); a session left open is closed as ``killed``.

        Call it holding the run folder's lock (:mod:`physeval.run_lock`): then a session still open
        belongs to a process that is gone. Until :meth:`end_session`, each row written updates the
        record in the rows' own transaction.
        """
        now = time.time()
        closed = self._closed_leftover()
        self._session = {"started_at": _iso(now), "started": now, "pid": os.getpid(), "host": socket.gethostname(),
                         "last_write_at": _iso(now), "last_write": now, "new_samples": 0, "errors": 0,
                         "regraded": 0, **fields}
        statements = [] if closed is None else [self._sessions_statement(closed)]
        statements.append(self._meta_statement(_SESSION_OPEN, self._session))
        self._write_many(statements)

    def end_session(self, ended: str, **fields: Any) -> dict[str, Any] | None:
        """Close this session's record: how it ``ended`` (``finished``, ``interrupted``, an abort's kind...)."""
        if self._session is None:
            return None
        now = time.time()
        entry = _closed(self._session, ended=ended, ended_at=now, **fields)
        self._write_many([self._sessions_statement(entry), ("DELETE FROM meta WHERE key = ?", (_SESSION_OPEN,))])
        self._session = None
        return entry

    def sessions(self) -> list[dict[str, Any]]:
        """Every session, oldest first; one still open is shown as ``ended: "running or killed"``."""
        ended = list(self.get_meta("sessions", []) or [])
        open_one = self.get_meta(_SESSION_OPEN)
        if isinstance(open_one, dict) and self._session is None:
            ended.append(_closed(open_one, ended="running or killed", ended_at=open_one.get("last_write")))
        return ended

    def _closed_leftover(self) -> dict[str, Any] | None:
        left = self.get_meta(_SESSION_OPEN)
        if not isinstance(left, dict):
            return None
        return _closed(left, ended="killed", ended_at=left.get("last_write"),
                       note="no end was recorded: the process was killed, or its last writes failed")

    def _sessions_statement(self, entry: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        sessions = list(self.get_meta("sessions", []) or [])
        sessions.append(entry)
        return self._meta_statement("sessions", sessions)

    @staticmethod
    def _meta_statement(key: str, value: Any) -> tuple[str, tuple[Any, ...]]:
        return "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, json.dumps(value))

    # -- samples --------------------------------------------------------------------------
    def append(self, row: SampleRow) -> None:
        """Write one sample atomically (replacing an earlier row with the same key).

        In an open session the session's record is updated in the same transaction.
        """
        self.append_many((row,))

    def append_many(self, rows: Sequence[SampleRow], *, verdicts: Sequence[SampleRow] = ()) -> None:
        """Write ``rows`` and ``verdicts`` in one transaction, all or none.

        Each of ``rows`` replaces an earlier row with its key. ``verdicts`` are graded rows whose
        answer the store already holds (stored before grading, :meth:`SampleRow.as_ungraded`):
        only their grading columns are written (a verdict whose row is not there is written
        whole). One commit for many rows, and no second copy of an answer's messages, is what
        makes storing every sample twice cheap (a run writes a batch per turn of its event loop).
        In an open session the session's record is updated once, in the same transaction.
        """
        if not rows and not verdicts:
            return
        created = datetime.now(UTC).isoformat(timespec="seconds")
        statements: list[tuple[str, Sequence[Any]]] = []
        otherwise: dict[int, Callable[[], tuple[str, Sequence[Any]]]] = {}
        for row in (*rows, *verdicts):
            if not row.created_at:
                row.created_at = created
        for row in rows:
            statements.append((INSERT, row_values(row)))
        for row in verdicts:
            otherwise[len(statements)] = functools.partial(full_row, row)
            statements.append((UPDATE_VERDICT, verdict_values(row)))
        session = self._session
        if session is not None:
            now = time.time()
            final = [row for row in (*rows, *verdicts) if not row.ungraded]
            session = {**session, "last_write_at": _iso(now), "last_write": now,
                       "new_samples": session["new_samples"] + len(final),
                       "errors": session["errors"] + sum(row.status == "error" for row in final)}
            statements.append(self._meta_statement(_SESSION_OPEN, session))
        self._write_many(statements, otherwise)
        if session is not None:
            self._session = session

    def keys(self, *, status: str | None = None) -> set[tuple[str, str, int]]:
        """Keys of stored rows, optionally only those with ``status``."""
        sql = "SELECT problem_id, variant, sample FROM samples"
        args: tuple[Any, ...] = ()
        if status:
            sql += " WHERE status = ?"
            args = (status,)
        keys = set()
        for values in self._read(sql, args):
            try:
                keys.add(row_key(values))
            except ValueError as exc:
                raise self.undecodable("a row's key", exc) from exc
        return keys

    def rows(self) -> list[SampleRow]:
        """Every row, sorted by key (numeric ids in numeric order)."""
        return sorted_rows(self.iter_rows())

    def iter_rows(self) -> Iterator[SampleRow]:
        """Every row in storage order."""
        for values in self._read(f"SELECT {', '.join(COLUMNS)} FROM samples"):
            try:
                row = decode_row(values)
            except (TypeError, ValueError) as exc:
                raise self.undecodable("a row", exc) from exc
            yield row

    def count(self) -> int:
        """Number of stored rows."""
        return int(self._read("SELECT COUNT(*) FROM samples")[0][0])

    @staticmethod
    def salvage(run_dir: str | Path) -> tuple[list[SampleRow], int]:
        """The rows of a (possibly damaged) ``samples.sqlite`` that can be read, sorted by key, and the
        number of rows SQLite returned but that could not be decoded. Nothing is written."""
        rows, undecodable = [], 0
        for values in readable_rows(Path(run_dir) / DB_NAME, "samples", COLUMNS):
            try:
                rows.append(decode_row(values))
            except (TypeError, ValueError):
                undecodable += 1
        return sorted_rows(rows), undecodable

    # -- exports --------------------------------------------------------------------------
    def export(self, path: str | Path, fmt: str = "jsonl") -> Path:
        """Write every row, sorted by key, as JSONL or Parquet (one column per field)."""
        return export_rows(self.rows(), path, fmt)


@dataclass(frozen=True)
class Repair:
    """What :func:`repair` kept: rows, rows SQLite returned that could not be decoded, meta keys, and
    where the damaged file went."""

    rows: int
    undecodable: int
    meta_keys: tuple[str, ...]
    damaged: Path


def repair(run_dir: str | Path) -> Repair:
    """Rebuild ``run_dir``'s ``samples.sqlite`` from what the damaged one still holds.

    The readable rows and meta records (the run record, plan, sessions) go into a new file; the
    damaged one (with its WAL) is renamed ``samples.sqlite.damaged-<time>``, never deleted. Hold the
    folder's lock (:func:`physeval.run_lock.hold_run_folder`) around it: it is a writer.
    """
    run_dir = Path(run_dir)
    db = run_dir / DB_NAME
    rows, undecodable = RunStore.salvage(run_dir)
    meta = {k: v for k, v in readable_rows(db, "meta", ("key", "value")) if _meta_record(k, v)}
    aside = db.with_name(f"{DB_NAME}.damaged-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}")
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            Path(f"{db}{suffix}").rename(f"{aside}{suffix}")
    with RunStore(run_dir) as store:
        store._write_many([("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (k, v)) for k, v in meta.items()])
        for row in rows:
            store.append(row)
    return Repair(rows=len(rows), undecodable=undecodable, meta_keys=tuple(sorted(meta)), damaged=aside)


def export_rows(rows: Iterable[SampleRow], path: str | Path, fmt: str = "jsonl") -> Path:
    """Write ``rows`` as JSONL or Parquet (one column per field), as :meth:`RunStore.export` does."""
    path = Path(path)
    records = [_flat(row) for row in rows]
    if fmt == "jsonl":
        with path.open("w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    elif fmt == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise RuntimeError("Parquet export needs pyarrow: pip install 'physeval[parquet]'") from exc
        table = pa.Table.from_pylist([_parquet_safe(r) for r in records])
        pq.write_table(table, path)
    else:
        raise ValueError(f"unknown export format {fmt!r}: use jsonl or parquet")
    return path


def _meta_record(key: Any, value: Any) -> bool:
    """Whether (key, value) read from a damaged file's meta table is one physeval wrote (text, JSON)."""
    if not (isinstance(key, str) and isinstance(value, str)):
        return False
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")  # as provenance.utc_iso


def _closed(record: dict[str, Any], *, ended: str, ended_at: Any, **fields: Any) -> dict[str, Any]:
    """A session record as ``sessions`` keeps it: start, end, how it ended, wall seconds, counts."""
    started = float(record.get("started") or 0.0)
    end = float(ended_at) if isinstance(ended_at, (int, float)) else started
    entry = {k: v for k, v in record.items() if k not in ("started", "last_write", "last_write_at")}
    entry.update(ended=ended, ended_at=_iso(end), wall_s=round(max(0.0, end - started), 3),
                 aborted=entry.get("aborted"), interrupted=ended in ("interrupted", "terminated"))
    entry.update(fields)
    return entry


def _flat(row: SampleRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in COLUMNS}


def _parquet_safe(record: dict[str, Any]) -> dict[str, Any]:
    # Nested JSON with varying shapes becomes a JSON string column, which pandas reads as text.
    return {k: (json.dumps(v, ensure_ascii=False) if k in JSON_COLUMNS else v) for k, v in record.items()}
