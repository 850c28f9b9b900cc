"""Terminal tables: a run's summary, and the analyses (why samples ended, test-time scaling fits,
response lengths).

Rich tables over the typed results (:class:`~physeval.summary.RunSummary`, :mod:`physeval.analysis`);
every number shows its n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from physeval.metrics import Metric
from physeval.summary import RunSummary

__all__ = ["fit_cells", "lengths_table", "outcome_table", "print_summary", "scaling_table"]


def print_summary(summary: RunSummary, console: Console | None = None, *, breakdowns: bool = True) -> None:
    """The summary as rich tables: the ungrouped metrics, then one table per breakdown key, then
    the notes. Every row shows the problems (n) and samples it stands on."""
    console = console or Console()
    counts = summary.counts
    title = f"{summary.task} · {summary.model}"
    caption = (f"{counts.problems} problems · {counts.samples} samples ({counts.planned_samples} planned) · "
               f"{counts.graded} graded · {counts.errors} errors")
    table = _metric_table(title, caption, ())
    for name, m in summary.metrics.items():
        table.add_row(escape(name), *_cells(m))
    console.print(table)
    for key, groups in summary.breakdowns.items() if breakdowns else ():
        table = _metric_table(escape(f"by {key}"), None, (escape(key),))
        for value, metrics in groups.items():
            for i, (name, m) in enumerate(metrics.items()):
                table.add_row(escape(str(value)) if i == 0 else "", escape(name), *_cells(m))
            table.add_section()
        console.print(table)
    reasons = counts.reasons
    if reasons:
        total = sum(reasons.values())
        console.print("why samples ended: " + " · ".join(f"{name} {count} ({100 * count / total:.0f}%)"
                                                          for name, count in reasons.items()),
                      markup=False, highlight=False)
    for note in summary.notes:
        console.print(f"note: {note}", markup=False, highlight=False)


def _metric_table(title: str, caption: str | None, lead: tuple[str, ...]) -> Table:
    table = Table(title=title, caption=caption)
    for column in lead:
        table.add_column(column)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    table.add_column("samples", justify="right")
    return table


def _cells(m: Metric) -> tuple[str, str, str, str]:
    return (_fmt(m.value), f"[{_fmt(m.ci_low)}, {_fmt(m.ci_high)}]", str(m.n), str(m.n_samples))


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.4f}" if abs(value) < 10 else f"{value:.2f}"


def outcome_table(breakdowns: Sequence[Any], title: str = "why samples ended, per model") -> Table:
    """One row per run or model, one column per reason: count and share; n at the end."""
    reasons = list(dict.fromkeys(r for b in breakdowns for r, _ in b.counts))
    table = Table(title=escape(title))
    table.add_column("model")
    for reason in reasons:
        table.add_column(escape(reason.replace("_", " ")), justify="right")
    table.add_column("n", justify="right")
    for b in breakdowns:
        counts = dict(b.counts)
        table.add_row(escape(b.label), *(f"{counts.get(r, 0)} ({100 * b.share(r):.0f}%)" for r in reasons),
                      str(b.total))
    return table


def fit_cells(fit: Any) -> tuple[str, str, str, str]:
    """U, D, r and the extrapolations of a decay fit as text: "no fit", "does not describe the
    data", and a bound the fit ends on marked "(limit)"."""
    if fit is None:
        return ("-", "-", "-", "no fit")
    upper = f"{fit.upper_bound:.3f}" + (" (limit)" if fit.at_bound else "")
    if not fit.describes_data:
        return (upper, f"{fit.improvement:.3f}", f"{fit.rate:.3f}",
                f"does not describe the data (R^2 = {fit.r_squared:.2f}): not extrapolated")
    extra = "; ".join(f"k={e.k}: {e.value:.3f} [{e.ci_low:.3f}, {e.ci_high:.3f}]" for e in fit.extrapolations)
    return (upper, f"{fit.improvement:.3f}", f"{fit.rate:.3f}", extra or "-")


def scaling_table(curves: Sequence[Any]) -> Table:
    """pass@k and maj@k at k = 1 and K, the decay fit (upper bound, achievable improvement, decay
    rate, R^2) and its extrapolations with their intervals, one row per model and curve."""
    table = Table(title="test-time scaling: f(k) = U - D exp(-r (k - 1)) (PHYBench Table 7)",
                  caption="0 <= D <= U <= 1, maj@k at most pass@k; extrapolation intervals: refits on problems "
                          "resampled with replacement; they assume the decay form holds beyond K")
    for column in ("model", "curve", "k=1", "k=K", "U (upper bound)", "D (improvement)", "r (decay)", "R^2",
                   "extrapolated", "n"):
        table.add_column(column, justify="left" if column in ("model", "curve", "extrapolated") else "right",
                         overflow="fold")
    for c in curves:
        for kind, points, fit in (("pass@k", c.pass_at, c.pass_fit), ("maj@k", c.maj_at, c.maj_fit)):
            if not points:
                continue
            upper, improvement, rate, extra = fit_cells(fit)
            table.add_row(escape(c.label), kind, f"{points[0].value:.3f}", f"{points[-1].value:.3f} (K={points[-1].k})",
                          upper, improvement, rate, f"{fit.r_squared:.2f}" if fit else "-", escape(extra),
                          str(points[0].n))
        for note in c.notes:
            table.add_row(escape(c.label), "note", "", "", "", "", "", "", escape(note), "")
    return table


def lengths_table(lengths: Sequence[Any]) -> Table:
    """Completion tokens and their split into reasoning and answer (SimuScene Fig. 7), and
    accuracy per length bin, per model; estimated reasoning counts are marked "est."."""
    table = Table(title="response lengths (SimuScene Fig. 7)",
                  caption="reasoning est.: estimated from the stored reasoning text where the server sent no count")
    for column in ("model", "n", "completion mean", "median", "p90", "reasoning mean", "answer mean", "cut off",
                   "accuracy by length (tokens: accuracy, n)"):
        table.add_column(column, justify="left" if column in ("model", "accuracy by length (tokens: accuracy, n)")
                         else "right", overflow="fold")
    for s in lengths:
        completion, reasoning, answer = s.completion, s.reasoning, s.answer
        bins = "; ".join(f"{b.low}-{b.high}: {b.accuracy:.2f} (n={b.n})" for b in s.accuracy_by_length)
        mark = {"estimated": ", est.", "reported and estimated": f", {s.reasoning_estimated} est."}.get(
            s.reasoning_source, "")
        table.add_row(escape(s.label), str(completion.n if completion else 0),
                      f"{completion.mean:.0f}" if completion else "-",
                      f"{completion.median:.0f}" if completion else "-",
                      f"{completion.p90:.0f}" if completion else "-",
                      f"{reasoning.mean:.0f} (n={reasoning.n}{mark})" if reasoning else "-",
                      f"{answer.mean:.0f} (n={answer.n})" if answer else "-", str(s.cut_off), bins or "-")
    return table
