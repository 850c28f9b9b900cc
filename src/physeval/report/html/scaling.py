"""Test-time scaling in a report: pass@k and maj@k curves, the decay fits and their extrapolations."""

from __future__ import annotations

from collections.abc import Sequence

from physeval.analysis.scaling import ScalingCurves
from physeval.report import plots
from physeval.report.html.page import e, grid, img, scroll
from physeval.report.tables import fit_cells

__all__ = ["curves_section"]


def curves_section(curves: Sequence[ScalingCurves]) -> str:
    """The two curve plots, the fit table (a fit that does not describe its data says so) and notes."""
    figures = grid([img(plots.scaling_plot(curves, "pass"), "pass@k (unbiased) with the exponential-decay fit",
                        "pass-at-k"),
                    img(plots.scaling_plot(curves, "maj"), "maj@k (mean over k-subsets) with its fit", "maj-at-k")])
    rows = []
    for c in curves:
        for kind, fit in (("pass@k", c.pass_fit), ("maj@k", c.maj_fit)):
            if fit is None:
                continue
            upper, improvement, rate, extra = fit_cells(fit)
            if fit.describes_data and fit.extrapolations:
                extra = "; ".join(f"k={x.k}: {x.value:.3f} [{x.ci_low:.3f}, {x.ci_high:.3f}] "
                                  f"({x.fits}/{x.resamples} refits)" for x in fit.extrapolations)
            rows.append(f"<tr><td>{e(c.label)}</td><td>{kind}</td><td class='num'>{e(upper)}</td>"
                        f"<td class='num'>{improvement}</td><td class='num'>{rate}</td>"
                        f"<td class='num'>{fit.r_squared:.2f}</td><td class='num'>{fit.rmse:.4f}</td>"
                        f"<td class='num'>{fit.n}</td><td>{e(extra)}</td></tr>")
    table = scroll("<table class='fits'><tr><th>model</th><th>curve</th><th>upper bound</th>"
                   "<th>achievable improvement</th><th>decay rate</th><th>R²</th><th>RMSE</th><th>n problems</th>"
                   "<th>extrapolation (95% interval over resampled problems; assumes the decay form holds)</th></tr>"
                   f"{''.join(rows)}</table>", "decay fits") if rows else ""
    notes = "".join(f"<p class='note'>{e(c.label)}: {e(n)}</p>" for c in curves for n in c.notes)
    return figures + table + notes
