"""What every stage receives, and the one loop that runs a stage's records.

:func:`run_items` is the resumable part of every model stage: records the store already holds
are skipped, the rest run with at most ``max_connections`` in flight, and each is written the
moment it is done. A record whose request failed for good (after the model's own retries) is
left unfinished and counted, so a rerun asks again; a fatal model error (wrong key, unknown
model) stops the build at once with :class:`~physeval.errors.RunAborted`, finished records kept.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from physeval.errors import ModelError, RunAborted
from physeval.scene_builder.calls import JsonCaller, Role
from physeval.scene_builder.store import BuildStore, Item
from physeval.scene_builder.taxonomy import Concept

__all__ = ["CHAIN", "BuildContext", "StageReport", "live_items", "run_items"]

CHAIN = ("compose", "filter", "plausibility", "questions", "review", "split")
"""The stages a scenario passes in turn (``basic`` makes concepts' material, ``solve`` routes, not rejects)."""


@dataclass
class StageReport:
    """What one pass of a stage did."""

    stage: str
    total: int = 0
    kept: int = 0          # finished before this pass (resume)
    ok: int = 0            # passed in this pass
    rejected: int = 0      # rejected in this pass
    failed: int = 0        # left unfinished (a request failed for good)
    failures: list[str] = field(default_factory=list)
    skipped_reason: str = ""

    @property
    def complete(self) -> bool:
        """Whether every record of the stage is finished."""
        return self.failed == 0 and not self.skipped_reason

    def line(self, requests: int = 0, cache_hits: int = 0) -> str:
        """One line for the terminal."""
        if self.skipped_reason:
            return f"{self.stage}: skipped ({self.skipped_reason})"
        text = (f"{self.stage}: {self.total} records, {self.ok} passed and {self.rejected} rejected now, "
                f"{self.kept} kept from before")
        if requests or cache_hits:
            text += f"; {requests} model requests, {cache_hits} answered from the cache"
        if self.failed:
            text += f"; {self.failed} unfinished (rerun to retry): {self.failures[0]}"
        return text


@dataclass
class BuildContext:
    """The store, the caller, the models and the settings of one build."""

    store: BuildStore
    caller: JsonCaller
    options: Any                      # physeval.scene_builder.pipeline.BuildOptions
    concepts: list[Concept]
    roles: dict[str, Role]
    judges: list[Any] = field(default_factory=list)
    console: Console | None = None
    progress: bool = False

    @property
    def build_dir(self) -> Path:
        """The build directory."""
        return self.store.build_dir

    def live_items(self, stage: str) -> list[Item]:
        """:func:`live_items` of this build's store."""
        return live_items(self.store, stage)

    def role(self, name: str) -> Role:
        """The model in job ``name`` (generator, checker, reviewer, solver)."""
        return self.roles[name]


def live_items(store: BuildStore, stage: str) -> list[Item]:
    """The stage's passed records that are still live upstream, sorted by key.

    A record passed by a stage stays in the store when a recomputed pure stage before it (the
    filters, when a grown build finds it a duplicate of a new scenario) lets it go; only records
    passed by every stage of :data:`CHAIN` up to this one are live.
    """
    items = store.items(stage, status="ok")
    position = CHAIN.index(stage)
    if position == 0:
        return items
    upstream = {i.key for i in live_items(store, CHAIN[position - 1])}
    return [i for i in items if i.key in upstream]


Work = Callable[[str, Any], Awaitable[Item]]


async def run_items(ctx: BuildContext, stage: str, inputs: Sequence[tuple[str, Any]], work: Work, *,
                    concurrency: int | None = None) -> StageReport:
    """Run ``work(key, input)`` for every input the store lacks, writing each result as it comes."""
    done = ctx.store.done_keys(stage)
    todo = [(k, v) for k, v in inputs if k not in done]
    report = StageReport(stage, total=len(inputs), kept=len(inputs) - len(todo))
    limit = asyncio.Semaphore(max(1, concurrency or ctx.options.max_connections))
    counts: Counter[str] = Counter()
    progress = _progress(ctx, stage, len(inputs), report.kept)

    async def one(key: str, value: Any) -> None:
        async with limit:
            try:
                item = await work(key, value)
            except ModelError as exc:
                if exc.fatal:
                    raise RunAborted(f"{stage}: the model is not usable: {exc}", kind=exc.kind) from exc
                counts["failed"] += 1
                report.failures.append(f"{key}: {exc.kind}: {exc}")
                return
            finally:
                if progress is not None:
                    progress.advance(progress.task_ids[0])
            ctx.store.put(item)
            counts[item.status] += 1

    if progress is not None:
        progress.start()
    try:
        tasks = [asyncio.create_task(one(k, v)) for k, v in todo]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
    finally:
        if progress is not None:
            progress.stop()
    report.ok, report.rejected, report.failed = counts["ok"], counts["rejected"], counts["failed"]
    report.failures.sort()
    return report


def _progress(ctx: BuildContext, stage: str, total: int, completed: int) -> Progress | None:
    if not ctx.progress or total == 0:
        return None
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=ctx.console or Console(stderr=True))
    progress.add_task(stage, total=total, completed=completed)
    return progress
