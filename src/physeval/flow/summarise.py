"""The run's last step: its store -> one :class:`~physeval.summary.RunSummary`, written as ``summary.json``.

Why one function: every number of the summary (counts, metrics, completeness, provenance) is
computed here from one read of the run store, so no caller edits a half-built summary and a
resumed run's summary equals an uninterrupted run's. ``physeval run``, ``score`` and ``regrade``
all end here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from physeval.errors import RunAborted
from physeval.graded import graded_outcomes
from physeval.plan import PLAN_META, recorded_plan
from physeval.provenance import config_hash, environment, token_totals
from physeval.store import RunStore, SampleRow
from physeval.summary import (
    Aborted,
    Cost,
    Counts,
    Provenance,
    RunStatus,
    RunSummary,
    Session,
    Tokens,
    write_summary,
)
from physeval.tasks.base import Task

__all__ = ["summarise", "summarise_run"]

_FIRST_ERRORS = 5


def summarise(task: Task, store: RunStore, *, model: str, config: Mapping[str, Any],
              aborted: RunAborted | None = None) -> RunSummary:
    """The :class:`RunSummary` of every row in ``store`` (read once).

    ``complete`` only when every planned sample has a row and none is an error; ``status`` is
    ``complete``, ``incomplete`` (errors or missing samples) or ``aborted``. A run that recorded
    its plan counts as missing every planned sample without a row; an older run, its planned
    count minus its rows.
    """
    rows = store.rows()
    meta = store.run_meta()
    plan = recorded_plan(store, rows)
    sessions = tuple(_session(s) for s in store.get_meta("sessions", []) or [])
    settings_history = tuple(store.get_meta("settings_history", []) or [])
    regrades = tuple(store.get_meta("regrades", []) or [])

    # Metrics stand on graded samples only (physeval.graded); errors are counted below instead.
    metrics = task.measure(graded_outcomes(rows, plan))

    errors = [r for r in rows if r.status == "error"]
    error_kinds = Counter(r.error_kind for r in rows if r.error_kind)
    planned = (meta.planned if meta is not None else {}).get("samples", len(rows))
    if isinstance(store.get_meta(PLAN_META), dict):
        have = {r.key for r in rows}
        missing = sum((pid, v, s) not in have for pid, vs in plan.variants.items() for v in vs
                      for s in range(plan.samples))
    else:
        missing = max(0, planned - len(rows))
    counts = Counts(
        problems=len({r.problem_id for r in rows}), samples=len(rows), planned_samples=planned,
        graded=len(rows) - len(errors), errors=len(errors), missing=missing,
        error_kinds=dict(sorted(error_kinds.items())),
        outcomes=dict(sorted(Counter(r.outcome for r in rows if r.outcome).items())),
        reasons=_reasons(rows),
        budget=sum(1 for r in rows if r.grade and r.grade.get("budget")),
    )
    complete = not errors and missing == 0 and aborted is None
    status: RunStatus = "complete" if complete else ("aborted" if aborted is not None else "incomplete")
    full_config = {**config, "task": task.config()}
    tokens = _tokens(rows)
    provenance = Provenance(
        **environment(),
        data_sha256=dict(meta.data_sha256) if meta is not None else {},
        config_sha256=config_hash({"task": task.name, "model": model, "config": full_config}),
        started_at=sessions[0].started_at if sessions else None,
        ended_at=sessions[-1].ended_at if sessions else None,
        wall_s=round(sum(s.wall_s for s in sessions), 3),
        sessions=sessions, tokens=tokens, settings_history=settings_history, regrades=regrades,
        task=_task_provenance(task),
    )
    return RunSummary(
        task=task.name, model=model, config=full_config, counts=counts,
        metrics=dict(metrics.metrics), breakdowns=metrics.breakdowns,
        notes=(*metrics.notes, *_error_notes(counts.error_kinds)),
        status=status, first_errors=_first_errors(errors),
        aborted=Aborted(aborted.kind, str(aborted), aborted.hint) if aborted is not None else None,
        provenance=provenance, cost=_cost(config, tokens),
    )


def summarise_run(task: Task, run_dir: str | Path, *, model: str, config: Mapping[str, Any],
                  aborted: RunAborted | None = None) -> RunSummary:
    """:func:`summarise` the run in ``run_dir`` and write it as its ``summary.json``."""
    with RunStore(run_dir) as store:
        summary = summarise(task, store, model=model, config=config, aborted=aborted)
    write_summary(run_dir, summary)
    return summary


def _tokens(rows: Sequence[SampleRow]) -> Tokens:
    """Token totals, and the reasoning estimated from its text where the server did not count it."""
    estimated = samples = 0
    if any(r.reasoning for r in rows):  # numpy (physeval.analysis) only where there is reasoning
        from physeval.analysis.lengths import estimated_reasoning_total

        estimated, samples = estimated_reasoning_total(rows)
    return Tokens(**token_totals(r.usage for r in rows), reasoning_estimated=estimated,
                  reasoning_estimated_samples=samples)


def _session(data: Mapping[str, Any]) -> Session:
    known = Session.__dataclass_fields__
    return Session(**{k: v for k, v in data.items() if k in known})


def _first_errors(errors: Sequence[SampleRow]) -> tuple[str, ...]:
    first: list[str] = []
    for r in errors:
        message = f"{r.error_kind}: {r.error_message}"
        if message not in first:
            first.append(message)
        if len(first) >= _FIRST_ERRORS:
            break
    return tuple(first)


def _error_notes(error_kinds: Mapping[str, int]) -> list[str]:
    """The note that error rows are left out of every metric (they measured nothing), by kind."""
    if not error_kinds:
        return []
    total = sum(error_kinds.values())
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(error_kinds.items()))
    return [f"{total} samples ended in an error ({kinds}) and are left out of every metric: they measured "
            "nothing (resume with --retry-errors; grader and judge errors can also be graded again with "
            "physeval regrade)"]


def _reasons(rows: Sequence[SampleRow]) -> dict[str, int]:
    from physeval.analysis.outcomes import outcome_breakdown

    return dict(outcome_breakdown(rows).counts)


def _task_provenance(task: Task) -> dict[str, Any]:
    """What a task adds to the provenance (its optional ``provenance()`` hook)."""
    hook = getattr(task, "provenance", None)
    return dict(hook()) if callable(hook) else {}


def _cost(config: Mapping[str, Any], tokens: Tokens) -> Cost | None:
    price_in, price_out = config.get("price_in"), config.get("price_out")
    if price_in is None and price_out is None:
        return None
    total = ((price_in or 0.0) * tokens.prompt_tokens + (price_out or 0.0) * tokens.completion_tokens) / 1e6
    return Cost(price_in=price_in or 0.0, price_out=price_out or 0.0, total_usd=round(total, 6))
