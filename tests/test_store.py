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
