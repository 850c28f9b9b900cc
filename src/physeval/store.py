"""The run store: one SQLite database (WAL) per run directory, one row per sample.

A row is keyed by (problem id, variant id, sample index) and written in its own
transaction the moment its outcome is known, so a run killed at any point keeps every
finished row and a resumed run skips exactly those. Exports (JSONL, Parquet) are sorted by
key, so they do not depend on the order in which requests finished.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.sqlite_file import SQLiteFile

__all__ = ["RunStore", "RunMeta", "SampleRow", "DB_NAME"]

DB_NAME = "samples.sqlite"

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

_COLUMNS = ("problem_id", "variant", "sample", "status", "messages", "completion", "reasoning",
            "finish_reason", "usage", "latency_s", "correct", "score", "outcome", "grade", "error_kind",
            "error_message", "attempts", "cached", "problem_meta", "created_at")
_JSON_COLUMNS = {"messages", "usage", "grade", "problem_meta"}


@dataclass
class SampleRow:
    """One sample's full record. ``status`` is ``answered`` or ``error``."""

    problem_id: str
    variant: str
    sample: int
    status: str
    messages: list[dict[str, Any]]
    completion: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency_s: float | None = None
    correct: bool | None = None
    score: float | None = None
    outcome: str | None = None
    grade: dict[str, Any] = field(default_factory=dict)
    error_kind: str | None = None
    error_message: str | None = None
    attempts: int = 0
    cached: bool = False
    problem_meta: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""

    @property
    def key(self) -> tuple[str, str, int]:
        """(problem id, variant id, sample index)."""
        return (self.problem_id, self.variant, self.sample)

    def cleared(self) -> SampleRow:
        """A copy with the generation kept and the verdict (and any grading error) cleared."""
        return SampleRow(problem_id=self.problem_id, variant=self.variant, sample=self.sample, status="answered",
                         messages=self.messages, completion=self.completion, reasoning=self.reasoning,
                         finish_reason=self.finish_reason, usage=dict(self.usage), latency_s=self.latency_s,
                         attempts=self.attempts, cached=self.cached, problem_meta=dict(self.problem_meta))


@dataclass
class RunMeta:
    """What defines a run, written once per session as one record (meta key ``run``).

    Attributes:
        task: The task's registered name.
        task_options: The options that rebuild the task (``get_task(task, **task_options)``).
        model: The model as the user named it (``vllm/Qwen3-8B``), or ``responses`` for ``score``.
        config: The run settings (:class:`physeval.runner.RunConfig` as a dict).
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

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        super().__init__(self.run_dir / DB_NAME, _SCHEMA, synchronous="NORMAL")

    @staticmethod
    def exists(run_dir: str | Path) -> bool:
        """Whether ``run_dir`` already holds a run database."""
        return (Path(run_dir) / DB_NAME).is_file()

    # -- metadata (set_meta/get_meta come from SQLiteFile) ------------------------------
    def run_meta(self) -> RunMeta | None:
        """The run's :class:`RunMeta`, or ``None`` for a store no run has written yet."""
        data = self.get_meta("run")
        return RunMeta.from_dict(data) if isinstance(data, dict) else None

    def set_run_meta(self, meta: RunMeta) -> None:
        """Write the run's :class:`RunMeta` (one record, replacing the previous one)."""
        self.set_meta("run", meta.to_dict())

    # -- samples --------------------------------------------------------------------------
    def append(self, row: SampleRow) -> None:
        """Write one sample atomically (replacing an earlier row with the same key)."""
        if not row.created_at:
            row.created_at = datetime.now(UTC).isoformat(timespec="seconds")
        values = []
        for name in _COLUMNS:
            value = getattr(row, name)
            if name in _JSON_COLUMNS:
                value = json.dumps(value, ensure_ascii=False)
            elif name in ("correct", "cached") and value is not None:
                value = int(value)
            values.append(value)
        sql = f"INSERT OR REPLACE INTO samples({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
        with self._lock:
            self._db.execute(sql, values)

    def keys(self, *, status: str | None = None) -> set[tuple[str, str, int]]:
        """Keys of stored rows, optionally only those with ``status``."""
        sql = "SELECT problem_id, variant, sample FROM samples"
        args: tuple[Any, ...] = ()
        if status:
            sql += " WHERE status = ?"
            args = (status,)
        with self._lock:
            return {(p, v, int(s)) for p, v, s in self._db.execute(sql, args)}

    def rows(self) -> list[SampleRow]:
        """Every row, sorted by key (numeric ids in numeric order)."""
        return sorted(self.iter_rows(), key=lambda r: (_natural(r.problem_id), _natural(r.variant), r.sample))

    def iter_rows(self) -> Iterator[SampleRow]:
        """Every row in storage order."""
        with self._lock:
            fetched = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM samples").fetchall()
        for values in fetched:
            data = dict(zip(_COLUMNS, values))
            for name in _JSON_COLUMNS:
                data[name] = json.loads(data[name]) if data[name] is not None else ({} if name != "messages" else [])
            if data["correct"] is not None:
                data["correct"] = bool(data["correct"])
            data["cached"] = bool(data["cached"])
            yield SampleRow(**data)

    def count(self) -> int:
        """Number of stored rows."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM samples").fetchone()[0])

    # -- exports --------------------------------------------------------------------------
    def export(self, path: str | Path, fmt: str = "jsonl") -> Path:
        """Write every row, sorted by key, as JSONL or Parquet (one column per field)."""
        path = Path(path)
        records = [_flat(row) for row in self.rows()]
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


def _flat(row: SampleRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in _COLUMNS}


def _parquet_safe(record: dict[str, Any]) -> dict[str, Any]:
    # Nested JSON with varying shapes becomes a JSON string column, which pandas reads as text.
    return {k: (json.dumps(v, ensure_ascii=False) if k in _JSON_COLUMNS else v) for k, v in record.items()}


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.lstrip("-").isdigit() else (1, text)
