"""Why samples ended as they did: the stacked bars and the count table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from physeval.report import plots
from physeval.report.html.page import e, img, scroll

__all__ = ["outcome_section"]


def outcome_section(breakdowns: Sequence[Any]) -> str:
    """Counts and shares of every reason, per run or model, with n."""
    reasons = list(dict.fromkeys(r for b in breakdowns for r, _ in b.counts))
    head = "<tr><th></th>" + "".join(f"<th>{e(r.replace('_', ' '))}</th>" for r in reasons) + "<th>n</th></tr>"
    body = "".join(f"<tr><th>{e(b.label)}</th>" + "".join(
        f"<td class='num'>{dict(b.counts).get(r, 0)} <span class='n'>({100 * b.share(r):.0f}%)</span></td>"
        for r in reasons) + f"<td class='num'>{b.total}</td></tr>" for b in breakdowns)
    return (img(plots.outcome_bars(breakdowns), "why samples ended as they did", "outcomes")
            + scroll(f"<table class='outcome-table'>{head}{body}</table>", "reasons per model"))
