"""A run directory read once: its summary, its rows, its task, model and track.

Why: every analysis needs the same few facts about a run, and reading them in one place keeps
the analyses pure functions over :class:`~physeval.analysis.run.Run` values (tests build runs
from real stores). ``Run`` itself lives in :mod:`physeval.analysis.run` and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from physeval.analysis.run import Run
from physeval.errors import UserError
from physeval.store import RunStore, SampleRow

__all__ = ["Run", "load_run", "load_runs", "run_labels"]


def load_run(run_dir: str | Path) -> Run:
    """Read ``run_dir`` (``summary.json`` and the run store); a :class:`UserError` when it is not a run."""
    from physeval.plan import recorded_plan
    from physeval.summary import SUMMARY_NAME, read_summary

    path = Path(run_dir)
    if not RunStore.exists(path) or not (path / SUMMARY_NAME).is_file():
        raise UserError(f"{path}: not a physeval run directory (no samples.sqlite and summary.json)")
    summary = read_summary(path)
    with RunStore(path) as store:
        rows = tuple(store.rows())
        sha = store.get_meta("data_sha256", {}) or {}
        plan = recorded_plan(store, rows)
    task = summary.task
    variants: dict[str, Any] = {}
    for r in rows:
        variants.setdefault(r.problem_id, set()).add(r.variant)
    return Run(path=path, task=task, model=summary.model, track=_track(task, rows),
               dynamic=any(len(v) > 1 for v in variants.values()), summary=summary, rows=rows,
               data_sha256=dict(sha), plan=plan)


def load_runs(run_dirs: Sequence[str | Path]) -> list[Run]:
    """:func:`load_run` for each directory, in order."""
    return [load_run(d) for d in run_dirs]


def run_labels(runs: Sequence[Run]) -> list[str]:
    """A display label per run: the model, with the directory name added where models repeat."""
    models = [r.model for r in runs]
    return [r.model if models.count(r.model) == 1 else f"{r.model} ({r.path.name})" for r in runs]


def _track(task: str, rows: Sequence[SampleRow]) -> str:
    try:
        from physeval.tasks.registry import task_class

        return str(task_class(task).track)
    except Exception:  # noqa: BLE001 - an unregistered plugin task: read the grades instead
        if any("stage" in (r.grade or {}) for r in rows):
            return "scene"
        if any("eed_score" in (r.grade or {}) for r in rows):
            return "symbolic"
        return "numeric"
