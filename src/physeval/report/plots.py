"""Matplotlib figures for the HTML reports, returned as PNG bytes (Agg backend, no display).

One figure per scale: rates (0-1), differences, EED (0-100), tokens and seconds never share an
axis. Every figure states what its bars and whiskers are and the n they stand on. Each function
returns ``None`` when it has nothing to draw, so the report simply leaves the figure out.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "REASON_COLOURS",
    "accuracy_by_length",
    "count_bars",
    "funnel",
    "histogram",
    "length_histogram",
    "metric_bars",
    "outcome_bars",
    "paired_dots",
    "scaling_plot",
    "static_dynamic_scatter",
]

_BLUE, _ORANGE, _GREY = "#4C72B0", "#DD8452", "#555555"
_PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C")
REASON_COLOURS = {
    "correct": "#2E7D32", "wrong": "#C62828", "dimension_mismatch": "#EF6C00", "unparseable": "#AD1457",
    "ambiguous": "#6A1B9A", "no_answer": "#9E9E9E", "undecided": "#795548", "timeout": "#5D4037",
    "cut_off": "#F9A825", "no_code": "#BDBDBD", "sandbox_error": "#37474F", "render_timeout": "#5D4037",
    "runtime_error": "#D84315", "no_video": "#FF8A65", "not_playable": "#FFB74D", "not_judged": "#90A4AE",
    "judge_unreadable": "#4A148C", "judged_wrong": "#C62828", "ungraded": "#78909C", "grader_error": "#000000",
    "request_error": "#455A64",
}


def _figure(width: float, height: float) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from physeval.report.fonts import plot_families

    matplotlib.rcParams["font.family"] = plot_families()  # Chinese labels: a CJK font after DejaVu Sans

    return plt.subplots(figsize=(width, height), dpi=100)


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _errors(items: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[list[float], list[float], list[float]]:
    values = [float(m["value"]) for _, m in items]
    low = [max(0.0, v - float(m["ci_low"])) if _finite(m.get("ci_low")) else 0.0 for v, (_, m) in zip(values, items)]
    high = [max(0.0, float(m["ci_high"]) - v) if _finite(m.get("ci_high")) else 0.0
            for v, (_, m) in zip(values, items)]
    return values, low, high


def metric_bars(metrics: Mapping[str, Mapping[str, Any]], title: str, *, xlim: tuple[float, float] | None = None,
                xlabel: str = "", color: str = _BLUE) -> bytes | None:
    """Horizontal bars of metric values with their 95 % intervals, each labelled with its n."""
    items = [(n, m) for n, m in metrics.items() if _finite(m.get("value"))][::-1]
    if not items:
        return None
    fig, ax = _figure(7.5, 0.38 * len(items) + 1.3)
    values, low, high = _errors(items)
    names = [n for n, _ in items]
    ax.barh(names, values, xerr=[low, high], color=color, ecolor="#333333", capsize=3)
    for i, (_, m) in enumerate(items):
        ax.annotate(f"n={m.get('n', '?')}", (1.0, i), xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=8, color=_GREY)
    if xlim:
        ax.set_xlim(*xlim)
    ax.set_title(title)
    ax.set_xlabel(xlabel or "value (whiskers: 95% bootstrap CI over problems)")
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def funnel(stages: Sequence[tuple[str, Mapping[str, Any]]], title: str = "stage funnel") -> bytes | None:
    """The scene stages as a funnel: each bar the share that got that far, its 95 % interval and n in the label."""
    items = [(n, m) for n, m in stages if _finite(m.get("value"))]
    if not items:
        return None
    fig, ax = _figure(7.5, 0.5 * len(items) + 1.3)
    values = [float(m["value"]) for _, m in items]
    y = list(range(len(items)))[::-1]
    ax.barh(y, values, color=_PALETTE[: len(items)], left=[(1 - v) / 2 for v in values])
    ax.set_yticks(y, [n for n, _ in items])
    for yi, v, (_, m) in zip(y, values, items):
        ci = (f" [{100 * m['ci_low']:.0f}, {100 * m['ci_high']:.0f}]" if _finite(m.get("ci_low"))
              and _finite(m.get("ci_high")) else "")
        ax.text(0.5, yi, f"{100 * v:.0f}%{ci}  n={m.get('n', '?')}", ha="center", va="center", fontsize=9,
                fontweight="bold", color="white" if v > 0.35 else "#222222")
    ax.set_xlim(0, 1)
    ax.set_xticks([])
    ax.set_title(title, fontsize=10)
    return _png(fig)


def paired_dots(pairs: Mapping[str, tuple[float, float]], title: str, labels: tuple[str, str] = ("static", "dynamic"),
                ) -> bytes | None:
    """Per problem, two values joined by a line (e.g. static vs dynamic accuracy), sorted by the first."""
    if not pairs:
        return None
    ordered = sorted(pairs.items(), key=lambda kv: (kv[1][0], kv[1][1]))
    fig, ax = _figure(7.5, min(0.2 * len(ordered) + 1.5, 14))
    for i, (_, (a, b)) in enumerate(ordered):
        ax.plot([a, b], [i, i], color="#BBBBBB", lw=1, zorder=1)
    ax.scatter([a for _, (a, _) in ordered], range(len(ordered)), color=_BLUE, label=labels[0], zorder=2, s=18)
    ax.scatter([b for _, (_, b) in ordered], range(len(ordered)), color=_ORANGE, label=labels[1], zorder=3, s=18)
    ax.set_yticks(range(len(ordered)), [pid for pid, _ in ordered], fontsize=6 if len(ordered) > 30 else 8)
    ax.set_xlim(-0.05, 1.05)
    ax.set_xlabel("per-problem value")
    ax.set_title(f"{title} (n={len(ordered)} problems)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def static_dynamic_scatter(pairs: Mapping[str, tuple[float, float]], title: str) -> bytes | None:
    """Per problem, static accuracy (x) against dynamic accuracy (y): one marker per distinct
    point, its area and label the number of problems there, so no problem hides under another.
    Points below the diagonal lost accuracy when the variants were asked."""
    if not pairs:
        return None
    from collections import Counter

    counts = Counter((round(a, 6), round(b, 6)) for a, b in pairs.values())
    fig, ax = _figure(6.0, 5.0)
    ax.plot([0, 1], [0, 1], color="#BBBBBB", lw=1, zorder=1, label="static = dynamic")
    xs, ys, ns = zip(*((a, b, n) for (a, b), n in counts.items()))
    ax.scatter(xs, ys, s=[30 + 25 * n for n in ns], color=_BLUE, alpha=0.6, edgecolor="white", zorder=2)
    for x, y, n in zip(xs, ys, ns):
        if n > 1:
            ax.annotate(str(n), (x, y), ha="center", va="center", fontsize=8, color="white", fontweight="bold",
                        zorder=3)
    ax.set_xlim(-0.06, 1.06)
    ax.set_ylim(-0.06, 1.06)
    ax.set_xlabel("static accuracy (variant 0)")
    ax.set_ylabel("dynamic accuracy (every variant)")
    ax.set_title(f"{title} (n={len(pairs)} problems)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    return _png(fig)


def scaling_plot(curves: Sequence[Any], kind: str = "pass", title: str | None = None) -> bytes | None:
    """pass@k (or maj@k) for k = 1..K per model with its 95 % band, the decay fit dashed and its
    extrapolations with their resampling intervals."""
    drawn = [(c, getattr(c, f"{kind}_at"), getattr(c, f"{kind}_fit")) for c in curves if getattr(c, f"{kind}_at")]
    if not drawn:
        return None
    fig, ax = _figure(7.5, 4)
    import numpy as np

    for i, (curve, points, fit) in enumerate(drawn):
        colour = _PALETTE[i % len(_PALETTE)]
        ks = [p.k for p in points]
        ax.plot(ks, [p.value for p in points], "o-", color=colour, label=f"{curve.label} (n={points[0].n})")
        ax.fill_between(ks, [p.ci_low for p in points], [p.ci_high for p in points], color=colour, alpha=0.15)
        if fit is not None and fit.describes_data:  # a fit that does not describe the data is not drawn
            top = max([ks[-1], *(e.k for e in fit.extrapolations)])
            grid = np.linspace(1, top, 200)
            ax.plot(grid, [fit.predict(k) for k in grid], "--", color=colour, lw=1)
            for e in fit.extrapolations:
                if _finite(e.ci_low):
                    ax.errorbar([e.k], [e.value], yerr=[[max(0.0, e.value - e.ci_low)],
                                                        [max(0.0, e.ci_high - e.value)]], fmt="s",
                                color=colour, capsize=3, ms=4, mfc="white")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k (samples)")
    ax.set_ylabel(f"{kind}@k")
    ax.set_ylim(0, 1.02)
    ax.set_title(title or f"{kind}@k: bands 95% CI; dashed: exponential-decay fit; squares: extrapolation")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def outcome_bars(breakdowns: Sequence[Any], title: str = "why samples ended as they did") -> bytes | None:
    """Stacked horizontal bars: the share of each reason, one bar per run or model, n on the right."""
    drawn = [b for b in breakdowns if b.total]
    if not drawn:
        return None
    fig, ax = _figure(8.5, max(0.55 * len(drawn) + 1.4, 2.6))
    reasons = list(dict.fromkeys(r for b in drawn for r, _ in b.counts))
    for yi, b in enumerate(drawn[::-1]):
        left = 0.0
        counts = dict(b.counts)
        for reason in reasons:
            share = counts.get(reason, 0) / b.total
            if share:
                ax.barh(yi, share, left=left, color=REASON_COLOURS.get(reason, "#777777"), edgecolor="white")
                left += share
        ax.annotate(f"n={b.total}", (1.0, yi), xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=8, color=_GREY)
    ax.set_yticks(range(len(drawn)), [b.label for b in drawn[::-1]])
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of samples")
    ax.set_title(title)
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=REASON_COLOURS.get(r, "#777777"), label=r) for r in reasons], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.08, 1.0), borderaxespad=0.0, title="reason", title_fontsize=8)
    return _png(fig)


def length_histogram(series: Sequence[tuple[str, Sequence[int]]], title: str) -> bytes | None:
    """Token-count distributions, one outlined histogram per model (n in the legend)."""
    drawn = [(label, list(values)) for label, values in series if values]
    if not drawn:
        return None
    fig, ax = _figure(7.5, 3.4)
    everything = [v for _, values in drawn for v in values]
    bins = min(30, max(5, int(math.sqrt(len(everything)))))
    styles = ("-", "--", ":", "-.")
    for i, (label, values) in enumerate(drawn):
        colour = _PALETTE[i % len(_PALETTE)]
        ax.hist(values, bins=bins, range=(min(everything), max(everything)), histtype="stepfilled", alpha=0.18,
                color=colour)
        ax.hist(values, bins=bins, range=(min(everything), max(everything)), histtype="step", lw=1.8,
                linestyle=styles[i % len(styles)], color=colour, label=f"{label} (n={len(values)})")
    ax.set_xlabel("tokens")
    ax.set_ylabel("samples")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _png(fig)


def accuracy_by_length(series: Sequence[Any], title: str = "accuracy by completion length") -> bytes | None:
    """Accuracy in equal-count length bins per model, each point labelled with its n."""
    drawn = [s for s in series if s.accuracy_by_length]
    if not drawn:
        return None
    fig, ax = _figure(7.5, 3.4)
    for i, s in enumerate(drawn):
        xs = [(b.low + b.high) / 2 for b in s.accuracy_by_length]
        ys = [b.accuracy for b in s.accuracy_by_length]
        ax.plot(xs, ys, "o-", color=_PALETTE[i % len(_PALETTE)], label=s.label)
        for x, y, b in zip(xs, ys, s.accuracy_by_length):  # each model's counts at its own height: no overlap
            ax.annotate(f"{b.n}", (x, y), xytext=(0, 6 + 9 * i), textcoords="offset points", fontsize=7,
                        ha="center", color=_PALETTE[i % len(_PALETTE)])
    ax.set_ylim(-0.02, 1.08 + 0.06 * len(drawn))
    ax.set_xlabel("completion tokens (bin middle; labels: samples per bin)")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def histogram(values: Sequence[float], title: str, xlabel: str) -> bytes | None:
    """A histogram (e.g. request latency), n in the title."""
    data = [v for v in values if _finite(v)]
    if not data:
        return None
    fig, ax = _figure(6, 3)
    ax.hist(data, bins=min(40, max(5, int(math.sqrt(len(data))))), color="#55A868")
    ax.set_title(f"{title} (n={len(data)})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("samples")
    return _png(fig)


def count_bars(counts: Mapping[str, int], title: str) -> bytes | None:
    """Vertical bars of counts."""
    if not counts:
        return None
    fig, ax = _figure(6, 3)
    names = list(counts)
    ax.bar(names, [counts[n] for n in names], color="#C44E52")
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=30)
    return _png(fig)
