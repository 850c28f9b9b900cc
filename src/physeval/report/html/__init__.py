"""Self-contained HTML reports: one run (:func:`write_html_report`) or several (:func:`write_multi_report`).

One file each, plots inlined as PNG data URLs, a few lines of inline JavaScript for the sample
browser and nothing fetched from the network, so a report can be mailed or attached to a
paper's supplement. Built from ``summary.json`` and the run store alone (reference answers are
read from the task's problems when the task still loads; otherwise from the grades).

One module a section: :mod:`.page` (style, script, figures, frames, the document),
:mod:`.headline` (header and cards), :mod:`.metric_plots` (one plot per scale, the funnel,
static vs dynamic, per group), :mod:`.scaling` (curves and fits), :mod:`.outcomes`,
:mod:`.lengths`, :mod:`.metrics_table` (every metric, the configuration), :mod:`.samples` (the
sample browser), :mod:`.comparison` (paired tables and tiers), :mod:`.matched`,
:mod:`.statistics` (sample efficiency, robustness), and the two pages, :mod:`.single` and
:mod:`.multi`.

A run's report, in reading order: headline cards; the metric figures (rates, differences, EED,
judge tokens, judge seconds never share an axis; the funnel for scenes); static vs dynamic per
problem; per-group bars; pass@k and maj@k with the decay fits; why samples ended as they did;
response lengths; every metric; the configuration; then the sample browser (every domain and
reason on its first page, filters, pages). The multi-run report holds the leaderboards, the
paired comparisons with tiers (scenes: accuracy and every stage rate), sample efficiency (and
robustness on request) for symbolic runs, the curves, outcome breakdowns and lengths per model
and, for scenes, the matched-stage tables.
"""

from physeval.report.html.comparison import comparison_html
from physeval.report.html.headline import headline_names
from physeval.report.html.multi import MULTI_REPORT_NAME, write_multi_report
from physeval.report.html.single import REPORT_NAME, write_html_report

__all__ = ["MULTI_REPORT_NAME", "REPORT_NAME", "comparison_html", "headline_names", "write_html_report",
           "write_multi_report"]
