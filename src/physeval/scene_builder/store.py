"""The build store: one SQLite database (WAL) per build directory, the record of every stage.

Tables:

* ``items (stage, key)``: one row per record a stage finished, ``ok`` or ``rejected`` (with a
  short ``kind`` and the ``reason``), and the record's data as JSON. Written in its own
  transaction the moment the record is done, so a killed build keeps every finished record and
  a resumed one skips exactly those.
* ``calls (stage, key, round, attempt)``: every model reply a stage received (also the ones that
  could not be parsed), with the messages sent; what a rejected record's reply was stays here.
* ``decisions``: the human reviewers' decisions, in the order they were imported (the last one
  for a scenario counts), with who decided and when.
* ``meta``: the build's settings, checked on resume.

Model replies themselves are also in the shared response cache (:mod:`physeval.cache`); the
store is what makes a stage's *result* survive, the cache what makes a repeated request free.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.sqlite_file import SQLiteFile

__all__ = ["BUILD_DB", "BuildStore", "Decision", "Item"]

BUILD_DB = "build.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    stage   TEXT NOT NULL,
    key     TEXT NOT NULL,
    status  TEXT NOT NULL,      -- 'ok' or 'rejected'
    kind    TEXT,               -- a rejection's short kind (near_duplicate, implausible, malformed_reply, ...)
    reason  TEXT,
    data    TEXT NOT NULL,      -- JSON of the record
    created_at TEXT NOT NULL,
    PRIMARY KEY (stage, key)
);
CREATE TABLE IF NOT EXISTS calls (
    stage    TEXT NOT NULL,
    key      TEXT NOT NULL,
    round    INTEGER NOT NULL,
    attempt  INTEGER NOT NULL,
    model    TEXT NOT NULL,
    messages TEXT NOT NULL,
    reply    TEXT,
    reasoning TEXT,
    ok       INTEGER NOT NULL,
    error    TEXT,
    cached   INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (stage, key, round, attempt)
);
CREATE TABLE IF NOT EXISTS decisions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL,
    decision   TEXT NOT NULL,   -- accept, fix or drop
    scenario   TEXT,            -- the fixed scenario text (fix)
    questions  TEXT,            -- JSON list of the fixed questions (fix)
    note       TEXT,
    decided_by TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    source     TEXT
);
"""


@dataclass(frozen=True)
class Item:
    """One finished record of one stage."""

    stage: str
    key: str
    status: str
    data: dict[str, Any]
    kind: str | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the record passed the stage."""
        return self.status == "ok"


@dataclass(frozen=True)
class Decision:
    """A human reviewer's decision on one scenario."""

    id: str
    decision: str
    decided_by: str
    decided_at: str
    scenario: str | None = None
    questions: list[str] | None = None
    note: str = ""
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class BuildStore(SQLiteFile):
    """A build directory's database; safe from one process with several threads."""

    def __init__(self, build_dir: str | Path) -> None:
        self.build_dir = Path(build_dir)
        super().__init__(self.build_dir / BUILD_DB, _SCHEMA, timeout=30)

    @staticmethod
    def exists(build_dir: str | Path) -> bool:
        """Whether ``build_dir`` holds a build database."""
        return (Path(build_dir) / BUILD_DB).is_file()

    # -- items ------------------------------------------------------------------------------
    def put(self, item: Item) -> None:
        """Write one finished record atomically (replacing an earlier one with the same key)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO items(stage, key, status, kind, reason, data, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (item.stage, item.key, item.status, item.kind, item.reason,
                 json.dumps(item.data, ensure_ascii=False, sort_keys=True), _now()))

    def items(self, stage: str, *, status: str | None = None) -> list[Item]:
        """The stage's records, sorted by key."""
        sql = "SELECT stage, key, status, data, kind, reason FROM items WHERE stage = ?"
        args: tuple[Any, ...] = (stage,)
        if status is not None:
            sql += " AND status = ?"
            args += (status,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY key", args).fetchall()
        return [Item(s, k, st, json.loads(d), kind, reason) for s, k, st, d, kind, reason in rows]

    def done_keys(self, stage: str) -> set[str]:
        """Keys of the stage's finished records."""
        with self._lock:
            return {k for (k,) in self._db.execute("SELECT key FROM items WHERE stage = ?", (stage,))}

    def replace_stage(self, stage: str, items: list[Item]) -> None:
        """Replace all of a stage's records in one transaction (pure stages are recomputed whole)."""
        now = _now()
        rows = [(i.stage, i.key, i.status, i.kind, i.reason, json.dumps(i.data, ensure_ascii=False, sort_keys=True),
                 now) for i in items]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM items WHERE stage = ?", (stage,))
                self._db.executemany("INSERT INTO items(stage, key, status, kind, reason, data, created_at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- calls ------------------------------------------------------------------------------
    def record_call(self, *, stage: str, key: str, round: int, attempt: int, model: str,
                    messages: list[dict[str, Any]], reply: str | None, reasoning: str | None, ok: bool,
                    error: str | None, cached: bool) -> None:
        """Keep one model reply (usable or not) with the messages that asked for it."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls(stage, key, round, attempt, model, messages, reply, reasoning, ok, "
                "error, cached, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (stage, key, round, attempt, model, json.dumps(messages, ensure_ascii=False), reply, reasoning,
                 int(ok), error, int(cached), _now()))

    def calls(self, stage: str | None = None, key: str | None = None) -> list[dict[str, Any]]:
        """Recorded replies, sorted by stage, key, round and attempt."""
        sql = ("SELECT stage, key, round, attempt, model, messages, reply, reasoning, ok, error, cached "
               "FROM calls WHERE 1=1")
        args: list[Any] = []
        for column, value in (("stage", stage), ("key", key)):
            if value is not None:
                sql += f" AND {column} = ?"
                args.append(value)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY stage, key, round, attempt", args).fetchall()
        names = ("stage", "key", "round", "attempt", "model", "messages", "reply", "reasoning", "ok", "error", "cached")
        out = []
        for row in rows:
            record = dict(zip(names, row))
            record["messages"] = json.loads(record["messages"])
            record["ok"], record["cached"] = bool(record["ok"]), bool(record["cached"])
            out.append(record)
        return out

    def call_counts(self) -> dict[str, int]:
        """Recorded replies per stage (usable or not)."""
        with self._lock:
            rows = self._db.execute("SELECT stage, COUNT(*) FROM calls GROUP BY stage").fetchall()
        return {stage: int(n) for stage, n in rows}

    # -- decisions --------------------------------------------------------------------------
    def add_decision(self, decision: Decision) -> None:
        """Append a reviewer's decision (a later one for the same scenario supersedes it)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO decisions(id, decision, scenario, questions, note, decided_by, decided_at, source) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (decision.id, decision.decision, decision.scenario,
                 json.dumps(decision.questions, ensure_ascii=False) if decision.questions is not None else None,
                 decision.note, decision.decided_by, decision.decided_at, decision.source))

    def decisions(self) -> dict[str, Decision]:
        """The decision in force for each scenario id (the last imported)."""
        with self._lock:
            rows = self._db.execute("SELECT id, decision, scenario, questions, note, decided_by, decided_at, source "
                                    "FROM decisions ORDER BY seq").fetchall()
        out: dict[str, Decision] = {}
        for rid, decision, scenario, questions, note, by, at, source in rows:
            out[rid] = Decision(rid, decision, by, at, scenario, json.loads(questions) if questions else None,
                                note or "", source or "")
        return out
