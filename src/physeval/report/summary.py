"""``summary.json`` of a run and its terminal table.

Layout: ``{"task", "model", "config", "counts": {"problems", "samples", "answered", "errors",
"planned_samples"}, "metrics": {NAME: M}, "breakdowns": {KEY: {VALUE: {NAME: M}}}, "notes": [...]}``
with ``M = {"value", "ci_low", "ci_high", "n" (problems), "n_samples"}``. ``metrics`` holds the
ungrouped metrics, ``breakdowns`` the grouped ones (e.g. ``["language"]["zh"]["accuracy"]``),
``notes`` what was omitted or left out and why (see :mod:`physeval.metrics` for the order of
reduction). Readers walk this structure with :func:`metric_entries`; no name encodes a group.
It is computed from the run store alone, so a resumed run's summary equals an uninterrupted run's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from physeval.metrics import MetricSet, Plan, outcomes_from_rows, with_plan
from physeval.store import RunStore
from physeval.tasks.base import Task

__all__ = [
    "SUMMARY_NAME",
    "MetricKey",
    "PLAN_META",
    "build_summary",
    "metric_entries",
    "print_summary",
    "read_summary",
    "run_plan",
    "write_summary",
]

SUMMARY_NAME = "summary.json"


def build_summary(task: Task, store: RunStore, *, model: str, config: dict[str, Any]) -> dict[str, Any]:
    """Counts and metrics (with bootstrap intervals) over every row in ``store``."""
    rows = store.rows()
    # Metrics stand on graded samples only: a request, grader or judge that failed measured
    # nothing. Those rows are counted under "errors" and make the run incomplete instead.
    outcomes = with_plan(outcomes_from_rows([r for r in rows if r.status == "answered"]), run_plan(store))
    metrics = task.metrics(outcomes)
    if not isinstance(metrics, MetricSet):  # a plugin task that still returns a plain mapping
        metrics = MetricSet(dict(metrics))
    reduced = metrics.to_dict()
    meta = store.run_meta()
    planned = meta.planned if meta is not None else {}
    errors = sum(r.status == "error" for r in rows)
    error_kinds: dict[str, int] = {}
    for r in rows:
        if r.error_kind:
            error_kinds[r.error_kind] = error_kinds.get(r.error_kind, 0) + 1
    outcome_counts: dict[str, int] = {}
    for r in rows:
        if r.outcome:
            outcome_counts[r.outcome] = outcome_counts.get(r.outcome, 0) + 1
    return {
        "task": task.name,
        "model": model,
        "config": {**config, "task": task.config()},
        "counts": {
            "problems": len({r.problem_id for r in rows}),
            "samples": len(rows),
            "answered": len(rows) - errors,
            "errors": errors,
            "planned_samples": planned.get("samples", len(rows)),
            "error_kinds": dict(sorted(error_kinds.items())),
            "outcomes": dict(sorted(outcome_counts.items())),
            "reasons": _reasons(rows),  # why each sample ended as it did (physeval.analysis.outcomes)
            # samples whose EED tree was scored unsimplified because a count ran out (grading.eed.TreeBudget)
            "budget": sum(1 for r in rows if r.grade and r.grade.get("budget")),
        },
        "metrics": reduced["metrics"],        # ungrouped, by name
        "breakdowns": reduced["breakdowns"],  # KEY -> VALUE -> NAME
        "notes": [*reduced["notes"], *_error_notes(error_kinds)],  # what was omitted or left out, and why
    }


def _error_notes(error_kinds: dict[str, int]) -> list[str]:
    """The note that error rows are left out of every metric (they measured nothing), by kind."""
    if not error_kinds:
        return []
    total = sum(error_kinds.values())
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(error_kinds.items()))
    return [f"{total} samples ended in an error ({kinds}) and are left out of every metric: they measured "
            "nothing (resume with --retry-errors; grader and judge errors can also be graded again with "
            "physeval regrade)"]


PLAN_META = "plan"


def run_plan(store: RunStore) -> Plan:
    """What the run in ``store`` set out to grade: the plan it recorded (meta ``plan``), or for a
    run that recorded none, the plan its rows imply (every item seen, as many samples as the fullest)."""
    recorded = store.get_meta(PLAN_META)
    if isinstance(recorded, dict):
        return Plan.from_dict(recorded)
    return Plan.covering(r.key for r in store.rows())


def _reasons(rows: list[Any]) -> dict[str, int]:
    from physeval.analysis.outcomes import outcome_breakdown

    return dict(outcome_breakdown(rows).counts)


def write_summary(run_dir: str | Path, summary: dict[str, Any]) -> Path:
    """Write ``summary.json`` atomically (temp file, then rename)."""
    path = Path(run_dir) / SUMMARY_NAME
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(_finite(summary), indent=2, ensure_ascii=False, allow_nan=False), encoding="utf-8")
    tmp.replace(path)
    return path


def _finite(value: Any) -> Any:
    """NaN and infinities are not JSON: they become null."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def read_summary(run_dir: str | Path) -> dict[str, Any]:
    """Load ``summary.json`` from a run directory."""
    path = Path(run_dir) / SUMMARY_NAME
    if not path.is_file():
        raise FileNotFoundError(f"no {SUMMARY_NAME} in {run_dir}: is it a physeval run directory?")
    return json.loads(path.read_text(encoding="utf-8"))


class MetricKey(NamedTuple):
    """Where a metric sits in a summary: its name, and for grouped metrics the group."""

    name: str
    key: str | None = None
    value: str | None = None

    @property
    def label(self) -> str:
        """For display only: ``accuracy`` or ``accuracy (language = zh)``."""
        return self.name if self.key is None else f"{self.name} ({self.key} = {self.value})"

    def lookup(self, summary: dict[str, Any]) -> dict[str, Any] | None:
        """This metric's entry in ``summary`` (``None`` when the run lacks it)."""
        if self.key is None:
            return (summary.get("metrics") or {}).get(self.name)
        groups = (summary.get("breakdowns") or {}).get(self.key) or {}
        return (groups.get(self.value) or {}).get(self.name)


def metric_entries(summary: dict[str, Any], *, breakdowns: bool = True) -> Iterator[tuple[MetricKey, dict[str, Any]]]:
    """Every metric of ``summary`` with its structured key: the ungrouped ones first, then each
    breakdown key, value and metric in the summary's order."""
    for name, entry in (summary.get("metrics") or {}).items():
        yield MetricKey(name), entry
    if breakdowns:
        for key, groups in (summary.get("breakdowns") or {}).items():
            for value, metrics in groups.items():
                for name, entry in metrics.items():
                    yield MetricKey(name, key, value), entry


def print_summary(summary: dict[str, Any], console: Console | None = None, *, breakdowns: bool = True) -> None:
    """The summary as rich tables: the ungrouped metrics, then one table per breakdown key, then
    the notes. Every row shows the problems (n) and samples it stands on."""
    console = console or Console()
    counts = summary["counts"]
    title = f"{summary['task']} · {summary['model']}"
    caption = (f"{counts['problems']} problems · {counts['samples']} samples "
               f"({counts['planned_samples']} planned) · {counts['answered']} answered · {counts['errors']} errors")
    table = _metric_table(title, caption, ())
    for name, m in (summary.get("metrics") or {}).items():
        table.add_row(escape(name), *_cells(m))
    console.print(table)
    for key, groups in (summary.get("breakdowns") or {}).items() if breakdowns else ():
        table = _metric_table(escape(f"by {key}"), None, (escape(key),))
        for value, metrics in groups.items():
            for i, (name, m) in enumerate(metrics.items()):
                table.add_row(escape(str(value)) if i == 0 else "", escape(name), *_cells(m))
            table.add_section()
        console.print(table)
    reasons = (summary.get("counts") or {}).get("reasons") or {}
    if reasons:
        total = sum(reasons.values())
        console.print("why samples ended: " + " · ".join(f"{name} {count} ({100 * count / total:.0f}%)"
                                                          for name, count in reasons.items()),
                      markup=False, highlight=False)
    for note in summary.get("notes") or ():
        console.print(f"note: {note}", markup=False, highlight=False)


def _metric_table(title: str, caption: str | None, lead: tuple[str, ...]) -> Table:
    table = Table(title=title, caption=caption)
    for column in lead:
        table.add_column(column)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    table.add_column("samples", justify="right")
    return table


def _cells(m: dict[str, Any]) -> tuple[str, str, str, str]:
    return (_fmt(m.get("value")), f"[{_fmt(m.get('ci_low'))}, {_fmt(m.get('ci_high'))}]", str(m.get("n", "")),
            str(m.get("n_samples", "")))


def _fmt(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4f}" if abs(value) < 10 else f"{value:.2f}"
