"""One run's report: headline cards, figures, fits, outcomes, lengths, every metric, then the samples."""

from __future__ import annotations

from pathlib import Path

from physeval.analysis.lengths import response_lengths
from physeval.analysis.outcomes import run_breakdown
from physeval.analysis.runs import load_run
from physeval.analysis.scaling import scaling_curves
from physeval.report.html.headline import cards, header
from physeval.report.html.lengths import length_section
from physeval.report.html.metric_plots import funnel, group_plots, scale_plots, static_dynamic
from physeval.report.html.metrics_table import configuration, metrics_table
from physeval.report.html.outcomes import outcome_section
from physeval.report.html.page import document, grid, samples_k, section
from physeval.report.html.samples import sample_browser
from physeval.report.html.scaling import curves_section

__all__ = ["REPORT_NAME", "write_html_report"]

REPORT_NAME = "report.html"


def write_html_report(run_dir: str | Path, path: str | Path | None = None, *, breakdowns: bool = True) -> Path:
    """Write ``report.html`` for the run in ``run_dir`` (or to ``path``) and return its path.

    ``breakdowns=False`` (``report --no-breakdowns``) leaves out the per-group figures and rows.
    """
    run = load_run(run_dir)
    parts = [header(run), cards(run)]
    figures = scale_plots(run)
    if run.track == "scene":
        figures.append(funnel(run))
    parts.append(section("metric-plots", "Metrics, one plot per scale", grid(figures)))
    if run.dynamic:
        parts.append(section("static-dynamic", "Static vs dynamic, problem by problem", static_dynamic(run)))
    if breakdowns:
        parts.append(section("groups", "By group", grid(group_plots(run))))
    if samples_k(run.summary) > 1:
        parts.append(section("scaling", "Test-time scaling", curves_section([scaling_curves(run)])))
    parts.append(section("outcome-breakdown", "Why samples ended as they did", outcome_section([run_breakdown(run)])))
    parts.append(section("lengths", "Response lengths", length_section([response_lengths(run.rows, run.model)])))
    parts.append(section("all-metrics", "Every metric", metrics_table(run.summary, breakdowns=breakdowns)))
    parts.append(section("configuration", "Configuration", configuration(run.summary)))
    parts.append(section("samples", "Samples", sample_browser(run)))
    out = Path(path) if path else run.path / REPORT_NAME
    out.write_text(document(f"physeval: {run.task} · {run.model}", "run", parts), encoding="utf-8")
    return out
