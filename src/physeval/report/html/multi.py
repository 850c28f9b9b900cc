"""The report over several runs: leaderboards, paired comparisons with tiers, statistics, curves,
outcomes and lengths per model, matched-stage tables for scenes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from physeval.analysis.leaderboard import board_html, leaderboards
from physeval.analysis.lengths import run_lengths
from physeval.analysis.matched import STAGES
from physeval.analysis.outcomes import breakdowns_by_model
from physeval.analysis.paired import PairingError, compare_runs
from physeval.analysis.run import Run
from physeval.analysis.runs import load_runs, run_labels
from physeval.analysis.scaling import scaling_curves
from physeval.errors import UserError
from physeval.report.html.comparison import PAIRED_METRICS, comparison_html
from physeval.report.html.lengths import length_section
from physeval.report.html.matched import matched_html
from physeval.report.html.outcomes import outcome_section
from physeval.report.html.page import document, e, samples_k, section
from physeval.report.html.scaling import curves_section
from physeval.report.html.statistics import efficiency_html, robustness_html

__all__ = ["MULTI_REPORT_NAME", "write_multi_report"]

MULTI_REPORT_NAME = "physeval-report.html"


def _by_task(runs: Sequence[Run]) -> dict[str, list[Run]]:
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(f"{run.task}{' (dynamic)' if run.dynamic else ''}", []).append(run)
    return groups


def write_multi_report(run_dirs: Sequence[str | Path], path: str | Path, *, robustness: bool = False) -> Path:
    """Write one report over several runs. ``robustness`` adds PHYBench's C.2 / Table 6 for
    symbolic runs (it rescores every sample six times: minutes, not seconds)."""
    runs = load_runs(run_dirs)
    if not runs:
        raise UserError("a multi-run report needs at least one run")
    models, tasks = ", ".join(dict.fromkeys(r.model for r in runs)), ", ".join(dict.fromkeys(r.task for r in runs))
    parts = [f"<header><h1>physeval: {len(runs)} runs</h1><p class='sub'>models: {e(models)} · "
             f"tasks: {e(tasks)}</p></header>"]
    parts.append(section("leaderboards", "Leaderboards", "".join(board_html(b) for b in leaderboards(runs))))
    groups = _by_task(runs)
    comparisons, statistics, curves_parts, matched_parts = [], [], [], []
    for task, group in groups.items():
        if len(group) >= 2:
            block = []
            for metric in PAIRED_METRICS.get(group[0].track, lambda r: ["accuracy"])(group[0]):
                try:
                    block.append(comparison_html(compare_runs(group, metric)))
                except PairingError as exc:
                    block.append(f"<p class='bad'>{e(metric)} not paired: {e(exc)}</p>")
            comparisons.append(f"<h3>{e(task)}</h3>{''.join(block)}")
            if group[0].track == "symbolic":
                stats = "<h4>sample efficiency of EED over accuracy</h4>" + efficiency_html(group)
                if robustness:
                    stats += "<h4>robustness to EED's constants (PHYBench C.2, Table 6)</h4>" + robustness_html(group)
                statistics.append(f"<h3>{e(task)}</h3>{stats}")
        if max((samples_k(r.summary) for r in group), default=1) > 1:
            labels = run_labels(group)
            curves_parts.append(f"<h3>{e(task)}</h3>" + curves_section([scaling_curves(r, label=lab)
                                                                        for r, lab in zip(group, labels)]))
        if group[0].track == "scene" and len(group) >= 2:
            matched_parts.append(f"<h3>{e(task)}</h3>" + "".join(matched_html(group, stage) for stage in STAGES))
    parts.append(section("comparison", "Paired comparison", "".join(comparisons)))
    parts.append(section("statistics", "Sample efficiency and robustness (PHYBench)", "".join(statistics)))
    parts.append(section("scaling", "Test-time scaling", "".join(curves_parts)))
    parts.append(section("outcome-breakdown", "Why samples ended as they did, per task and model", "".join(
        f"<h3>{e(task)}</h3>" + outcome_section(breakdowns_by_model(group)) for task, group in groups.items())))
    parts.append(section("lengths", "Response lengths, per task and model", "".join(
        f"<h3>{e(task)}</h3>" + length_section(run_lengths(group)) for task, group in groups.items())))
    parts.append(section("matched", "Matched-stage analysis (SimuScene Table 9)", "".join(matched_parts)))
    listing = "".join(f"<li>{e(r.model)} · {e(r.task)} · <code>{e(r.path)}</code></li>" for r in runs)
    parts.append(section("runs", "Runs", f"<ul>{listing}</ul>"))
    out = Path(path)
    out.write_text(document(f"physeval: {len(runs)} runs", "multi", parts), encoding="utf-8")
    return out
