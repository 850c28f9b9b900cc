"""A run's metric figures: one plot per scale, the scene funnel, static vs dynamic, per group."""

from __future__ import annotations

from typing import Any

from physeval.analysis.run import Run
from physeval.metrics import item_fraction, problem_values
from physeval.report import plots
from physeval.report.html.page import img, samples_k, scale

__all__ = ["funnel", "group_plots", "scale_plots", "static_dynamic"]

_TITLES = {"rate": ("rates (0-1)", (0.0, 1.0)), "difference": ("differences (static - dynamic)", None),
           "score": ("EED score (0-100)", (0.0, 100.0)), "tokens": ("judge tokens per judged sample", None),
           "seconds": ("judge seconds per judged sample", None)}


def scale_plots(run: Run) -> list[str]:
    """One bar plot per scale (rates, differences, EED, judge tokens, judge seconds never share an axis)."""
    by_scale: dict[str, dict[str, Any]] = {}
    for name, m in run.summary.metrics.items():
        if not run.dynamic and name.startswith(("static_", "dynamic_", "delta")):
            continue  # one variant per problem: static = dynamic, delta = 0 (still in the metrics table)
        if name.endswith("_rate") or name in ("accuracy", "static_accuracy", "dynamic_accuracy", "delta") or "@" in \
                name or name.startswith(("eed", "judge_")):
            if name.endswith("avg@" + str(samples_k(run.summary))) and name != "accuracy":
                continue  # avg@K is the rate itself, already drawn
            by_scale.setdefault(scale(name), {})[name] = m.to_dict()
    out = []
    for kind, (title, xlim) in _TITLES.items():
        if kind in by_scale:
            out.append(img(plots.metric_bars(by_scale[kind], title, xlim=xlim), f"metrics: {title}", f"scale-{kind}"))
    return out


def funnel(run: Run) -> str:
    """The scene stages as a funnel."""
    metrics = run.summary.metrics
    named = (("executable", "executable_rate"), ("rendered", "render_rate"), ("playable", "playable_rate"),
             ("judged correct", "accuracy"))
    stages = [(label, metrics[name].to_dict()) for label, name in named if name in metrics]
    return img(plots.funnel(stages, "share of samples reaching each stage"),
               "stage funnel (per-problem mean, 95% CI, n problems)", "funnel")


def static_dynamic(run: Run) -> str:
    """Per problem, static accuracy against dynamic accuracy (a scatter: every problem visible)."""
    outcomes = run.outcomes()
    static = problem_values(outcomes, item_fraction(), "static")
    dynamic = problem_values(outcomes, item_fraction(), "product")
    pairs = {pid: (static[pid][0], dynamic[pid][0]) for pid in static if pid in dynamic}
    return img(plots.static_dynamic_scatter(pairs, "static vs dynamic accuracy"),
               "static (variant 0) vs dynamic (every variant right) accuracy, per problem; a marker's area and "
               "label: the problems at that point; below the diagonal: lost to the variants", "static-dynamic")


def group_plots(run: Run) -> list[str]:
    """Per breakdown key, the accuracy (or playable rate, or EED) of each group with its interval."""
    out = []
    for key, groups in run.summary.breakdowns.items():
        for name, title, xlim in (("accuracy", "accuracy", (0.0, 1.0)), ("playable_rate", "playable rate", (0.0, 1.0)),
                                  ("eed_mean", "EED (0-100)", (0.0, 100.0))):
            values = {str(v): m[name].to_dict() for v, m in groups.items() if name in m}
            if name == "playable_rate" and any("accuracy" in m for m in groups.values()):
                continue
            if values:
                out.append(img(plots.metric_bars(values, f"{title} by {key}", xlim=xlim), f"{title} by {key}",
                               f"group-{key}-{name}"))
    return out
