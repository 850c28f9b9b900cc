"""Every metric of a run, grouped ones included, with its interval and n; and the configuration."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from physeval.report.html.page import e, fmt_value, scroll
from physeval.report.summary import metric_entries

__all__ = ["configuration", "metrics_table"]


def metrics_table(summary: Mapping[str, Any], *, breakdowns: bool = True) -> str:
    """The metrics table (in a frame that scrolls when long) and the summary's notes."""
    head = "<tr><th>metric</th><th>group</th><th>value</th><th>95% CI</th><th>n</th><th>samples</th></tr>"
    body = "".join(
        f"<tr><td>{e(key.name)}</td><td>{e(f'{key.key} = {key.value}' if key.key is not None else '')}</td>"
        f"<td class='num'>{fmt_value(key.name, m.get('value'))}</td>"
        f"<td class='num'>[{fmt_value(key.name, m.get('ci_low'))}, {fmt_value(key.name, m.get('ci_high'))}]</td>"
        f"<td class='num'>{e(m.get('n', ''))}</td><td class='num'>{e(m.get('n_samples', ''))}</td></tr>"
        for key, m in metric_entries(dict(summary), breakdowns=breakdowns))
    notes = "".join(f"<li>{e(n)}</li>" for n in summary.get("notes") or [])
    return (scroll(f"<table id='metrics-table'>{head}{body}</table>", "every metric", tall=True)
            + (f"<ul class='notes'>{notes}</ul>" if notes else ""))


def configuration(summary: Mapping[str, Any]) -> str:
    """The run's configuration as JSON, folded."""
    config = json.dumps(summary.get("config", {}), indent=2, ensure_ascii=False)
    return f"<details><summary>configuration (JSON)</summary><pre>{e(config)}</pre></details>"
