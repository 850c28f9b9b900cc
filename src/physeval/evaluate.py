"""The Python entry points behind ``physeval run`` and ``physeval score``.

``evaluate`` runs a task on a model into a run directory (resuming what is there) and
returns the summary; ``score_responses`` grades responses a user already has, without a model.
Both end with the same ``summary.json`` and can be called from a notebook.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from physeval.models.base import Model
from physeval.models.spec import model_from_spec
from physeval.problems import Problem
from physeval.report.summary import build_summary, write_summary
from physeval.runner import RunConfig, RunResult, grade_into_row, run_task
from physeval.store import RunStore, SampleRow
from physeval.tasks.base import GradeContext, Task, TaskError
from physeval.tasks.registry import get_task

__all__ = ["evaluate", "score_responses", "default_run_dir", "ScoreReport", "DEFAULT_TASK", "DEFAULT_MODEL"]

DEFAULT_TASK = "bank-numeric"
DEFAULT_MODEL = "local"


def default_run_dir(task: str, model: str, root: str | Path = "runs") -> Path:
    """``runs/<UTC timestamp>_<task>_<model>`` with the model name made path-safe."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    safe_model = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-") or "model"
    return Path(root) / f"{stamp}_{task}_{safe_model}"


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
) -> tuple[dict[str, Any], RunResult]:
    """Run ``task`` on ``model`` and return ``(summary, run_result)``.

    An existing ``run_dir`` is resumed: finished rows are kept and only the rest is asked for.
    ``problems`` skips loading when the caller already has the task's problems.
    """
    config = config or RunConfig()
    task_obj = task if isinstance(task, Task) else get_task(task, **(task_options or {}))
    if model is None or isinstance(model, str):
        model_label = model or DEFAULT_MODEL
        model_obj = model_from_spec(model_label, base_url=base_url, api_key=api_key, timeout=request_timeout,
                                    max_attempts=max_attempts)
    else:
        model_label, model_obj = getattr(model, "name", "model"), model
    if problems is None:
        problems = task_obj.load()  # before anything is written: a task that cannot load leaves no run dir
        _report_load(task_obj)
    run_dir = Path(run_dir) if run_dir else default_run_dir(task_obj.name, str(model_label))
    store = RunStore(run_dir)
    previous_task = store.get_meta("task")
    if previous_task not in (None, task_obj.name):
        store.close()
        raise TaskError(f"{run_dir} holds a run of task {previous_task!r}, not {task_obj.name!r}")
    store.set_meta("model", str(model_label))
    store.set_meta("config", config.to_dict())
    store.close()
    result = asyncio.run(run_task(task_obj, model_obj, run_dir, config, problems=problems,
                                  show_progress=show_progress))
    summary = summarize_run(task_obj, run_dir, model=str(model_label), config=config.to_dict())
    return summary, result


def _report_load(task: Task) -> None:
    """Print what a task skipped or dropped while loading (malformed records, disabled ones)."""
    report = getattr(task, "load_report", None)
    if report:
        import sys

        print(report, file=sys.stderr)


def summarize_run(task: Task, run_dir: str | Path, *, model: str, config: dict[str, Any]) -> dict[str, Any]:
    """Build and write ``summary.json`` for the rows in ``run_dir``."""
    with RunStore(run_dir) as store:
        summary = build_summary(task, store, model=model, config=config)
    write_summary(run_dir, summary)
    return summary


@dataclass
class ScoreReport:
    """What ``score_responses`` read: graded rows, and what it could not match or read."""

    graded: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)


def read_responses(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """JSONL lines ``{"id", "variant"?, "sample"?, "response"}``; bad lines are reported, not fatal."""
    records, bad = [], []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            bad.append(f"line {number}: not JSON ({exc.msg})")
            continue
        if not isinstance(record, dict) or "id" not in record or not isinstance(record.get("response"), str):
            bad.append(f"line {number}: needs an 'id' and a string 'response'")
            continue
        records.append(record)
    return records, bad


def score_responses(
    task: str | Task,
    responses: str | Path | Iterable[dict[str, Any]],
    *,
    run_dir: str | Path | None = None,
    task_options: dict[str, Any] | None = None,
    model_label: str = "responses",
) -> tuple[dict[str, Any], ScoreReport]:
    """Grade existing responses (no model is called) into a run directory; return the summary.

    Ids and variants are matched as strings, so ``7`` and ``"7"`` are the same problem.
    """
    task_obj = task if isinstance(task, Task) else get_task(task, **(task_options or {}))
    report = ScoreReport()
    if isinstance(responses, (str, Path)):
        records, report.bad_lines = read_responses(responses)
    else:
        records = list(responses)
    problems = {p.key: p for p in task_obj.load()}
    _report_load(task_obj)
    run_dir = Path(run_dir) if run_dir else default_run_dir(task_obj.name, model_label)
    matched: list[tuple[Problem, int, str]] = []
    for record in records:
        key = (str(record["id"]), str(record.get("variant", "0")))
        problem = problems.get(key)
        if problem is None:
            report.unknown_ids.append(f"{key[0]}/{key[1]}")
            continue
        matched.append((problem, int(record.get("sample", 0)), record["response"]))
    seen_ids = {p.id for p, _, _ in matched}
    seen_keys = {p.key for p, _, _ in matched}
    report.missing = sorted(k for k in problems if k[0] in seen_ids and k not in seen_keys)

    async def grade_all() -> list[SampleRow]:
        semaphore = asyncio.Semaphore(8)

        async def one(problem: Problem, sample: int, response: str) -> SampleRow:
            row = SampleRow(problem_id=problem.id, variant=problem.variant, sample=sample, status="answered",
                            messages=task_obj.prompt(problem), completion=response, problem_meta=dict(problem.meta))
            async with semaphore:
                await grade_into_row(row, task_obj, problem, response, GradeContext(run_dir=run_dir, sample=sample))
            return row

        return await asyncio.gather(*(one(*m) for m in matched))

    rows = asyncio.run(grade_all())
    with RunStore(run_dir) as store:
        store.set_meta("task", task_obj.name)
        store.set_meta("model", model_label)
        store.set_meta("planned", {"problems": len(seen_ids), "samples": len(rows)})
        for row in rows:
            store.append(row)
    report.graded = len(rows)
    summary = summarize_run(task_obj, run_dir, model=model_label, config={"mode": "score"})
    return summary, report
