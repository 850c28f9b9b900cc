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

_Queued = tuple[SampleRow, bool, "asyncio.Future[bool]"]
"""A queued row, whether it is a verdict of a stored answer, and its writer's future."""


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
        self._batch: list[_Queued] = []
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
        try:
            stored = self._write(batch)
        except Exception:  # a row the store cannot hold (a bug): one transaction per row, so only
            self._write_each(batch)  # that row's writer raises, as with a commit per row
            return
        self._settle(batch, stored)

    def _write(self, batch: list[_Queued]) -> bool:
        """Commit ``batch`` in one transaction: True, or False after a storage fault (now or before)."""
        if self.fault is not None:
            return False
        try:
            self._store.append_many([row for row, verdict, _ in batch if not verdict],
                                    verdicts=[row for row, verdict, _ in batch if verdict])
        except StorageError as exc:
            self.fault = exc
            return False
        return True

    def _write_each(self, batch: list[_Queued]) -> None:
        unheard: Exception | None = None  # an error no writer waits for (the run's last flush)
        for one in batch:
            committed = one[2]
            try:
                self._settle([one], self._write([one]))
            except Exception as exc:  # noqa: BLE001 - the row's writer hears it
                if committed.done():
                    unheard = unheard or exc
                else:
                    committed.set_exception(exc)
        if unheard is not None:
            raise unheard

    def _settle(self, batch: list[_Queued], stored: bool) -> None:
        """Tell each writer whether its row is stored, and count the stored rows; a count that raises
        (a closed pipe under the progress line) reaches the writers still waiting, so no writer waits
        for good on rows already committed (and with none waiting, the caller gets it)."""
        counted: Exception | None = None
        if stored and self._on_commit is not None:
            for row, _, _ in batch:
                try:
                    self._on_commit(row)
                except Exception as exc:  # noqa: BLE001 - handed to the writers below
                    counted = counted or exc
        waiting = [committed for _, _, committed in batch if not committed.done()]
        for committed in waiting:
            if counted is None:
                committed.set_result(stored)
            else:
                committed.set_exception(counted)
        if counted is not None and not waiting:
            raise counted
