"""One sample's record and how it maps to the run store's columns (SQLite values and back).

Why apart from :mod:`physeval.store`: the store is the file (sessions, transactions, repair);
this is the row (its fields, which columns are JSON, what grading writes, what a damaged page is
refused as), and both the store and the row writer of a run use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SampleRow", "UNGRADED", "COLUMNS", "JSON_COLUMNS", "INSERT", "UPDATE_VERDICT", "full_row", "row_key",
           "row_values", "verdict_values", "decode_row", "sorted_rows"]

UNGRADED = "ungraded"
"""Error kind of a row whose answer is stored but whose grading has not finished (the run stopped
first): it never reaches a metric, and a resumed run grades it from the stored answer."""

COLUMNS = ("problem_id", "variant", "sample", "status", "messages", "completion", "reasoning",
           "finish_reason", "usage", "latency_s", "correct", "score", "outcome", "grade", "error_kind",
           "error_message", "attempts", "cached", "problem_meta", "created_at")
"""The ``samples`` table's columns, in order (the schema is :mod:`physeval.store`'s)."""
JSON_COLUMNS = {"messages", "usage", "grade", "problem_meta"}
INSERT = f"INSERT OR REPLACE INTO samples({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
VERDICT_COLUMNS = ("status", "correct", "score", "outcome", "grade", "error_kind", "error_message")
"""What grading sets in a row (:func:`physeval.flow.execute.grade_into_row`); the rest is the answer's."""
UPDATE_VERDICT = (f"UPDATE samples SET {', '.join(f'{c} = ?' for c in VERDICT_COLUMNS)} "
                  "WHERE problem_id = ? AND variant = ? AND sample = ?")


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

    @property
    def ungraded(self) -> bool:
        """Whether the row holds an answer that was stored before (and not since) its grading."""
        return self.status == "error" and self.error_kind == UNGRADED

    def as_ungraded(self) -> SampleRow:
        """This answer, to store before it is graded (an error of kind :data:`UNGRADED` until then)."""
        row = self.cleared()
        row.status, row.error_kind = "error", UNGRADED
        row.error_message = ("the answer is stored; its grading had not finished when the run stopped "
                             "(a resumed run grades it)")
        return row

    def cleared(self) -> SampleRow:
        """A copy with the generation kept and the verdict (and any grading error) cleared."""
        return SampleRow(problem_id=self.problem_id, variant=self.variant, sample=self.sample, status="answered",
                         messages=self.messages, completion=self.completion, reasoning=self.reasoning,
                         finish_reason=self.finish_reason, usage=dict(self.usage), latency_s=self.latency_s,
                         attempts=self.attempts, cached=self.cached, problem_meta=dict(self.problem_meta))


_to_json = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)`` without building an encoder per call (four per row)."""


def _stored(row: SampleRow, name: str) -> Any:
    """Column ``name`` of ``row`` as stored: JSON text for the JSON columns, 0/1 for the flags."""
    value = getattr(row, name)
    if name in JSON_COLUMNS:
        return _to_json(value)
    if name in ("correct", "cached") and value is not None:
        return int(value)
    return value


def row_values(row: SampleRow) -> list[Any]:
    """The values of :data:`INSERT` for ``row``."""
    return [_stored(row, name) for name in COLUMNS]


def full_row(row: SampleRow) -> tuple[str, list[Any]]:
    """The statement that writes ``row`` whole."""
    return INSERT, row_values(row)


def verdict_values(row: SampleRow) -> list[Any]:
    """The values of :data:`UPDATE_VERDICT` for ``row``: its grading columns as stored, then its key."""
    return [*(_stored(row, name) for name in VERDICT_COLUMNS), *row.key]


def row_key(values: Iterable[Any]) -> tuple[str, str, int]:
    """(problem id, variant, sample) of a stored row; ValueError when it is not (text, text, integer)."""
    problem_id, variant, sample = values
    if not (isinstance(problem_id, str) and isinstance(variant, str) and isinstance(sample, int)):
        shown = repr((problem_id, variant, sample))
        shown = shown if len(shown) <= 80 else f"{shown[:80]}..."
        raise ValueError(f"key {shown} is not (text, text, integer)")
    return problem_id, variant, sample


_TYPED = {"status": str, "messages": str, "attempts": int, "cached": int, "created_at": str}
"""The columns physeval writes NOT NULL, and their types: a row read with another is damaged."""


def decode_row(values: Iterable[Any]) -> SampleRow:
    """A stored row as a :class:`SampleRow`; ValueError (or TypeError) when it is not a row physeval wrote.

    SQLite returns whatever a damaged page holds where the row was (a key of NULLs, another table's
    rows, a JSON column with a zeroed end); each is refused here, so a salvage or a repair keeps
    only rows physeval could have written.
    """
    data = dict(zip(COLUMNS, values, strict=True))
    row_key((data["problem_id"], data["variant"], data["sample"]))
    for name, kind in _TYPED.items():
        if not isinstance(data[name], kind):
            raise ValueError(f"column {name} holds {type(data[name]).__name__}, not {kind.__name__}")
    for name in JSON_COLUMNS:
        data[name] = json.loads(data[name]) if data[name] is not None else ({} if name != "messages" else [])
    if data["correct"] is not None:
        data["correct"] = bool(data["correct"])
    data["cached"] = bool(data["cached"])
    return SampleRow(**data)


def sorted_rows(rows: Iterable[SampleRow]) -> list[SampleRow]:
    """``rows`` sorted by key, numeric ids in numeric order (exports do not depend on finishing order)."""
    return sorted(rows, key=lambda r: (_natural(r.problem_id), _natural(r.variant), r.sample))


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.lstrip("-").isdigit() else (1, text)
