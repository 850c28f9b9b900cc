"""Comparing runs in the terminal: side by side (the metrics they share), paired by problem
(differences, sign-flip p-values, bootstrap intervals where valid, tiers), and matched at a
scene stage. Columns fold long model names onto several lines instead of cutting them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from physeval.analysis.paired import BOOTSTRAP_MIN_PROBLEMS, p_text, percent_text
from physeval.metrics import Metric
from physeval.summary import MetricKey, RunSummary, read_summary

__all__ = ["compare_runs", "comparison_table", "default_metric", "matched_table", "paired_report", "paired_table"]


def compare_runs(run_dirs: Sequence[str | Path], *, breakdowns: bool = False,
                 ) -> tuple[list[MetricKey], list[RunSummary]]:
    """The metrics present in every run, as structured keys in the first run's order (ungrouped
    ones first; with ``breakdowns`` the grouped ones too), and each run's summary."""
    summaries = [read_summary(d) for d in run_dirs]
    keys = [key for key, _ in summaries[0].entries(breakdowns=breakdowns)
            if all(s.metric(key) is not None for s in summaries[1:])]
    return keys, summaries


def comparison_table(run_dirs: Sequence[str | Path], *, breakdowns: bool = False) -> Table:
    """A rich table: one row per shared metric, one column per run (value, 95 % CI, problems)."""
    keys, summaries = compare_runs(run_dirs, breakdowns=breakdowns)
    table = Table(title="physeval compare")
    table.add_column("metric", overflow="fold")
    for directory, summary in zip(run_dirs, summaries):
        table.add_column(f"{escape(summary.model)}\n{escape(Path(directory).name)}", justify="right",
                         overflow="fold")
    for key in keys:
        table.add_row(escape(key.label), *(_cell(summary.metric(key)) for summary in summaries))
    return table


def _cell(m: Metric | None) -> str:
    if m is None or math.isnan(m.value):
        return "-"
    low, high = m.ci_low, m.ci_high
    text = f"{m.value:.3f} [{low:.3f}, {high:.3f}]" if not (math.isnan(low) or math.isnan(high)) else f"{m.value:.3f}"
    return f"{text} n={m.n}"


def default_metric(runs: Sequence[Any]) -> str:
    """What to pair on when no metric is named: accuracy, or the playable rate for unjudged scenes."""
    if runs and runs[0].track == "scene" and "accuracy" not in runs[0].summary.metrics:
        return "playable_rate"
    return "accuracy"


def paired_table(comparison: Any) -> Table:
    """A :class:`~physeval.analysis.paired.Comparison` as a rich table, tiers and overlap in the caption."""
    tiers = "; ".join(f"tier {i + 1}: {', '.join(t)}" for i, t in enumerate(comparison.tiers))
    partial = [p for p in comparison.pairs if p.overlap.partial]
    caption = f"tiers at {100 * comparison.level:.0f}% confidence: {tiers}"
    for p in partial:
        caption += (f"\n{p.a} vs {p.b}: partial overlap, {p.overlap.common_items} common items, "
                    f"{p.overlap.only_a} only in {p.a}, {p.overlap.only_b} only in {p.b}")
    for method in dict.fromkeys(m for p in comparison.pairs for m in (p.test, p.interval)):
        caption += f"\n{method}"
    table = Table(title=f"paired by problem: {escape(comparison.metric)}", caption=escape(caption))
    for i, column in enumerate(("A", "B", "value A", "value B", "A - B [95% CI]", "p", "A better", "n")):
        table.add_column(column, justify="left" if i < 2 else "right", overflow="fold")
    for p in comparison.pairs:
        table.add_row(escape(p.a), escape(p.b), f"{p.value_a:.3f}", f"{p.value_b:.3f}", _diff_text(p),
                      p_text(p.p_value), percent_text(p.confidence), str(p.n))
    return table


def _diff_text(p: Any) -> str:
    """``+0.200 [+0.050, +0.350]``, or the difference alone when there is no interval (few problems)."""
    if math.isfinite(p.ci_low) and math.isfinite(p.ci_high):
        return f"{p.diff:+.3f} [{p.ci_low:+.3f}, {p.ci_high:+.3f}]"
    return f"{p.diff:+.3f} (no interval, n < {BOOTSTRAP_MIN_PROBLEMS})"


def matched_table(result: Any) -> Table:
    """A :class:`~physeval.analysis.matched.MatchedStage` as a rich table, the subset size in the title."""
    names = list(dict.fromkeys(name for r in result.runs for name, _ in r.metrics))
    table = Table(title=f"matched at {escape(result.stage)}: {result.size} of {result.common} common samples "
                        f"({result.problems} problems) reached it in every run")
    table.add_column("model", overflow="fold")
    for name in names:
        table.add_column(escape(name), justify="right", overflow="fold")
    for r in result.runs:
        metrics = dict(r.metrics)
        table.add_row(escape(r.label), *(_cell(metrics.get(n)) for n in names))
    return table


def paired_report(run_dirs: Sequence[str | Path], *, metric: str | None = None, matched: str | None = None,
                  ) -> list[Table]:
    """The tables ``physeval compare`` prints after the side-by-side one: the paired comparison
    (two runs or more) and, with ``matched``, the matched-stage table. Pairing refusals raise
    :class:`~physeval.analysis.paired.PairingError` with the reason."""
    from physeval.analysis.matched import matched_stage
    from physeval.analysis.paired import compare_runs as paired
    from physeval.analysis.runs import load_runs

    runs = load_runs(run_dirs)
    tables = []
    if len(runs) >= 2:
        tables.append(paired_table(paired(runs, metric or default_metric(runs))))
    if matched:
        tables.append(matched_table(matched_stage(runs, matched)))
    return tables
