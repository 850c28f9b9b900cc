"""Side-by-side comparison of several runs' summaries (the metrics they share)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rich.markup import escape
from rich.table import Table

from physeval.report.summary import MetricKey, metric_entries, read_summary

__all__ = ["compare_runs", "comparison_table"]


def compare_runs(run_dirs: Sequence[str | Path], *, breakdowns: bool = False,
                 ) -> tuple[list[MetricKey], list[dict[str, Any]]]:
    """The metrics present in every run, as structured keys in the first run's order (ungrouped
    ones first; with ``breakdowns`` the grouped ones too), and each run's summary."""
    summaries = [read_summary(d) for d in run_dirs]
    keys = [key for key, _ in metric_entries(summaries[0], breakdowns=breakdowns)
            if all(key.lookup(s) is not None for s in summaries[1:])]
    return keys, summaries


def comparison_table(run_dirs: Sequence[str | Path], *, breakdowns: bool = False) -> Table:
    """A rich table: one row per shared metric, one column per run (value, 95 % CI, problems)."""
    keys, summaries = compare_runs(run_dirs, breakdowns=breakdowns)
    table = Table(title="physeval compare")
    table.add_column("metric")
    for directory, summary in zip(run_dirs, summaries):
        table.add_column(f"{summary['model']}\n{Path(directory).name}", justify="right")
    for key in keys:
        table.add_row(escape(key.label), *(_cell(key.lookup(summary) or {}) for summary in summaries))
    return table


def _cell(m: dict[str, Any]) -> str:
    value, low, high, n = m.get("value"), m.get("ci_low"), m.get("ci_high"), m.get("n")
    if value is None:
        return "-"
    text = f"{value:.3f} [{low:.3f}, {high:.3f}]" if low is not None and high is not None else f"{value:.3f}"
    return f"{text} n={n}" if n is not None else text
