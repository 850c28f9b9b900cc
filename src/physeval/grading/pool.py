"""One pool of grading worker processes per run, shared by every caller that grades in bulk.

SymPy holds the GIL, so symbolic grading scales with processes, not threads. Starting a
worker costs an interpreter, SymPy and the LaTeX parser (about a second), and a warm
worker keeps its caches (the reference's canonical tree, every answer's simplified form),
so the pool is started once per process, on first use, and kept: the task grader
(``SymbolicTask.agrade``, hence ``physeval run``, ``physeval score`` and ``regrade``),
:func:`physeval.grading.symbolic.grade_symbolic_many` and batched rewards all use it.

API:

* :func:`grade_many` ``(fn, items) -> list``: ``fn(item)`` for every item, results in input
  order, identical to ``[fn(i) for i in items]`` (graders are pure and deterministic).
  ``processes=0`` or ``1`` (or one item) grades in this process.
* :func:`submit` ``(fn, *args) -> Future``: one call, for asynchronous callers
  (``asyncio.wrap_future``).
* :func:`shutdown`: stop the workers (also done at exit).

Work is bounded by operation budgets inside the graders. The pool adds only a *last
resort*: with ``timeout`` set, an item still running after ``timeout`` seconds has its
worker killed and gets ``on_timeout(item)`` (an explicit ``timeout`` outcome that the
summary counts) instead of a result; the other items that were in flight are graded
again in fresh workers, so their results do not change. ``fn`` must be a module-level
function (it is pickled by name). Workers use the ``spawn`` start method (no state is
inherited from a threaded parent). The size comes from ``PHYSEVAL_GRADING_PROCESSES``
(default: the CPU count).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

__all__ = ["grade_many", "shutdown", "submit", "worker_count"]

T = TypeVar("T")
R = TypeVar("R")

_POLL_SECONDS = 0.05


def worker_count() -> int:
    """How many workers the shared pool has (``PHYSEVAL_GRADING_PROCESSES`` or the CPU count)."""
    configured = os.environ.get("PHYSEVAL_GRADING_PROCESSES")
    try:
        return max(1, int(configured)) if configured else max(1, os.cpu_count() or 1)
    except ValueError:
        return max(1, os.cpu_count() or 1)


def _warm() -> None:
    """Worker initializer: import SymPy and the parser before the first item arrives."""
    try:
        from physeval.answers.latex import latex_to_sympy

        latex_to_sympy("x+1")
    except Exception:  # warming is an optimisation; a failure shows up on the first item
        pass


def _ping(seconds: float) -> int:
    """Hold a worker briefly (so each of several pings lands on its own worker); its pid."""
    time.sleep(seconds)
    return os.getpid()


class _Pool:
    """A process pool that can kill its workers and start again (the timeout guard)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.lock = threading.Lock()
        self.generation = 0
        self.executor = self._start()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return concurrent.futures.ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=_warm)

    def submit(self, fn: Callable[..., R], *args: Any) -> tuple[int, concurrent.futures.Future[R]]:
        with self.lock:
            try:
                return self.generation, self.executor.submit(fn, *args)
            except (BrokenProcessPool, RuntimeError):  # a worker died: start a fresh pool
                self._restart_locked()
                return self.generation, self.executor.submit(fn, *args)

    def ready(self) -> None:
        """Wait until every worker has started and warmed (the guard's clock must not count start-up)."""
        with self.lock:
            executor = self.executor
        pings = [executor.submit(_ping, 0.2) for _ in range(self.workers)]
        concurrent.futures.wait(pings)

    def kill(self, generation: int) -> None:
        """Kill every worker of ``generation`` (if still current) and start a new pool."""
        with self.lock:
            if generation == self.generation:
                self._restart_locked()

    def _restart_locked(self) -> None:
        old = self.executor
        processes = list(getattr(old, "_processes", {}).values())  # no public way to kill a worker
        for process in processes:
            try:
                process.kill()
            except (OSError, ValueError):  # already gone, or already closed
                continue
        old.shutdown(wait=False, cancel_futures=True)
        self.generation += 1
        self.executor = self._start()

    def close(self) -> None:
        with self.lock:
            self.executor.shutdown(wait=True, cancel_futures=True)


_SHARED: _Pool | None = None
_SHARED_LOCK = threading.Lock()


def _shared() -> _Pool:
    global _SHARED
    if _SHARED is None:
        with _SHARED_LOCK:
            if _SHARED is None:
                _SHARED = _Pool(worker_count())
                atexit.register(shutdown)
    return _SHARED


def shutdown() -> None:
    """Stop the shared pool's workers; the next call starts a new pool."""
    global _SHARED
    with _SHARED_LOCK:
        pool, _SHARED = _SHARED, None
    if pool is not None:
        pool.close()


def submit(fn: Callable[..., R], *args: Any) -> concurrent.futures.Future[R]:
    """Run ``fn(*args)`` in the shared pool; a worker lost to a crash is replaced and the call retried once."""
    pool = _shared()
    outer: concurrent.futures.Future[R] = concurrent.futures.Future()

    def attempt(retries: int) -> None:
        _, inner = pool.submit(fn, *args)

        def done(f: concurrent.futures.Future[R]) -> None:
            if f.cancelled() or isinstance(f.exception(), BrokenProcessPool):
                if retries > 0:
                    attempt(retries - 1)
                    return
                outer.set_exception(BrokenProcessPool("grading worker lost twice"))
                return
            error = f.exception()
            if error is not None:
                outer.set_exception(error)
            else:
                outer.set_result(f.result())

        inner.add_done_callback(done)

    attempt(1)
    return outer


def grade_many(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    processes: int | None = None,
    timeout: float | None = None,
    on_timeout: Callable[[T], R] | None = None,
    group: Callable[[T], Any] | None = None,
) -> list[R]:
    """``[fn(item) for item in items]``, in the shared worker pool; results in input order.

    ``processes``: ``None`` uses the shared pool; 0 or 1 grades here, serially; a larger number
    uses a pool of that size for this call only. ``group(item)`` (for example the reference)
    orders submission so that items sharing a cached reference run close together.
    ``timeout`` (seconds, per item) is the last-resort guard described in the module
    docstring; it needs ``on_timeout``. An exception raised by ``fn`` propagates.
    """
    items = list(items)
    if timeout is not None and on_timeout is None:
        raise ValueError("timeout needs on_timeout (the result that stands for a killed item)")
    workers = worker_count() if processes is None else processes
    if workers <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    order: Sequence[int] = range(len(items))
    if group is not None:
        keys = [group(item) for item in items]
        order = sorted(range(len(items)), key=lambda i: (str(keys[i]), i))
    if processes is None:
        return _run(_shared(), fn, items, order, timeout, on_timeout)
    pool = _Pool(min(workers, len(items)))
    try:
        return _run(pool, fn, items, order, timeout, on_timeout)
    finally:
        pool.close()


def _run(
    pool: _Pool,
    fn: Callable[[T], R],
    items: list[T],
    order: Sequence[int],
    timeout: float | None,
    on_timeout: Callable[[T], R] | None,
) -> list[R]:
    results: dict[int, R] = {}
    # At most one item in flight per worker: then 'running' means 'started' (the guard's clock).
    window = pool.workers
    queue = list(order)[::-1]
    if timeout is not None:
        pool.ready()
    inflight: dict[concurrent.futures.Future[R], tuple[int, int]] = {}  # future -> (index, generation)
    started: dict[concurrent.futures.Future[R], float] = {}
    while queue or inflight:
        while queue and len(inflight) < window:
            index = queue.pop()
            generation, future = pool.submit(fn, items[index])
            inflight[future] = (index, generation)
        done, _ = concurrent.futures.wait(
            list(inflight), timeout=_POLL_SECONDS if timeout is not None else None,
            return_when=concurrent.futures.FIRST_COMPLETED,
        )
        for future in done:
            index, generation = inflight.pop(future)
            started.pop(future, None)
            error = future.exception() if not future.cancelled() else BrokenProcessPool("cancelled")
            if isinstance(error, BrokenProcessPool):
                queue.append(index)  # lost with a killed or crashed worker: grade it again
                continue
            if error is not None:
                raise error
            results[index] = future.result()
        if timeout is None:
            continue
        now = time.monotonic()
        restarted = False
        for future, (index, generation) in list(inflight.items()):
            if future.running() and future not in started:
                started[future] = now
            if future in started and now - started[future] > timeout:
                results[index] = on_timeout(items[index])  # type: ignore[misc]
                del inflight[future]
                started.pop(future, None)
                pool.kill(generation)
                restarted = True
        if restarted:
            # the other items in flight died with the killed workers: grade them again
            for future, (index, _) in list(inflight.items()):
                queue.append(index)
                del inflight[future]
            started.clear()
            pool.ready()
    return [results[i] for i in range(len(items))]
