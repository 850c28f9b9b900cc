"""``summary.json`` of a run and its terminal table.

Layout: ``{"task", "model", "config", "counts": {"problems", "samples", "answered", "errors",
"planned_samples"}, "metrics": {NAME: {"value", "ci_low", "ci_high", "n"}}}``. It is computed
from the run store alone, so a resumed run's summary equals an uninterrupted run's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from physeval.metrics import outcomes_from_rows
from physeval.store import RunStore
from physeval.tasks.base import Task

__all__ = ["build_summary", "write_summary", "read_summary", "print_summary", "SUMMARY_NAME"]

SUMMARY_NAME = "summary.json"


def build_summary(task: Task, store: RunStore, *, model: str, config: dict[str, Any]) -> dict[str, Any]:
    """Counts and metrics (with bootstrap intervals) over every row in ``store``."""
    rows = store.rows()
    outcomes = outcomes_from_rows(rows)
    metrics = task.metrics(outcomes)
    planned = store.get_meta("planned", {}) or {}
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
        },
        # headline metrics first, then per-group breakdowns (``key=value/metric``)
        "metrics": {name: m.to_dict() for name, m in sorted(metrics.items(), key=lambda kv: "/" in kv[0])},
    }


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


def print_summary(summary: dict[str, Any], console: Console | None = None, *, breakdowns: bool = True) -> None:
    """The summary as a rich table: headline metrics first, then breakdowns."""
    console = console or Console()
    counts = summary["counts"]
    title = f"{summary['task']} · {summary['model']}"
    caption = (f"{counts['problems']} problems · {counts['samples']} samples "
               f"({counts['planned_samples']} planned) · {counts['answered']} answered · {counts['errors']} errors")
    table = Table(title=title, caption=caption)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    for name, m in summary["metrics"].items():
        if "/" in name and not breakdowns:
            continue
        table.add_row(name, _fmt(m["value"]), f"[{_fmt(m['ci_low'])}, {_fmt(m['ci_high'])}]", str(m.get("n", "")))
    console.print(table)


def _fmt(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4f}" if abs(value) < 10 else f"{value:.2f}"
