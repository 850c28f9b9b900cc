"""The top of a run's report: the header line and the headline cards."""

from __future__ import annotations

from physeval.analysis.run import Run
from physeval.report.html.page import e, fmt_value, samples_k

__all__ = ["cards", "header", "headline_names"]

_HEADLINES = {
    "scene": ("executable_rate", "render_rate", "playable_rate", "accuracy", "pass@{k}"),
    "symbolic": ("accuracy", "eed_mean", "pass@{k}", "maj@{k}"),
    "dynamic": ("static_accuracy", "dynamic_accuracy", "delta", "accuracy"),
    "numeric": ("accuracy", "pass@{k}", "maj@{k}"),
}


def headline_names(run: Run) -> list[str]:
    """The metrics a run's headline cards show, in order (only those the run has)."""
    kind = "dynamic" if run.track == "numeric" and run.dynamic else run.track
    k = samples_k(run.summary)
    wanted = [n.format(k=k) for n in _HEADLINES.get(kind, ("accuracy",))]
    metrics = run.summary.metrics
    chosen = [n for n in dict.fromkeys(wanted) if n in metrics and (k > 1 or "@" not in n)]
    return chosen or list(metrics)[:4]


def cards(run: Run) -> str:
    """One card per headline metric: value, 95 % interval, problems and samples."""
    metrics = run.summary.metrics
    out = []
    for name in headline_names(run):
        m = metrics[name]
        out.append(f"<div class='card' data-metric='{e(name)}'><div class='name'>{e(name)}</div>"
                   f"<div class='value'>{fmt_value(name, m.value)}</div>"
                   f"<div class='ci'>95% CI [{fmt_value(name, m.ci_low)}, "
                   f"{fmt_value(name, m.ci_high)}]</div>"
                   f"<div class='n'>n = {e(m.n)} problems · {e(m.n_samples)} samples</div></div>")
    return f"<section id='headline' class='cards'>{''.join(out)}</section>"


def header(run: Run) -> str:
    """Task, model, completeness, counts and the run's directory."""
    counts = run.summary.counts
    status = ("<span class='status-complete'>complete</span>" if run.summary.complete else
              f"<span class='status-incomplete'>{e(run.summary.status.upper())}</span>")
    return (f"<header><h1>{e(run.task)} &middot; {e(run.model)}</h1><p class='sub'>{status} · "
            f"{e(counts.problems)} problems · {e(counts.samples)} samples "
            f"({e(counts.planned_samples)} planned) · {e(counts.errors)} errors · "
            f"{e(run.path)}</p></header>")
