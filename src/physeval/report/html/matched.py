"""Matched-stage tables (SimuScene Table 9): downstream scene metrics on samples every run brought to a stage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from physeval.analysis.matched import matched_stage
from physeval.analysis.run import Run
from physeval.report.html.page import e, scroll

__all__ = ["matched_html"]


def matched_html(runs: Sequence[Run], stage: str) -> str:
    """The subset's size, then one row per run with each downstream metric, its interval and n."""
    result = matched_stage(runs, stage)
    names = list(dict.fromkeys(name for r in result.runs for name, _ in r.metrics))
    head = "<tr><th>model</th>" + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>"
    body = "".join(f"<tr><td>{e(r.label)}</td>" + "".join(_cell(dict(r.metrics).get(n)) for n in names)
                   + "</tr>" for r in result.runs)
    return (f"<h4>matched at {e(stage)}: {result.size} of {result.common} common samples "
            f"({result.problems} problems)</h4>"
            + (scroll(f"<table class='matched'>{head}{body}</table>", f"matched at {stage}") if names else ""))


def _cell(m: Any) -> str:
    if m is None:
        return "<td>-</td>"
    return (f"<td class='num'>{100 * m.value:.1f}%<br><span class='ci'>[{100 * m.ci_low:.1f}, "
            f"{100 * m.ci_high:.1f}]</span> <span class='n'>n={m.n}</span></td>")
