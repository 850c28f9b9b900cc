"""A run's rows reach its store a transaction per turn of the event loop, and every writer learns
whether its row is on disk before it goes on (real SQLite; storage faults injected at the store's
one statement call, as tests/test_storage_faults.py does)."""

from __future__ import annotations

import asyncio
import errno
from pathlib import Path
from typing import Any

import pytest

import physeval.sqlite_file as sqlite_file
from physeval.row_writer import RowWriter
from physeval.store import UNGRADED, RunStore, SampleRow


def _row(i: int, **kw: Any) -> SampleRow:
    return SampleRow(problem_id=str(i), variant="0", sample=0, status="answered",
                     messages=[{"role": "user", "content": f"q{i}"}], completion=f"answer {i}", **kw)


def _count_statements(monkeypatch: pytest.MonkeyPatch, fail_after_inserts: int | None = None) -> list[str]:
    seen: list[str] = []
    real = sqlite_file._execute

    def spy(db: Any, sql: str, args: Any = ()) -> Any:
        seen.append(sql.split()[0])
        if fail_after_inserts is not None and sql.startswith("INSERT OR REPLACE INTO samples"):
            if seen.count("INSERT") > fail_after_inserts:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(db, sql, args)

    monkeypatch.setattr(sqlite_file, "_execute", spy)
    return seen


def test_the_rows_of_one_turn_are_one_transaction_and_each_writer_hears_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    committed: list[str] = []

    async def main(store: RunStore) -> list[bool]:
        writer = RowWriter(store, on_commit=lambda row: committed.append(row.problem_id))
        first = [writer.write(_row(i)) for i in range(10)]  # one turn: nothing awaited in between
        done = await asyncio.gather(*first)
        done += [await writer.write(_row(10))]  # a later turn: its own transaction
        return done

    with RunStore(tmp_path) as store:
        store.begin_session()
        statements = _count_statements(monkeypatch)
        assert asyncio.run(main(store)) == [True] * 11
        assert statements.count("BEGIN") == 2 and statements.count("COMMIT") == 2
        assert committed == [str(i) for i in range(11)]  # in the order written
        assert store.count() == 11
        closed = store.end_session("finished")
        assert closed is not None and closed["new_samples"] == 11  # the record follows each transaction


def test_an_answer_stored_before_its_grading_is_not_counted_as_a_sample(tmp_path: Path) -> None:
    committed: list[SampleRow] = []

    async def main(store: RunStore) -> None:
        writer = RowWriter(store, on_commit=committed.append)
        assert await writer.write(_row(1).as_ungraded())
        assert await writer.write(_row(1, correct=True))

    with RunStore(tmp_path) as store:
        store.begin_session()
        asyncio.run(main(store))
        assert [row.error_kind for row in committed] == [UNGRADED, None]
        closed = store.end_session("finished")
        assert closed is not None and closed["new_samples"] == 1 and store.rows()[0].correct is True


def test_a_storage_fault_refuses_that_turn_and_every_later_row_and_keeps_the_committed_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def main(store: RunStore) -> tuple[list[bool], list[bool], bool, RowWriter]:
        writer = RowWriter(store)
        before = list(await asyncio.gather(*(writer.write(_row(i)) for i in range(3))))
        _count_statements(monkeypatch, fail_after_inserts=1)  # the next turn's second row fails
        failed = list(await asyncio.gather(*(writer.write(_row(i)) for i in range(3, 6))))
        later = await writer.write(_row(6))
        return before, failed, later, writer

    with RunStore(tmp_path) as store:
        before, failed, later, writer = asyncio.run(main(store))
        assert before == [True] * 3 and failed == [False] * 3 and later is False
        assert writer.fault is not None and writer.fault.kind == "disk_full"
        assert sorted(int(row.problem_id) for row in store.rows()) == [0, 1, 2]  # all of a turn or none


def test_a_writer_cancelled_while_waiting_still_has_its_row_stored_by_the_last_flush(tmp_path: Path) -> None:
    committed: list[str] = []

    async def main(store: RunStore) -> RowWriter:
        writer = RowWriter(store, on_commit=lambda row: committed.append(row.problem_id))

        async def one() -> bool:
            return await writer.write(_row(1))

        job = asyncio.ensure_future(one())
        await asyncio.sleep(0)  # the writer queued its row and waits for this turn's commit
        job.cancel()
        writer.flush()  # what the run does when it ends: the row is a finished row
        return writer

    with RunStore(tmp_path) as store:
        asyncio.run(main(store))
        assert committed == ["1"] and store.count() == 1


def test_a_row_json_cannot_hold_raises_in_its_writer_not_silently(tmp_path: Path) -> None:
    async def main(store: RunStore) -> None:
        writer = RowWriter(store)
        await writer.write(_row(1, grade={"bad": object()}))

    with RunStore(tmp_path) as store:
        with pytest.raises(TypeError, match="not JSON serializable"):
            asyncio.run(main(store))
        assert store.count() == 0


def test_a_verdict_of_a_stored_answer_is_an_update_not_a_second_copy(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    async def main(store: RunStore) -> None:
        writer = RowWriter(store)
        assert await writer.write(_row(1).as_ungraded())
        assert await writer.write(_row(1, correct=True, outcome="correct"), verdict=True)

    with RunStore(tmp_path) as store:
        statements = _count_statements(monkeypatch)
        asyncio.run(main(store))
        assert statements.count("INSERT") == 1 and statements.count("UPDATE") == 1
        [row] = store.rows()
        assert row.status == "answered" and row.correct is True and row.completion == "answer 1"


def test_a_count_that_raises_reaches_the_waiting_writers_and_never_strands_them(tmp_path: Path) -> None:
    def broken_pipe(row: SampleRow) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    async def main(store: RunStore) -> list[BaseException | bool]:
        writer = RowWriter(store, on_commit=broken_pipe)
        return list(await asyncio.gather(*(writer.write(_row(i)) for i in range(3)), return_exceptions=True))

    with RunStore(tmp_path) as store:
        heard = asyncio.run(main(store))
        assert all(isinstance(h, BrokenPipeError) for h in heard) and store.count() == 3  # committed, and said so


def test_a_row_the_store_cannot_hold_fails_alone(tmp_path: Path) -> None:
    async def main(store: RunStore) -> list[BaseException | bool]:
        writer = RowWriter(store)
        rows = [_row(1), _row(2, grade={"bad": object()}), _row(3)]
        return list(await asyncio.gather(*(writer.write(row) for row in rows), return_exceptions=True))

    with RunStore(tmp_path) as store:
        first, bad, third = asyncio.run(main(store))
        assert first is True and third is True and isinstance(bad, TypeError)
        assert sorted(row.problem_id for row in store.rows()) == ["1", "3"]
