"""``physeval regrade``: a run's stored completions enter execution's grading again, no model called.

Why: a grader gets fixed, an option is changed (``compat``, ``rel_tol``, ``aggregation``), a
judge is swapped; none of that should cost a new generation. ``regrade_run`` rebuilds the task
from the options recorded in the run (overridden by the ones given), loads its problems, grades
every stored completion again (scene tasks render and re-judge), and writes the rows into the
same run or into a new run directory. Rows whose request had failed have no completion: they are
kept as they are. Each regrade is recorded in the run (``summary.json``'s provenance lists them).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.flow.execute import grade_rows
from physeval.flow.plan import load_problems
from physeval.flow.record import PLAN_META, jsonable, task_options_of
from physeval.flow.summarise import summarise_run
from physeval.interrupts import run_stoppable
from physeval.problems import Problem, with_ids
from physeval.provenance import utc_iso
from physeval.run_lock import hold_run_folder
from physeval.store import RunStore, SampleRow
from physeval.summary import RunSummary
from physeval.tasks.registry import get_task

__all__ = ["regrade_run", "RegradeReport"]


_COPIED_META = ("sessions", "settings_history", "regrades", PLAN_META)  # the plan: completeness is measured on it


@dataclass(frozen=True)
class RegradeReport:
    """What a regrade did: rows graded again, verdicts that changed, rows kept untouched."""

    regraded: int
    changed: int
    kept: int
    unmatched: int
    run_dir: Path


def regrade_run(run_dir: str | Path, *, out: str | Path | None = None,
                task_options: dict[str, Any] | None = None,
                concurrency: int = 8) -> tuple[RunSummary, RegradeReport]:
    """Grade the completions stored in ``run_dir`` again; return ``(summary, report)``.

    ``task_options`` override the recorded ones (``{"compat": "abench"}``); ``out`` writes into
    a new run directory (the original is left untouched) instead of in place.
    """
    source = Path(run_dir)
    if not RunStore.exists(source):
        raise UserError(f"{source}: no physeval run there")
    with hold_run_folder(Path(out) if out else source, "regrade"):  # one writer: in place, or the new folder
        return _regrade(source, out, task_options, concurrency)


def _regrade(source: Path, out: str | Path | None, task_options: dict[str, Any] | None,
             concurrency: int) -> tuple[RunSummary, RegradeReport]:
    with RunStore(source) as store:
        run_meta = store.run_meta()
        history_meta = {k: store.get_meta(k) for k in _COPIED_META}
        rows = store.rows()
    if run_meta is None:
        raise UserError(f"{source}: the run does not record its task")
    task = get_task(run_meta.task, **{**run_meta.task_options, **(task_options or {})})
    chosen = with_ids({r.problem_id for r in rows})  # only the problems the run holds are built
    problems: dict[tuple[str, str], Problem] = {p.key: p for p in load_problems(task, select=chosen)}
    target = Path(out) if out else source
    if out and RunStore.exists(target):
        raise UserError(f"{target} already holds a run: choose a new --out")
    jobs: list[tuple[SampleRow, Problem]] = []
    kept: list[SampleRow] = []
    unmatched = 0
    before = {r.key: (r.correct, r.outcome) for r in rows}
    for row in rows:
        problem = problems.get((row.problem_id, row.variant))
        if row.completion is None or problem is None:
            unmatched += problem is None
            kept.append(row)
            continue
        jobs.append((row.cleared(), problem))
    preflight = getattr(task, "preflight", None)
    if jobs and preflight is not None:  # a broken sandbox or a dead judge stops here, before any row is rewritten
        run_stoppable(preflight())
    graded = run_stoppable(grade_rows(task, jobs, target, concurrency=concurrency))
    changed = sum(1 for r in graded if before.get(r.key) != (r.correct, r.outcome))
    with RunStore(target) as store:
        if out:
            for key, value in history_meta.items():
                if value is not None:
                    store.set_meta(key, value)
            for row in kept:
                store.append(row)
        for row in graded:
            store.append(row)
        store.set_run_meta(dataclasses.replace(run_meta, task_options=jsonable(task_options_of(task))))
        history = store.get_meta("regrades", []) or []
        typed = {k.replace("-", "_"): getattr(task.opts, k.replace("-", "_")) for k in (task_options or {})}
        history.append({"at": utc_iso(time.time()), "from": str(source), "options": typed,
                        "regraded": len(graded), "changed": changed})
        store.set_meta("regrades", history)
    summary = summarise_run(task, target, model=run_meta.model, config=run_meta.config)
    return summary, RegradeReport(regraded=len(graded), changed=changed, kept=len(kept), unmatched=unmatched,
                                  run_dir=target)
