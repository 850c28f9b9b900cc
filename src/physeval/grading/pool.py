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

``spawn`` starts each worker by importing the parent's main script. A plain script that calls
the graders at its top level, without ``if __name__ == "__main__":``, would call them again
in every worker as it starts, and every worker would fail and be replaced for ever. A worker
that finds itself there exits at once with a status of its own (:data:`_REIMPORTED`, nothing
printed) and the parent raises :class:`WorkerStartError` once, naming the fix; a main script
that no worker can import (read from stdin: ``python - < script.py``) is refused the same way
before any worker starts.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, MutableMapping
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

__all__ = ["WorkerStartError", "grade_many", "shutdown", "submit", "worker_count"]

T = TypeVar("T")
R = TypeVar("R")

_POLL_SECONDS = 0.05
_REIMPORTED = 86
"""Exit status of a worker that was importing the parent's main script when the script called the pool."""


class WorkerStartError(RuntimeError):
    """The grading workers cannot start from this main script; the message says what to change."""


def _fix() -> str:
    return ("put the script's calls under `if __name__ == \"__main__\":` (Python's guard for code that starts "
            "processes), or grade in this process with processes=0 (PHYSEVAL_GRADING_PROCESSES=0)")


def _reimport_error() -> WorkerStartError:
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None) or "the main script"
    return WorkerStartError(
        f"physeval's grading workers could not start: each worker process first imports {script} (Python's "
        f"'spawn' start method), and that script calls physeval's grading again at its top level; {_fix()}")


def _refuse_to_start_here() -> None:
    """In a worker importing the parent's main script: stop it quietly. A main script no worker can
    import: the error, before any worker is started."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        os._exit(_REIMPORTED)  # the parent sees the status and raises WorkerStartError once
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    named = getattr(getattr(main, "__spec__", None), "name", None)
    if path and not named and not os.path.exists(path):
        raise WorkerStartError(
            f"physeval's grading workers could not start: each worker imports the main script, and {path} is not "
            "a file (a script read from stdin, `python - < script.py`, cannot be imported); save it as a file "
            "and run `python script.py`, or grade in this process with processes=0 (PHYSEVAL_GRADING_PROCESSES=0)")


def worker_count() -> int:
    """How many workers the shared pool has (``PHYSEVAL_GRADING_PROCESSES`` or the CPU count)."""
    configured = os.environ.get("PHYSEVAL_GRADING_PROCESSES")
    try:
        return max(1, int(configured)) if configured else max(1, os.cpu_count() or 1)
    except ValueError:
        return max(1, os.cpu_count() or 1)


def _warm(parent_pid: int) -> None:
    """Worker initializer: end with the parent (:mod:`physeval.parent_watch`), then import SymPy and the
    parser before the first item arrives."""
    from physeval.parent_watch import die_with_parent

    die_with_parent(parent_pid)
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
        _refuse_to_start_here()
        self.workers = workers
        self.lock = threading.Lock()
        self.generation = 0
        self.processes: list[MutableMapping[int, Any]] = []  # every generation's workers, for their exit statuses
        self.executor = self._start()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        executor = concurrent.futures.ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                                          initializer=_warm, initargs=(os.getpid(),))
        self.processes.append(executor._processes)  # the executor's own pid -> Process map, filled as it spawns
        return executor

    def check_workers_started(self) -> None:
        """Raise :class:`WorkerStartError` when a worker exited because it was importing the main script."""
        with self.lock:
            statuses = [process.exitcode for generation in self.processes for process in list(generation.values())]
        if _REIMPORTED in statuses:
            raise _reimport_error()

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
            if outer.done():  # the caller cancelled it (Ctrl-C, SIGTERM): nobody waits for the result
                return
            try:
                settle(f)
            except concurrent.futures.InvalidStateError:  # cancelled between the check and the setting
                pass

        def settle(f: concurrent.futures.Future[R]) -> None:
            if f.cancelled() or isinstance(f.exception(), BrokenProcessPool):
                try:
                    pool.check_workers_started()
                except WorkerStartError as exc:
                    outer.set_exception(exc)
                    return
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


def _call_chunk(fn: Callable[[T], R], items: list[T]) -> list[R]:
    """Run in a worker: one chunk of items that share a group, so they share its warm caches."""
    return [fn(item) for item in items]


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
    sends items of one group to one worker, in chunks of at most ``len(items) / workers``, so
    a reference is simplified once per chunk rather than once per worker. ``timeout``
    (seconds per item; a chunk gets its length times that) is the last-resort guard described
    in the module docstring: a chunk that outlives it is killed and its items are retried
    one by one, and an item that outlives it alone gets ``on_timeout(item)``. An exception
    raised by ``fn`` propagates.
    """
    items = list(items)
    if timeout is not None and on_timeout is None:
        raise ValueError("timeout needs on_timeout (the result that stands for a killed item)")
    workers = worker_count() if processes is None else processes
    if workers <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    units = _units(items, group, workers)
    if processes is None:
        return _run(_shared(), fn, items, units, timeout, on_timeout)
    pool = _Pool(min(workers, len(items)))
    try:
        return _run(pool, fn, items, units, timeout, on_timeout)
    finally:
        pool.close()


def _units(items: list[T], group: Callable[[T], Any] | None, workers: int) -> list[list[int]]:
    """Indices in submission order, in chunks: one item each, or by group (at most n / workers each)."""
    if group is None:
        return [[i] for i in range(len(items))]
    keys = [str(group(item)) for item in items]
    order = sorted(range(len(items)), key=lambda i: (keys[i], i))
    limit = max(1, -(-len(items) // workers))
    units: list[list[int]] = []
    for i in order:
        if units and keys[units[-1][0]] == keys[i] and len(units[-1]) < limit:
            units[-1].append(i)
        else:
            units.append([i])
    return units


def _run(
    pool: _Pool,
    fn: Callable[[T], R],
    items: list[T],
    units: list[list[int]],
    timeout: float | None,
    on_timeout: Callable[[T], R] | None,
) -> list[R]:
    results: dict[int, R] = {}
    # At most one chunk in flight per worker: then 'running' means 'started' (the guard's clock).
    window = pool.workers
    queue = units[::-1]
    if timeout is not None:
        pool.ready()
    inflight: dict[concurrent.futures.Future[list[R]], tuple[list[int], int]] = {}  # -> (indices, generation)
    started: dict[concurrent.futures.Future[list[R]], float] = {}
    while queue or inflight:
        while queue and len(inflight) < window:
            unit = queue.pop()
            generation, future = pool.submit(_call_chunk, fn, [items[i] for i in unit])
            inflight[future] = (unit, generation)
        done, _ = concurrent.futures.wait(
            list(inflight), timeout=_POLL_SECONDS if timeout is not None else None,
            return_when=concurrent.futures.FIRST_COMPLETED,
        )
        for future in done:
            unit, _generation = inflight.pop(future)
            started.pop(future, None)
            error = future.exception() if not future.cancelled() else BrokenProcessPool("cancelled")
            if isinstance(error, BrokenProcessPool):
                pool.check_workers_started()  # workers that cannot start from this script: say so, once
                queue.append(unit)  # lost with a killed or crashed worker: grade it again
                continue
            if error is not None:
                raise error
            results.update(zip(unit, future.result()))
        if timeout is None:
            continue
        now = time.monotonic()
        restarted = False
        for future, (unit, generation) in list(inflight.items()):
            if future.running() and future not in started:
                started[future] = now
            if future in started and now - started[future] > timeout * len(unit):
                del inflight[future]
                started.pop(future, None)
                if len(unit) == 1:
                    results[unit[0]] = on_timeout(items[unit[0]])  # type: ignore[misc]
                else:
                    queue.extend([i] for i in reversed(unit))  # retry one by one to find the hung item
                pool.kill(generation)
                restarted = True
        if restarted:
            # the other chunks in flight died with the killed workers: grade them again
            for future, (unit, _) in list(inflight.items()):
                queue.append(unit)
                del inflight[future]
            started.clear()
            pool.ready()
    return [results[i] for i in range(len(items))]
