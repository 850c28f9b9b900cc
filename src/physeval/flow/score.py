"""``physeval score``: responses a user already has enter the run at its record, graded, then summarised.

Ids and variants are matched as strings; the plan is every variant of each problem the responses
name, K samples each (K: the largest sample index + 1). What it lacks (a missing response, an
exported row whose request had failed) makes the summary incomplete, and dynamic metrics leave
that problem out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.flow.execute import grade_rows
from physeval.flow.plan import load_problems, report_load
from physeval.flow.record import claim_run_dir, default_run_dir, record_rows, record_run
from physeval.flow.summarise import summarise_run
from physeval.imports import ForeignResponses
from physeval.interrupts import run_stoppable
from physeval.plan import Plan
from physeval.problems import Problem, with_ids
from physeval.responses import read_any_responses
from physeval.run_lock import hold_run_folder
from physeval.store import RunStore, SampleRow
from physeval.summary import RunSummary
from physeval.tasks.base import Task
from physeval.tasks.registry import get_task

__all__ = ["ScoreReport", "score_responses"]


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
    report_load(task_obj)
    run_dir = Path(run_dir) if run_dir else claim_run_dir(default_run_dir(task_obj.name, model_label))
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
        rows = run_stoppable(grade_rows(task_obj, jobs, run_dir))
        with RunStore(run_dir) as store:
            record_run(store, task_obj, model=model_label, config={"mode": "score"}, plan=plan)
            record_rows(store, [*rows, *failed])
        report.graded = len(rows)
        report.problems_named, report.task_problems = len(seen_ids), len({pid for pid, _ in problems})
        summary = summarise_run(task_obj, run_dir, model=model_label, config={"mode": "score"})
    return summary, report
