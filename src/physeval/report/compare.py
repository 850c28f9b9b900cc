"""Side-by-side comparison of several runs' summaries (the metrics they share)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rich.table import Table

from physeval.report.summary import read_summary

__all__ = ["compare_runs", "comparison_table"]


def compare_runs(run_dirs: Sequence[str | Path], *, breakdowns: bool = False) -> tuple[list[str], list[dict[str, Any]]]:
    """The metric names present in every run (in the first run's order) and each run's summary."""
    summaries = [read_summary(d) for d in run_dirs]
    names = [n for n in summaries[0]["metrics"] if all(n in s["metrics"] for s in summaries[1:])]
    if not breakdowns:
        names = [n for n in names if "/" not in n]
    return names, summaries


def comparison_table(run_dirs: Sequence[str | Path], *, breakdowns: bool = False) -> Table:
    """A rich table: one row per shared metric, one column per run (value and 95 % CI)."""
    names, summaries = compare_runs(run_dirs, breakdowns=breakdowns)
    table = Table(title="physeval compare")
    table.add_column("metric")
    for directory, summary in zip(run_dirs, summaries):
        table.add_column(f"{summary['model']}\n{Path(directory).name}", justify="right")
    for name in names:
        cells = []
        for summary in summaries:
            m = summary["metrics"][name]
            value, low, high = m.get("value"), m.get("ci_low"), m.get("ci_high")
            cells.append("-" if value is None else f"{value:.3f} [{low:.3f}, {high:.3f}]"
                         if low is not None and high is not None else f"{value:.3f}")
        table.add_row(name, *cells)
    return table
