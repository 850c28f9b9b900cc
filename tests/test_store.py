"""The run store: one row per key, WAL, sorted exports that pandas can read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.store import RunStore, SampleRow


def _row(pid: str, sample: int = 0, **kw) -> SampleRow:  # type: ignore[no-untyped-def]
    return SampleRow(problem_id=pid, variant="0", sample=sample, status="answered",
                     messages=[{"role": "user", "content": f"q{pid}"}], **kw)


def test_rows_are_unique_per_key_and_sorted_naturally(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        for pid in ("10", "2", "1"):
            store.append(_row(pid, correct=True, grade={"outcome": "correct", "predicted": 1.5}))
        store.append(_row("2", correct=False))  # the same key again replaces, never duplicates
        assert [r.problem_id for r in store.rows()] == ["1", "2", "10"]
        assert store.count() == 3 and store.rows()[1].correct is False
        assert store.rows()[0].grade == {"outcome": "correct", "predicted": 1.5}


def test_database_uses_write_ahead_logging(tmp_path: Path) -> None:
    import sqlite3

    RunStore(tmp_path).close()
    assert sqlite3.connect(tmp_path / "samples.sqlite").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_exports_load_in_pandas(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    with RunStore(tmp_path) as store:
        store.append(_row("1", correct=True, score=0.5, usage={"prompt_tokens": 3}))
        store.append(SampleRow(problem_id="2", variant="0", sample=0, status="error", messages=[],
                               error_kind="timeout", error_message="request timed out", attempts=5))
        jsonl = store.export(tmp_path / "s.jsonl", "jsonl")
        parquet = store.export(tmp_path / "s.parquet", "parquet")
    lines = [json.loads(x) for x in jsonl.read_text().splitlines()]
    assert lines[0]["usage"] == {"prompt_tokens": 3} and lines[1]["error_kind"] == "timeout"
    frame = pd.read_parquet(parquet)
    assert list(frame["problem_id"]) == ["1", "2"] and frame["attempts"].tolist() == [0, 5]
    assert pd.read_json(jsonl, lines=True)["status"].tolist() == ["answered", "error"]


def test_meta_round_trips(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.set_meta("config", {"samples": 4})
        assert store.get_meta("config") == {"samples": 4} and store.get_meta("missing", 7) == 7


def test_a_verdict_writes_the_grading_of_a_stored_answer_and_reads_back_as_the_whole_row(tmp_path: Path) -> None:
    graded = _row("1", completion="so \\boxed{2}", usage={"completion_tokens": 4}, correct=True, score=1.0,
                  outcome="correct", grade={"correct": True, "reason": "within 0.01"})
    with RunStore(tmp_path) as store:
        store.begin_session()
        store.append(graded.as_ungraded())
        store.append_many([], verdicts=[graded])
        [back] = store.rows()
        closed = store.end_session("finished")
    assert back.status == "answered" and back.correct is True and back.grade == graded.grade
    assert back.completion == "so \\boxed{2}" and back.messages == graded.messages and back.usage == graded.usage
    assert closed is not None and closed["new_samples"] == 1  # the answer stored before grading is not a sample


def test_a_verdict_whose_answer_is_not_stored_is_written_whole(tmp_path: Path) -> None:
    graded = _row("1", completion="so \\boxed{2}", correct=False, outcome="wrong", grade={"correct": False})
    with RunStore(tmp_path) as store:
        store.append_many([_row("2")], verdicts=[graded])
        rows = store.rows()
    assert [r.problem_id for r in rows] == ["1", "2"]
    assert rows[0].completion == "so \\boxed{2}" and rows[0].correct is False and rows[0].created_at
