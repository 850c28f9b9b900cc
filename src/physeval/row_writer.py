"""A run's rows to its store, one transaction per turn of the event loop.

Why: a run stores every sample twice (its answer the moment it arrives, then its verdict), and a
SQLite commit per row was most of the harness's own CPU per sample. The rows that become ready
in one turn of the event loop (answers from many connections, finished gradings) are committed
together at the start of the next turn, before the loop waits on anything. Every writer learns
whether its row is committed before it goes on, so a worker never sends its next request before
its last answer is on disk: a run killed between the two loses only answers whose workers had not
moved on yet, which its resume asks for again, as it does the requests in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from physeval.errors import StorageError
from physeval.store import RunStore, SampleRow

__all__ = ["RowWriter"]


class RowWriter:
    """Batches :meth:`write` calls of one event loop into :meth:`RunStore.append_many` transactions.

    After a storage fault every row is refused (``False``) and :attr:`fault` holds the error: the
    rows of the failed transaction are not stored, the ones committed before it are.
    ``on_commit`` sees every committed row, in the order written, also one whose writer was
    cancelled while it waited (the run's counts are the store's).
    """

    def __init__(self, store: RunStore, on_commit: Callable[[SampleRow], None] | None = None) -> None:
        self._store = store
        self._on_commit = on_commit
        self._batch: list[tuple[SampleRow, bool, asyncio.Future[bool]]] = []
        self.fault: StorageError | None = None

    def write(self, row: SampleRow, *, verdict: bool = False) -> asyncio.Future[bool]:
        """Queue ``row`` for this turn's transaction; the future says whether it was committed.

        ``verdict``: the row's answer is already stored (its ungraded row): only the grading
        columns are written (:meth:`RunStore.append_many`).
        """
        loop = asyncio.get_running_loop()
        committed: asyncio.Future[bool] = loop.create_future()
        if self.fault is not None:
            committed.set_result(False)
            return committed
        if not self._batch:
            loop.call_soon(self.flush)
        self._batch.append((row, verdict, committed))
        return committed

    def flush(self) -> None:
        """Commit the queued rows now (also called when the run ends: a cancelled writer's row is kept)."""
        batch, self._batch = self._batch, []
        if not batch:
            return
        stored = self.fault is None
        if stored:
            try:
                self._store.append_many([row for row, verdict, _ in batch if not verdict],
                                        verdicts=[row for row, verdict, _ in batch if verdict])
            except StorageError as exc:
                self.fault, stored = exc, False
            except Exception as exc:  # a bug (a value JSON cannot hold): each writer raises it
                waiting = [committed for _, _, committed in batch if not committed.done()]
                for committed in waiting:
                    committed.set_exception(exc)
                if not waiting:
                    raise
                return
        if stored and self._on_commit is not None:
            for row, _, _ in batch:
                self._on_commit(row)
        for _, _, committed in batch:
            if not committed.done():  # a writer cancelled while waiting
                committed.set_result(stored)
