"""Paired comparisons in a report: differences, p-values, confidence, intervals, methods, tiers."""

from __future__ import annotations

import math
from collections.abc import Callable

from physeval.analysis.paired import Comparison, p_text, percent_text
from physeval.analysis.run import Run
from physeval.report.html.page import e, scroll

__all__ = ["PAIRED_METRICS", "comparison_html"]

PAIRED_METRICS: dict[str, Callable[[Run], list[str]]] = {
    "numeric": lambda r: ["dynamic_accuracy", "static_accuracy", "delta"] if r.dynamic else ["accuracy"],
    "symbolic": lambda r: ["accuracy", "eed"],
    "scene": lambda r: (["accuracy"] if "accuracy" in r.summary.metrics else []) + [
        "playable_rate", "render_rate", "executable_rate"],
}
"""Per track, the metrics the multi-run report pairs (scenes: accuracy and every stage rate)."""


def comparison_html(comparison: Comparison) -> str:
    """A paired comparison as a table (differences, intervals, p-values, confidence), its methods and tiers."""
    head = ("<tr><th>A</th><th>B</th><th>value A</th><th>value B</th><th>A - B [95% CI]</th><th>p (two-sided)</th>"
            "<th>confidence A &gt; B</th><th>n problems</th><th>overlap</th></tr>")
    rows = []
    for p in comparison.pairs:
        overlap = (f"partial: {p.overlap.common_items} common items, {p.overlap.only_a} only in A, "
                   f"{p.overlap.only_b} only in B") if p.overlap.partial else f"all {p.overlap.common_items} items"
        interval = (f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]" if math.isfinite(p.ci_low) and math.isfinite(p.ci_high)
                    else "<span class='n'>no interval (few problems)</span>")
        rows.append(f"<tr><td>{e(p.a)}</td><td>{e(p.b)}</td><td class='num'>{p.value_a:.3f}</td>"
                    f"<td class='num'>{p.value_b:.3f}</td><td class='num'>{p.diff:+.3f}<br>{interval}</td>"
                    f"<td class='num'>{e(p_text(p.p_value))}</td><td class='num'>{e(percent_text(p.confidence))}"
                    f"</td><td class='num'>{p.n}</td><td>{e(overlap)}</td></tr>")
    tiers = "".join(f"<li>tier {i + 1}: {e(', '.join(t))}</li>" for i, t in enumerate(comparison.tiers))
    sentences = "".join(f"<li>{e(p.sentence)}</li>" for p in comparison.pairs)
    methods = "".join(f"<li>{e(m)}</li>" for m in dict.fromkeys(x for p in comparison.pairs
                                                                 for x in (p.test, p.interval)))
    return (f"<h3>{e(comparison.metric)}</h3>"
            + scroll(f"<table class='paired'>{head}{''.join(rows)}</table>", f"paired comparison: {comparison.metric}")
            + f"<ul class='methods note'>{methods}</ul>"
            f"<p>Tiers at {100 * comparison.level:.0f}% confidence (PHYBench C.1): no model of a tier is beaten by "
            f"another model of the same or a lower tier.</p><ol class='tiers'>{tiers}</ol><ul>{sentences}</ul>")
