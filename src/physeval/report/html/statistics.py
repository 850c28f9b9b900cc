"""PHYBench's statistics in the multi-run report: EED's sample efficiency and, on request, its robustness."""

from __future__ import annotations

import math
from collections.abc import Sequence

from physeval.analysis.paired import p_text, percent_text
from physeval.analysis.run import Run
from physeval.report.html.page import e, scroll

__all__ = ["efficiency_html", "robustness_html"]


def efficiency_html(runs: Sequence[Run]) -> str:
    """Per pair of symbolic runs: accuracy and EED differences, t statistics, (t_EED / t_acc)^2."""
    from physeval.stats import sample_efficiency

    pairs = sample_efficiency([r.path for r in runs])
    labels = {str(r.path): r.model for r in runs}

    def num(x: float, digits: int = 2) -> str:
        return f"{x:.{digits}f}" if math.isfinite(x) else "-"

    rows = "".join(f"<tr><td>{e(labels.get(p.run_a, p.run_a))}</td><td>{e(labels.get(p.run_b, p.run_b))}</td>"
                   f"<td class='num'>{p.problems}</td><td class='num'>{p.accuracy_diff:+.3f}</td>"
                   f"<td class='num'>{p.score_diff:+.3f}</td><td class='num'>{num(p.t_accuracy)}</td>"
                   f"<td class='num'>{num(p.t_score)}</td><td class='num'>{num(p.efficiency)}</td></tr>" for p in pairs)
    return scroll("<table class='efficiency'><tr><th>A</th><th>B</th><th>problems</th><th>accuracy A - B</th>"
                  "<th>score A - B</th><th>t accuracy</th><th>t score</th><th>(t_score / t_acc)²</th></tr>"
                  f"{rows}</table>", "sample efficiency") + (
        "<p class='note'>above 1, the score separates the two runs with fewer problems than accuracy needs "
        "(PHYBench's argument for EED)</p>")


def robustness_html(runs: Sequence[Run]) -> str:
    """EED under other constants (PHYBench C.2) and the pairwise confidence per setting (Table 6)."""
    from physeval.analysis.robustness import metric_robustness

    results = metric_robustness([r.path for r in runs], labels=[r.model for r in runs])
    if not results:
        return ""
    pair_names = [f"{a} > {b}" for a, b, _, _ in results[0].confidence]
    head = ("<tr><th>setting</th><th>mean EED (rank)</th><th>rank changes</th>"
            + "".join(f"<th>{e(n)}</th>" for n in pair_names) + "</tr>")
    rows = "".join(
        f"<tr><td>{e(r.setting)}</td><td>{e('; '.join(f'{n} {m:.1f} ({k})' for n, m, k in r.runs))}</td>"
        f"<td class='num'>{r.rank_changes}</td>"
        + "".join(f"<td class='num'>{e(percent_text(c))}<br><span class='n'>p={e(p_text(p))}</span></td>"
                  for _, _, c, p in r.confidence) + "</tr>" for r in results)
    return scroll(f"<table class='robustness'>{head}{rows}</table>", "EED robustness") + (
        "<p class='note'>confidence that A's EED beats B's under each scoring setting (sign-flip test over "
        "problems; PHYBench Table 6)</p>")
