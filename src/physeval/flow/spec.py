"""The front door of a run: :class:`RunSpec` -> :func:`run`, the one path through the four steps.

``run(spec)`` resolves the task and the model, then goes one way: **plan** (the problems chosen
once, every variant x K samples: :mod:`physeval.flow.plan`) -> **record** (the folder checked,
what defines the run written: :mod:`physeval.flow.record`) -> **execute** (each work item asked
for, graded and stored: :mod:`physeval.flow.execute`) -> **summarise** (the typed result from one
read of the store: :mod:`physeval.flow.summarise`). A resume is the same path into a folder that
holds rows; ``physeval score`` (:mod:`physeval.flow.score`) enters at the record with responses
it grades, ``physeval regrade`` (:mod:`physeval.flow.regrade`) at execution's grading. Each ends
in the same ``summary.json`` and can be called from a notebook (``physeval.evaluate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physeval.errors import StorageError
from physeval.flow.config import RunConfig
from physeval.flow.execute import RunResult, execute
from physeval.flow.plan import plan_run, report_load
from physeval.flow.record import check_run_dir, claim_run_dir, default_run_dir, record_run, run_settings
from physeval.flow.summarise import summarise, summarise_run
from physeval.interrupts import run_stoppable
from physeval.models.base import Model
from physeval.models.spec import model_from_spec
from physeval.problems import Problem
from physeval.progress import ProgressMode
from physeval.run_lock import hold_run_folder
from physeval.sqlite_file import storage_fault
from physeval.store import RunStore
from physeval.summary import RunSummary
from physeval.tasks.base import Task
from physeval.tasks.catalog import DEFAULT_TASK
from physeval.tasks.registry import get_task

__all__ = ["RunSpec", "run", "evaluate", "DEFAULT_TASK", "DEFAULT_MODEL"]

DEFAULT_MODEL = "local"


@dataclass(frozen=True)
class RunSpec:
    """Everything one run needs, as the command line or a notebook states it.

    ``run(spec)`` is the one path through a run: it resolves the task and the model, loads the
    problems once, validates the run directory (task, recorded settings), writes one
    :class:`~physeval.store.RunMeta`, hands the open store and the problems to the runner, and
    writes the summary.

    Attributes:
        task: A registered task name, ``FILE.py:Class``, or a Task instance.
        task_options: Raw options for the task (typed and checked by its ``Options``).
        model: A model spec (``vllm/NAME``, ``local``...) or a Model instance.
        base_url, api_key, request_timeout, max_attempts: How to reach a model given by spec.
        config: Sampling and orchestration settings.
        run_dir: Where the run lives (default ``runs/<UTC time>_<task>_<model>``); resumed if it exists.
        force: Accept resuming with settings that differ from the recorded ones (both recorded).
        show_progress: The progress display: ``rich``, ``plain`` or ``none`` (``True``: rich, ``False``: none).
        invocation: The command line's resolved flags, recorded for ``--resume DIR``.
        model_label: How the summary names the model (default: the spec, or ``model.name``).
        problems: Already-loaded problems of the task (skips loading).
    """

    task: str | Task = DEFAULT_TASK
    task_options: dict[str, Any] = field(default_factory=dict)
    model: str | Model | None = DEFAULT_MODEL
    base_url: str | None = None
    api_key: str | None = None
    request_timeout: float = 600.0
    max_attempts: int = 5
    config: RunConfig = field(default_factory=RunConfig)
    run_dir: Path | None = None
    force: bool = False
    show_progress: bool | ProgressMode = True
    invocation: dict[str, Any] | None = None
    model_label: str | None = None
    problems: tuple[Problem, ...] | None = None


def evaluate(
    task: str | Task = DEFAULT_TASK,
    model: str | Model | None = DEFAULT_MODEL,
    *,
    run_dir: str | Path | None = None,
    config: RunConfig | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    request_timeout: float = 600.0,
    max_attempts: int = 5,
    task_options: dict[str, Any] | None = None,
    problems: list[Problem] | None = None,
    show_progress: bool = True,
    force: bool = False,
    invocation: dict[str, Any] | None = None,
    model_label: str | None = None,
) -> tuple[RunSummary, RunResult]:
    """Run ``task`` on ``model`` and return ``(summary, run_result)``: :func:`run` of a :class:`RunSpec`.

    An existing ``run_dir`` is resumed: finished rows are kept and only the rest is asked for.
    When the run is aborted (preflight failure, fatal model error, circuit breaker) the summary
    is still written, with status ``aborted`` and the reason, and ``run_result.aborted`` is set.
    """
    return run(RunSpec(task=task, task_options=dict(task_options or {}), model=model, base_url=base_url,
                       api_key=api_key, request_timeout=request_timeout, max_attempts=max_attempts,
                       config=config or RunConfig(), run_dir=Path(run_dir) if run_dir else None, force=force,
                       show_progress=show_progress, invocation=invocation, model_label=model_label,
                       problems=tuple(problems) if problems is not None else None))


def run(spec: RunSpec) -> tuple[RunSummary, RunResult]:
    """The one path through a run (see :class:`RunSpec`); nothing is written before the task has
    loaded and the model name has been understood."""
    config = spec.config
    task = spec.task if isinstance(spec.task, Task) else get_task(spec.task, **spec.task_options)
    if spec.model is None or isinstance(spec.model, str):
        model_label: str = spec.model_label or spec.model or DEFAULT_MODEL
        model = model_from_spec(spec.model or DEFAULT_MODEL, base_url=spec.base_url, api_key=spec.api_key,
                                timeout=spec.request_timeout, max_attempts=spec.max_attempts)
    else:
        model_label, model = spec.model_label or str(getattr(spec.model, "name", "model")), spec.model
    # 1. plan, before anything is written: a task that cannot load leaves no run folder
    plan = plan_run(task, config, spec.problems)
    if spec.problems is None:
        report_load(task)
    run_dir = spec.run_dir or claim_run_dir(default_run_dir(task.name, model_label))
    settings = run_settings(task, config, model.cache_identity if _has_identity(model) else model_label)
    with hold_run_folder(run_dir, "run"):  # one writer: from reading the folder to its summary
        check_run_dir(run_dir, task.name, settings, force=spec.force)
        with RunStore(run_dir) as store:
            # 2. record what defines the run; 3. execute its work items into the store
            record_run(store, task, model=model_label, config=config.to_dict(), plan=plan.plan,
                       settings=settings, invocation=spec.invocation)

            async def go() -> RunResult:
                try:
                    return await execute(task, model, store, config, plan, show_progress=spec.show_progress)
                finally:
                    close = getattr(model, "aclose", None)
                    if close is not None:
                        await close()

            result = run_stoppable(go())
        # 4. summarise
        summary = _summary_after(task, run_dir, model_label, config.to_dict(), result)
    return summary, result


def _has_identity(model: Any) -> bool:
    try:
        return isinstance(model.cache_identity, str)
    except Exception:  # noqa: BLE001 - an identity that cannot be computed (no weights yet) is not recorded
        return False


def _summary_after(task: Task, run_dir: Path, model: str, config: dict[str, Any], result: RunResult) -> RunSummary:
    """The run's summary, written; after a storage fault, what can be built when the disk refuses
    ``summary.json`` too (``result.storage`` already says why, and the folder keeps every row)."""
    try:
        return summarise_run(task, run_dir, model=model, config=config, aborted=result.aborted)
    except (StorageError, OSError) as exc:
        fault = exc if isinstance(exc, StorageError) else storage_fault(exc, run_dir / "summary.json")
        if fault is None:
            raise
        if result.storage is None:
            raise fault from exc
        result.summary_error = str(fault)
        with RunStore(run_dir) as store:
            return summarise(task, store, model=model, config=config, aborted=result.aborted)
