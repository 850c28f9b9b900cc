"""Every metric of a run, grouped ones included, with its interval and n; and the configuration."""

from __future__ import annotations

import json

from physeval.report.html.page import e, fmt_value, scroll
from physeval.summary import RunSummary

__all__ = ["configuration", "metrics_table"]


def metrics_table(summary: RunSummary, *, breakdowns: bool = True) -> str:
    """The metrics table (in a frame that scrolls when long) and the summary's notes."""
    head = "<tr><th>metric</th><th>group</th><th>value</th><th>95% CI</th><th>n</th><th>samples</th></tr>"
    body = "".join(
        f"<tr><td>{e(key.name)}</td><td>{e(f'{key.key} = {key.value}' if key.key is not None else '')}</td>"
        f"<td class='num'>{fmt_value(key.name, m.value)}</td>"
        f"<td class='num'>[{fmt_value(key.name, m.ci_low)}, {fmt_value(key.name, m.ci_high)}]</td>"
        f"<td class='num'>{e(m.n)}</td><td class='num'>{e(m.n_samples)}</td></tr>"
        for key, m in summary.entries(breakdowns=breakdowns))
    notes = "".join(f"<li>{e(n)}</li>" for n in summary.notes)
    return (scroll(f"<table id='metrics-table'>{head}{body}</table>", "every metric", tall=True)
            + (f"<ul class='notes'>{notes}</ul>" if notes else ""))


def configuration(summary: RunSummary) -> str:
    """The run's configuration as JSON, folded."""
    config = json.dumps(summary.config, indent=2, ensure_ascii=False)
    return f"<details><summary>configuration (JSON)</summary><pre>{e(config)}</pre></details>"
