"""Matplotlib figures for the HTML report, returned as PNG bytes (Agg backend, no display)."""

from __future__ import annotations

import io
import math
from typing import Any, Mapping, Sequence

__all__ = ["metric_bars", "histogram", "count_bars"]


def _figure(width: float, height: float) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), dpi=110)


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def metric_bars(metrics: Mapping[str, Mapping[str, Any]], title: str) -> bytes | None:
    """Horizontal bars of metric values with their 95 % intervals as error bars."""
    items = [(n, m) for n, m in metrics.items() if _finite(m.get("value"))]
    if not items:
        return None
    fig, ax = _figure(7.5, 0.35 * len(items) + 1.2)
    names = [n for n, _ in items][::-1]
    values = [float(m["value"]) for _, m in items][::-1]
    low = [max(0.0, v - float(m["ci_low"])) if _finite(m.get("ci_low")) else 0.0
           for v, (_, m) in zip(values, items[::-1])]
    high = [max(0.0, float(m["ci_high"]) - v) if _finite(m.get("ci_high")) else 0.0
            for v, (_, m) in zip(values, items[::-1])]
    ax.barh(names, values, xerr=[low, high], color="#4C72B0", ecolor="#333333", capsize=3)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def histogram(values: Sequence[float], title: str, xlabel: str) -> bytes | None:
    """A histogram (e.g. request latency)."""
    data = [v for v in values if _finite(v)]
    if not data:
        return None
    fig, ax = _figure(6, 3)
    ax.hist(data, bins=min(40, max(5, int(math.sqrt(len(data))))), color="#55A868")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("samples")
    return _png(fig)


def count_bars(counts: Mapping[str, int], title: str) -> bytes | None:
    """Vertical bars of counts (e.g. grading outcomes)."""
    if not counts:
        return None
    fig, ax = _figure(6, 3)
    names = list(counts)
    ax.bar(names, [counts[n] for n in names], color="#C44E52")
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=30)
    return _png(fig)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)
