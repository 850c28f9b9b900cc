"""The Python entry points behind ``physeval run``, ``physeval score`` and ``physeval regrade``.

``evaluate`` runs a task on a model into a run directory (resuming what is there) and
returns the summary; ``score_responses`` grades responses a user already has, without a model;
``regrade_run`` (in :mod:`physeval.regrade`) grades a run's stored completions again. All end with
the same ``summary.json`` and can be called from a notebook.

Provenance is guarded here: a run directory holds one task, and resuming it with sampling or
task options that differ from the recorded ones is refused with the difference spelled out
(``force=True`` accepts the change and records both).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.errors import StorageError, UserError
from physeval.flow.summarise import PLAN_META, summarise, summarise_run
from physeval.imports import ForeignResponses
from physeval.metrics import Plan
from physeval.models.base import Model
from physeval.models.spec import model_from_spec
from physeval.problems import Problem, first_duplicate, with_ids
from physeval.progress import ProgressMode
from physeval.provenance import config_diff, file_sha256, utc_iso
from physeval.responses import read_any_responses, read_responses
from physeval.run_lock import hold_run_folder
from physeval.runner import RunConfig, RunResult, grade_into_row, run_task, select_problems
from physeval.sqlite_file import storage_fault
from physeval.store import RunMeta, RunStore, SampleRow
from physeval.summary import RunSummary
from physeval.tasks.base import GradeContext, Task, TaskError
from physeval.tasks.registry import get_task

__all__ = ["RunSpec", "run", "evaluate", "score_responses", "default_run_dir", "ScoreReport", "DEFAULT_TASK",
           "DEFAULT_MODEL",
           "summarize_run", "read_responses", "read_any_responses", "load_problems", "task_options_of", "grade_rows"]

DEFAULT_TASK = "bank-numeric"
DEFAULT_MODEL = "local"

# Run settings that may change on resume without changing what a sample is.
_RESUMABLE_FREELY = ("samples", "limit", "max_connections", "use_cache", "retry_errors", "grade_concurrency",
                     "max_consecutive_errors", "preflight", "price_in", "price_out")


def default_run_dir(task: str, model: str, root: str | Path = "runs") -> Path:
    """``runs/<UTC timestamp>_<task>_<model>`` with the model name made path-safe."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    safe_model = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-") or "model"
    return Path(root) / f"{stamp}_{task}_{safe_model}"


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


def task_options_of(task: Task) -> dict[str, Any]:
    """The options that rebuild ``task`` with :func:`get_task` (for ``regrade``)."""
    options: dict[str, Any] = {k: v for k, v in task.options.items()}
    if task.data is not None:
        options["data"] = str(task.data)
    return options


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
    task_obj = spec.task if isinstance(spec.task, Task) else get_task(spec.task, **spec.task_options)
    if spec.model is None or isinstance(spec.model, str):
        model_label: str = spec.model_label or spec.model or DEFAULT_MODEL
        model_obj = model_from_spec(spec.model or DEFAULT_MODEL, base_url=spec.base_url, api_key=spec.api_key,
                                    timeout=spec.request_timeout,
                                    max_attempts=spec.max_attempts)
    else:
        model_label, model_obj = spec.model_label or str(getattr(spec.model, "name", "model")), spec.model
    if spec.problems is None:
        # before anything is written: a task that cannot load leaves no run dir; --limit chooses first
        problems = load_problems(task_obj, select=lambda found: select_problems(
            found, config.limit, config.sample_strategy, config.seed or 0))
        _report_load(task_obj)
    else:
        problems = list(spec.problems)
    run_dir = spec.run_dir or default_run_dir(task_obj.name, str(model_label))
    settings = {"model": model_obj.cache_identity if _has_identity(model_obj) else str(model_label),
                **{k: v for k, v in config.to_dict().items() if k not in _RESUMABLE_FREELY},
                "task": task_obj.config()}
    with hold_run_folder(run_dir, "run"):  # one writer: from reading the folder to its summary
        _check_run_dir(run_dir, task_obj.name, settings, force=spec.force)
        with RunStore(run_dir) as store:
            chosen = {p.id for p in select_problems(problems, config.limit, config.sample_strategy, config.seed or 0)}
            plan = Plan.of(((p.id, p.variant) for p in problems if p.id in chosen), config.samples)
            previous = store.run_meta()
            store.set_run_meta(RunMeta(
                task=task_obj.name, task_options=_jsonable(task_options_of(task_obj)), model=str(model_label),
                config=config.to_dict(), settings=_jsonable(settings),
                planned={"problems": len(chosen), "samples": plan.total},
                data_sha256=(previous.data_sha256 if previous and previous.data_sha256
                             else {str(p): file_sha256(p) for p in task_obj.data_files()}),
                invocation=_jsonable(spec.invocation or (previous.invocation if previous else {})),
            ))
            store.set_meta(PLAN_META, plan.to_dict())  # what dynamic metrics and completeness are measured against

            async def go() -> RunResult:
                try:
                    return await run_task(task_obj, model_obj, store, config, problems=problems,
                                          show_progress=spec.show_progress, raise_on_abort=False)
                finally:
                    close = getattr(model_obj, "aclose", None)
                    if close is not None:
                        await close()

            result = asyncio.run(go())
        summary = _summary_after(task_obj, run_dir, str(model_label), config.to_dict(), result)
    return summary, result


def _has_identity(model: Any) -> bool:
    try:
        return isinstance(model.cache_identity, str)
    except Exception:  # noqa: BLE001 - an identity that cannot be computed (no weights yet) is not recorded
        return False


def _check_run_dir(run_dir: Path, task_name: str, settings: dict[str, Any], *, force: bool) -> None:
    """Refuse a run directory of another task, or a resume that would change what a sample is."""
    if not RunStore.exists(run_dir):
        return
    with RunStore(run_dir) as store:
        meta = store.run_meta()
        if meta is not None and meta.task != task_name:
            raise UserError(f"{run_dir} holds a run of task {meta.task!r}, not {task_name!r}: "
                            "choose another --out")
        recorded = meta.settings if meta is not None else None
        if not recorded or store.count() == 0:
            return
        diff = config_diff(_flatten(recorded), _flatten(_jsonable(settings)))
        if not diff:
            return
        if not force:
            raise UserError(f"{run_dir} was run with other settings; resuming would mix samples drawn "
                            f"differently:\n  " + "\n  ".join(diff) +
                            "\nuse another --out, or --force to accept the change (both are recorded)")
        history = store.get_meta("settings_history", []) or []
        history.append({"at": utc_iso(time.time()), "from": recorded, "changes": diff})
        store.set_meta("settings_history", history)


def _flatten(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _summary_after(task: Task, run_dir: Path, model: str, config: dict[str, Any], result: RunResult) -> RunSummary:
    """The run's summary, written; after a storage fault, what can be built when the disk refuses
    ``summary.json`` too (``result.storage`` already says why, and the folder keeps every row)."""
    try:
        return summarize_run(task, run_dir, model=model, config=config, result=result)
    except (StorageError, OSError) as exc:
        fault = exc if isinstance(exc, StorageError) else storage_fault(exc, run_dir / "summary.json")
        if fault is None:
            raise
        if result.storage is None:
            raise fault from exc
        result.summary_error = str(fault)
        with RunStore(run_dir) as store:
            return summarise(task, store, model=model, config=config, aborted=result.aborted)


def _report_load(task: Task) -> None:
    """Print what a task skipped or dropped while loading (malformed records, disabled ones)."""
    report = getattr(task, "load_report", None)
    if report:
        import sys

        print(report, file=sys.stderr)


def summarize_run(task: Task, run_dir: str | Path, *, model: str, config: dict[str, Any],
                  result: RunResult | None = None) -> RunSummary:
    """Build and write ``summary.json`` for the rows in ``run_dir`` (see :func:`~physeval.flow.summarise.summarise`)."""
    return summarise_run(task, run_dir, model=model, config=config,
                         aborted=result.aborted if result is not None else None)


@dataclass
class ScoreReport:
    """What ``score_responses`` read: graded rows, and what it could not match or read."""

    graded: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    skipped_errors: int = 0
    source: str = "jsonl"  # or the foreign format read (inspect, lm-eval)
    problems_named: int = 0
    task_problems: int = 0


async def grade_rows(task: Task, jobs: Sequence[tuple[SampleRow, Problem]], run_dir: Path | None,
                     *, concurrency: int = 8) -> list[SampleRow]:
    """Grade each ``(row, problem)`` pair from the row's stored completion (no model is called)."""
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(row: SampleRow, problem: Problem) -> SampleRow:
        async with semaphore:
            await grade_into_row(row, task, problem, row.completion or "",
                                 GradeContext(run_dir=run_dir, sample=row.sample))
        return row

    return list(await asyncio.gather(*(one(r, p) for r, p in jobs)))


def score_responses(
    task: str | Task,
    responses: str | Path | Iterable[dict[str, Any]],
    *,
    run_dir: str | Path | None = None,
    task_options: dict[str, Any] | None = None,
    model_label: str = "responses",
) -> tuple[RunSummary, ScoreReport]:
    """Grade existing responses (no model is called) into a run directory; return the summary.

    Ids and variants are matched as strings, so ``7`` and ``"7"`` are the same problem. The plan
    is every variant of each problem the responses name, K samples each (K: the largest sample
    index + 1); a planned sample without a response, or an exported row whose request failed, makes
    the summary ``complete: false``, and dynamic metrics leave that problem out.
    """
    report = ScoreReport()
    foreign: ForeignResponses | None = None
    if isinstance(responses, (str, Path)):
        records, report.bad_lines, foreign = read_any_responses(responses)
    else:
        records = list(responses)
    recorded = dict(foreign.task_options) if foreign is not None else {}
    task_obj = task if isinstance(task, Task) else get_task(task, **{**recorded, **(task_options or {})})
    if foreign is not None and foreign.task and foreign.task != task_obj.name:
        raise UserError(f"{responses}: the {foreign.format} output is of physeval task {foreign.task!r}, "
                        f"not {task_obj.name!r}")
    if foreign is not None:
        report.source = foreign.format
        if model_label == "responses" and foreign.model:
            model_label = foreign.model
    problems = {p.key: p for p in load_problems(task_obj, select=with_ids({str(r["id"]) for r in records}))}
    _report_load(task_obj)
    run_dir = Path(run_dir) if run_dir else default_run_dir(task_obj.name, model_label)
    if RunStore.exists(run_dir):
        with RunStore(run_dir) as existing:
            previous = existing.run_meta()
        if previous is not None and previous.task != task_obj.name:
            raise UserError(f"{run_dir} holds a run of task {previous.task!r}, not {task_obj.name!r}: "
                            "choose another --out")
    jobs: list[tuple[SampleRow, Problem]] = []
    failed: list[SampleRow] = []
    seen_ids: set[str] = set()
    seen_keys: set[tuple[str, str]] = set()
    samples = 1
    for record in records:
        key = (str(record["id"]), str(record.get("variant", "0")))
        problem = problems.get(key)
        if problem is None:
            report.unknown_ids.append(f"{key[0]}/{key[1]}")
            continue
        seen_ids.add(problem.id)
        seen_keys.add(problem.key)
        sample = int(record.get("sample", 0))
        samples = max(samples, sample + 1)
        row = SampleRow(problem_id=problem.id, variant=problem.variant, sample=sample,
                        status="answered", messages=task_obj.prompt(problem), completion=record.get("response"),
                        usage=dict(record.get("usage") or {}), problem_meta=dict(problem.meta))
        if record.get("response") is None:
            # an exported row whose request had failed: nothing to grade, but an error the run must count
            report.skipped_errors += 1
            row.status, row.error_kind = "error", str(record.get("error_kind") or "request")
            row.error_message = str(record.get("error_message") or "the exported row has no completion")
            failed.append(row)
            continue
        jobs.append((row, problem))
    report.missing = sorted(k for k in problems if k[0] in seen_ids and k not in seen_keys)
    # The plan: every variant of each problem the responses name, each with as many samples as the
    # fullest response set (sample indices 0..K-1). What it lacks makes the run incomplete (exit 3).
    plan = Plan.of((k for k in problems if k[0] in seen_ids), samples)
    with hold_run_folder(run_dir, "score"):  # one writer: the grading's files, the rows, the summary
        rows = asyncio.run(grade_rows(task_obj, jobs, run_dir))
        with RunStore(run_dir) as store:
            store.set_run_meta(RunMeta(task=task_obj.name, task_options=_jsonable(task_options_of(task_obj)),
                                       model=model_label, config={"mode": "score"},
                                       planned={"problems": len(seen_ids), "samples": plan.total},
                                       data_sha256={str(p): file_sha256(p) for p in task_obj.data_files()}))
            store.set_meta(PLAN_META, plan.to_dict())
            for row in [*rows, *failed]:
                store.append(row)
        report.graded = len(rows)
        report.problems_named, report.task_problems = len(seen_ids), len({pid for pid, _ in problems})
        summary = summarize_run(task_obj, run_dir, model=model_label, config={"mode": "score"})
    return summary, report
