"""Grade a finished run again from its stored completions, without calling the model.

Why: a grader gets fixed, an option is changed (``compat``, ``rel_tol``, ``aggregation``), a
judge is swapped; none of that should cost a new generation. ``regrade_run`` rebuilds the task
from the options recorded in the run (overridden by the ones given), loads its problems, grades
every stored completion again (scene tasks render and re-judge), and writes the rows into the
same run or into a new run directory. Rows whose request had failed have no completion: they are
kept as they are. Each regrade is recorded in the run (``summary.json``'s provenance lists them).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.evaluate import grade_rows, load_problems, summarize_run, task_options_of
from physeval.problems import Problem
from physeval.provenance import utc_iso
from physeval.store import RunStore, SampleRow
from physeval.tasks.registry import get_task

__all__ = ["regrade_run", "RegradeReport"]

_COPIED_META = ("task", "model", "config", "task_options", "settings", "planned", "data_sha256", "sessions",
                "invocation")


@dataclass(frozen=True)
class RegradeReport:
    """What a regrade did: rows graded again, verdicts that changed, rows kept untouched."""

    regraded: int
    changed: int
    kept: int
    unmatched: int
    run_dir: Path


def regrade_run(run_dir: str | Path, *, out: str | Path | None = None,
                task_options: dict[str, Any] | None = None, concurrency: int = 8) -> tuple[dict[str, Any], RegradeReport]:
    """Grade the completions stored in ``run_dir`` again; return ``(summary, report)``.

    ``task_options`` override the recorded ones (``{"compat": "abench"}``); ``out`` writes into
    a new run directory (the original is left untouched) instead of in place.
    """
    source = Path(run_dir)
    if not RunStore.exists(source):
        raise UserError(f"{source}: no physeval run there")
    with RunStore(source) as store:
        task_name = store.get_meta("task")
        recorded = store.get_meta("task_options", {}) or {}
        model = store.get_meta("model", "model")
        config = store.get_meta("config", {}) or {}
        meta = {k: store.get_meta(k) for k in _COPIED_META}
        rows = store.rows()
    if not task_name:
        raise UserError(f"{source}: the run does not record its task")
    options = {**recorded, **(task_options or {})}
    task = get_task(task_name, **options)
    problems: dict[tuple[str, str], Problem] = {p.key: p for p in load_problems(task)}
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
    graded = asyncio.run(grade_rows(task, jobs, target, concurrency=concurrency))
    changed = sum(1 for r in graded if before.get(r.key) != (r.correct, r.outcome))
    with RunStore(target) as store:
        if out:
            for key, value in meta.items():
                if value is not None:
                    store.set_meta(key, value)
            for row in kept:
                store.append(row)
        for row in graded:
            store.append(row)
        store.set_meta("task_options", {k: (str(v) if isinstance(v, Path) else v) for k, v in task_options_of(task).items()})
        history = store.get_meta("regrades", []) or []
        typed = {k.replace("-", "_"): getattr(task.opts, k.replace("-", "_")) for k in (task_options or {})}
        history.append({"at": utc_iso(time.time()), "from": str(source), "options": typed,
                        "regraded": len(graded), "changed": changed})
        store.set_meta("regrades", history)
    summary = summarize_run(task, target, model=str(model), config=config)
    return summary, RegradeReport(regraded=len(graded), changed=changed, kept=len(kept), unmatched=unmatched,
                                  run_dir=target)
