"""Async orchestration: problems x variants x samples -> prompt -> generate -> grade -> store.

The runner knows no benchmark. It plans one work item per (problem, variant, sample),
skips those the run store already holds (resume), and runs the rest through a fixed pool
of workers, so concurrency is bounded by ``max_connections`` and memory by the pool, not by
the size of the benchmark. Every outcome, including a request that failed for good or a
grader that crashed, becomes a row; a killed run loses only the requests in flight.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

from physeval.cache import ResponseCache, cache_key
from physeval.models.base import Completion, Model, ModelError
from physeval.problems import Grade, Problem
from physeval.progress import RunProgress
from physeval.store import RunStore, SampleRow
from physeval.tasks.base import GradeContext, Task

__all__ = ["RunConfig", "RunResult", "run_task", "select_problems", "plan_keys", "grade_into_row"]


@dataclass(frozen=True)
class RunConfig:
    """Sampling and orchestration settings of a run (all recorded in ``summary.json``).

    Attributes:
        samples: K samples per problem variant (for avg@K, pass@K, maj@K).
        temperature, top_p, max_tokens, stop: Sampling parameters sent to the model.
        seed: Base seed; sample ``s`` is requested with ``seed + s`` (None: no seed sent).
        max_connections: Requests in flight at once.
        limit: Keep only the first N problems (all their variants).
        use_cache: Read and write the response cache.
        retry_errors: On resume, retry rows that ended in an error instead of keeping them.
        grade_concurrency: Gradings (renders, judge calls) in flight at once while generation
            goes on (default: twice ``max_connections``).
    """

    samples: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int | None = None
    stop: tuple[str, ...] | None = None
    seed: int | None = None
    max_connections: int = 16
    limit: int | None = None
    use_cache: bool = True
    retry_errors: bool = False
    grade_concurrency: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        data = asdict(self)
        data["stop"] = list(self.stop) if self.stop else None
        return data


@dataclass
class RunResult:
    """What a run did: planned items, rows written now, rows kept from before, errors."""

    run_dir: Path
    planned: int
    completed_now: int = 0
    skipped: int = 0
    errors_now: int = 0
    interrupted: bool = False


def select_problems(problems: Sequence[Problem], limit: int | None) -> list[Problem]:
    """The first ``limit`` distinct problem ids, keeping every variant of each."""
    if limit is None:
        return list(problems)
    kept: set[str] = set()
    out = []
    for p in problems:
        if p.id not in kept and len(kept) >= limit:
            continue
        kept.add(p.id)
        out.append(p)
    return out


def plan_keys(problems: Sequence[Problem], samples: int) -> list[tuple[Problem, int]]:
    """Every (problem variant, sample index) work item, in a stable order."""
    return [(p, s) for p in problems for s in range(samples)]


async def run_task(
    task: Task,
    model: Model,
    run_dir: str | Path,
    config: RunConfig,
    *,
    problems: Sequence[Problem] | None = None,
    cache: ResponseCache | None = None,
    show_progress: bool = True,
) -> RunResult:
    """Run ``task`` on ``model`` into ``run_dir``, resuming whatever the store already holds."""
    run_dir = Path(run_dir)
    chosen = select_problems(problems if problems is not None else task.load(), config.limit)
    items = plan_keys(chosen, config.samples)
    store = RunStore(run_dir)
    store.set_meta("task", task.name)
    store.set_meta("planned", {"problems": len({p.id for p in chosen}), "samples": len(items)})
    done = store.keys() if not config.retry_errors else store.keys(status="answered")
    todo = [(p, s) for p, s in items if (p.id, p.variant, s) not in done]
    result = RunResult(run_dir=run_dir, planned=len(items), skipped=len(items) - len(todo))
    owns_cache = config.use_cache and cache is None
    if owns_cache:
        cache = ResponseCache()
    elif not config.use_cache:
        cache = None
    progress = RunProgress(total=len(items), already=result.skipped, label=task.name, enabled=show_progress)
    queue: asyncio.Queue[tuple[Problem, int]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)

    # Generation and grading overlap: a worker hands its completion to a grading task and
    # moves on to its next request; at most `grade_slots` gradings (renders, judges) run at once.
    grade_slots = asyncio.Semaphore(max(1, config.grade_concurrency or 2 * config.max_connections))
    grading: set[asyncio.Task[None]] = set()

    def record(row: SampleRow) -> None:
        store.append(row)
        result.completed_now += 1
        result.errors_now += row.status == "error"
        progress.advance(correct=row.correct, error=row.status == "error")

    async def finish(row: SampleRow, problem: Problem, response: str, sample: int) -> None:
        try:
            await grade_into_row(row, task, problem, response, GradeContext(run_dir=run_dir, sample=sample))
            record(row)
        finally:
            grade_slots.release()

    async def worker() -> None:
        while True:
            try:
                problem, sample = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            row, response = await _generate_one(task, model, problem, sample, config, cache)
            if response is None:
                record(row)
                continue
            await grade_slots.acquire()
            job = asyncio.create_task(finish(row, problem, response, sample))
            grading.add(job)
            job.add_done_callback(grading.discard)

    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(config.max_connections, len(todo))))]
    try:
        with progress:
            await asyncio.gather(*workers)
            while grading:
                await asyncio.gather(*list(grading))
    except (asyncio.CancelledError, KeyboardInterrupt):
        result.interrupted = True
        for job in [*workers, *grading]:
            job.cancel()
        await asyncio.gather(*workers, *grading, return_exceptions=True)
        raise
    finally:
        store.close()
        if owns_cache and cache is not None:
            cache.close()
    return result


async def _generate_one(task: Task, model: Model, problem: Problem, sample: int, config: RunConfig,
                        cache: ResponseCache | None) -> tuple[SampleRow, str | None]:
    """Ask the model (or the cache); the row is final when the response is ``None`` (an error)."""
    messages = task.prompt(problem)
    row = SampleRow(problem_id=problem.id, variant=problem.variant, sample=sample, status="answered",
                    messages=messages, problem_meta=dict(problem.meta))
    params = {"temperature": config.temperature, "top_p": config.top_p, "max_tokens": config.max_tokens,
              "seed": None if config.seed is None else config.seed + sample,
              "stop": list(config.stop) if config.stop else None}
    key = cache_key(model.cache_identity, messages, params, sample) if cache is not None else ""
    completion: Completion | None = cache.get(key) if cache is not None else None
    if completion is not None:
        row.cached = True
    else:
        try:
            completion = (await model.generate(messages, n=1, **params))[0]
            row.attempts = completion.attempts
        except ModelError as exc:
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
    """Grade ``response`` and put the verdict in ``row``; a crashing grader becomes an explained row."""
    started = time.perf_counter()
    try:
        grade: Grade = await task.agrade(problem, response, context)
    except Exception as exc:  # noqa: BLE001 - graders should not raise; if one does, say so
        row.correct, row.outcome, row.error_kind = False, "error", "grader"
        row.error_message = f"grader crashed: {type(exc).__name__}: {exc}"
        row.grade = {"correct": False, "outcome": "error", "reason": traceback.format_exc(limit=3)}
        return
    row.grade = grade.to_dict()
    row.grade["grading_s"] = round(time.perf_counter() - started, 6)
    row.correct, row.score, row.outcome = bool(grade.correct), grade.score, grade.outcome
