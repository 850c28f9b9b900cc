"""The run's first step: what it will ask for, chosen once.

A :class:`RunPlan` holds the problems chosen (``--limit`` and ``--sample-strategy`` apply here and
nowhere else), the :class:`~physeval.plan.Plan` they make (each problem's variants x K samples,
recorded in the store so completeness and dynamic metrics are measured against it) and one
:class:`WorkItem` per (problem variant, sample): its chat messages, its sampling parameters and
its response-cache key. Execution, the record and the summary read the plan; none chooses again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from physeval.cache import cache_key
from physeval.errors import OptionError
from physeval.flow.config import RunConfig
from physeval.plan import Plan
from physeval.problems import Problem, first_duplicate
from physeval.tasks.base import Task, TaskError

__all__ = ["RunPlan", "WorkItem", "STRATA", "load_problems", "plan_run", "report_load", "sampling_params",
           "select_problems"]


@dataclass(frozen=True)
class WorkItem:
    """One sample to ask for: the problem variant, the sample index, the messages and sampling
    parameters of its request (shared by the item's samples, built once)."""

    problem: Problem
    sample: int
    messages: list[dict[str, Any]]
    params: dict[str, Any]

    @property
    def key(self) -> tuple[str, str, int]:
        """(problem id, variant, sample): the row it becomes."""
        return (self.problem.id, self.problem.variant, self.sample)

    def cache_key(self, model_identity: str) -> str:
        """The response cache's key of this request to the model ``model_identity``."""
        return cache_key(model_identity, self.messages, self.params, self.sample)


@dataclass(frozen=True)
class RunPlan:
    """What a run set out to do: the problems chosen, their :class:`~physeval.plan.Plan`, the work items."""

    problems: tuple[Problem, ...]
    plan: Plan
    items: tuple[WorkItem, ...]

    @property
    def problem_count(self) -> int:
        """Distinct problems chosen."""
        return len(self.plan.variants)


def plan_run(task: Task, config: RunConfig, problems: Sequence[Problem] | None = None) -> RunPlan:
    """The plan of running ``task`` under ``config``: its problems loaded (or ``problems``, already
    loaded) and chosen once by ``limit`` and ``sample_strategy``, every variant x ``samples`` items."""
    def select(found: list[Problem]) -> list[Problem]:
        return select_problems(found, config.limit, config.sample_strategy, config.seed or 0)

    chosen = select(list(problems)) if problems is not None else load_problems(task, select=select)
    items = []
    for problem in chosen:
        messages = task.prompt(problem)
        items += [WorkItem(problem, s, messages, sampling_params(config, s)) for s in range(config.samples)]
    return RunPlan(tuple(chosen), Plan.of((p.key for p in chosen), config.samples), tuple(items))


def load_problems(task: Task, select: Callable[[list[Problem]], list[Problem]] | None = None) -> list[Problem]:
    """The task's problems (those ``select`` keeps, chosen before they are built: see
    :meth:`Task.load_selected`), checked: at least one, and no (id, variant) twice."""
    problems = task.load() if select is None else task.load_selected(select)
    if not problems:
        raise TaskError(f"{task.name} loaded no problems")
    twice = first_duplicate(problems)
    if twice is not None:
        raise TaskError(f"{task.name}: problem {twice.id} variant {twice.variant} appears twice in the data")
    return problems


def report_load(task: Task) -> None:
    """Print what a task skipped or dropped while loading (malformed records, disabled ones)."""
    report = getattr(task, "load_report", None)
    if report:
        import sys

        print(report, file=sys.stderr)


STRATA = ("domain", "tag", "level", "language")
"""Problem meta fields ``stratified`` selection groups by (the first one the problems carry)."""


def select_problems(problems: Sequence[Problem], limit: int | None, strategy: str = "first",
                    seed: int = 0) -> list[Problem]:
    """``limit`` distinct problem ids (every variant of each), in the problems' order.

    ``first`` takes the first ones; ``random`` a seeded sample; ``stratified`` goes round-robin
    over the groups of the first meta field of :data:`STRATA` the problems carry, so each group
    keeps its share (a seeded order within each group).
    """
    ids = list(dict.fromkeys(p.id for p in problems))
    if limit is None or limit >= len(ids):
        return list(problems)
    if strategy == "first":
        chosen = set(ids[:limit])
    elif strategy == "random":
        chosen = set(random.Random(seed).sample(ids, limit))
    elif strategy == "stratified":
        chosen = set(_stratified(problems, ids, limit, seed))
    else:
        raise OptionError(f"sample_strategy must be first, random or stratified, not {strategy!r}")
    return [p for p in problems if p.id in chosen]


def _stratified(problems: Sequence[Problem], ids: list[str], limit: int, seed: int) -> list[str]:
    first = {p.id: p for p in problems if p.variant == "0"} or {p.id: p for p in problems}
    key = next((k for k in STRATA if any(k in (p.meta or {}) for p in first.values())), None)
    groups: dict[str, list[str]] = {}
    for pid in ids:
        meta = first[pid].meta if pid in first else {}
        groups.setdefault(str(meta.get(key, "")) if key else "", []).append(pid)
    rng = random.Random(seed)
    for members in groups.values():
        rng.shuffle(members)
    picked: list[str] = []
    queues = [groups[g] for g in sorted(groups)]
    while len(picked) < limit:
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return picked


def sampling_params(config: RunConfig, sample: int) -> dict[str, Any]:
    """The keyword arguments of ``Model.generate`` for sample index ``sample``."""
    params: dict[str, Any] = {"temperature": config.temperature, "top_p": config.top_p,
                              "max_tokens": config.max_tokens,
                              "seed": None if config.seed is None else config.seed + sample,
                              "stop": list(config.stop) if config.stop else None}
    if config.extra_body:
        params["extra_body"] = dict(config.extra_body)  # only when set: the cache keys of older runs hold
    return params
