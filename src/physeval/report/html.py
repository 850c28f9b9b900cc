"""A self-contained HTML report of a run: summary, metric plots with intervals, samples.

One file, images inlined as data URLs, no JavaScript, so it can be mailed or attached to a
paper's supplement. Built from ``summary.json`` and the run store alone.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

from physeval.report.plots import count_bars, histogram, metric_bars
from physeval.report.summary import metric_entries, read_summary
from physeval.store import RunStore

__all__ = ["write_html_report", "REPORT_NAME"]

REPORT_NAME = "report.html"
_SAMPLE_ROWS = 200
_GROUP_PLOTTED = ("accuracy", "playable_rate")  # what the per-group bar charts show

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #ddd; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #1a7f37; } .bad { color: #b42318; } code, pre { font-size: 0.8rem; white-space: pre-wrap; }
img { max-width: 100%; } details { margin: 0.2rem 0; }
"""


def write_html_report(run_dir: str | Path, path: str | Path | None = None) -> Path:
    """Write ``report.html`` for the run in ``run_dir`` and return its path."""
    run_dir = Path(run_dir)
    summary = read_summary(run_dir)
    with RunStore(run_dir) as store:
        rows = store.rows()
    headline = summary.get("metrics") or {}
    groups: dict[str, dict[str, Any]] = {}
    for key, by_value in (summary.get("breakdowns") or {}).items():
        for value, metrics in by_value.items():
            for name in _GROUP_PLOTTED:
                if name in metrics:
                    groups.setdefault(key, {})[f"{value} · {name}"] = metrics[name]
    parts = [f"<h1>{_e(summary['task'])} &middot; {_e(summary['model'])}</h1>", _counts_table(summary)]
    parts.append("<h2>Metrics</h2>" + _metrics_table(summary) + _notes(summary))
    images = [metric_bars(headline, "headline metrics (95% bootstrap CI)")]
    images += [metric_bars(g, f"accuracy by {key}") for key, g in sorted(groups.items())]
    images.append(count_bars(summary["counts"].get("outcomes", {}), "grading outcomes"))
    images.append(histogram([r.latency_s for r in rows if r.latency_s and not r.cached], "request latency", "seconds"))
    parts.append("<h2>Plots</h2>" + "".join(_img(png) for png in images if png))
    parts.append(f"<h2>Samples</h2><p>First {min(len(rows), _SAMPLE_ROWS)} of {len(rows)} "
                 "(all of them: <code>physeval export RUN_DIR</code>).</p>" + _samples_table(rows[:_SAMPLE_ROWS]))
    parts.append("<h2>Configuration</h2><pre>" + _e(json.dumps(summary.get("config", {}), indent=2,
                                                                   ensure_ascii=False)) + "</pre>")
    document = (f"<!doctype html><html><head><meta charset='utf-8'><title>physeval: {_e(summary['task'])}</title>"
                f"<style>{_STYLE}</style></head><body>{''.join(parts)}</body></html>")
    out = Path(path) if path else run_dir / REPORT_NAME
    out.write_text(document, encoding="utf-8")
    return out


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _img(png: bytes) -> str:
    return f"<p><img alt='plot' src='data:image/png;base64,{base64.b64encode(png).decode()}'></p>"


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) else "-"


def _counts_table(summary: dict[str, Any]) -> str:
    counts = summary["counts"]
    cells = "".join(f"<tr><th>{_e(k)}</th><td class='num'>{_e(counts[k])}</td></tr>"
                    for k in ("problems", "samples", "planned_samples", "answered", "errors") if k in counts)
    kinds = counts.get("error_kinds") or {}
    if kinds:
        cells += f"<tr><th>error kinds</th><td>{_e(', '.join(f'{k}: {v}' for k, v in kinds.items()))}</td></tr>"
    return f"<table>{cells}</table>"


def _metrics_table(summary: dict[str, Any]) -> str:
    head = "<tr><th>metric</th><th>group</th><th>value</th><th>95% CI</th><th>n</th><th>samples</th></tr>"
    body = "".join(
        f"<tr><td>{_e(key.name)}</td><td>{_e(f'{key.key} = {key.value}' if key.key is not None else '')}</td>"
        f"<td class='num'>{_fmt(m.get('value'))}</td>"
        f"<td class='num'>[{_fmt(m.get('ci_low'))}, {_fmt(m.get('ci_high'))}]</td>"
        f"<td class='num'>{_e(m.get('n', ''))}</td><td class='num'>{_e(m.get('n_samples', ''))}</td></tr>"
        for key, m in metric_entries(summary))
    return f"<table>{head}{body}</table>"


def _notes(summary: dict[str, Any]) -> str:
    notes = summary.get("notes") or []
    return f"<ul class='notes'>{''.join(f'<li>{_e(n)}</li>' for n in notes)}</ul>" if notes else ""


def _samples_table(rows: list[Any]) -> str:
    head = "<tr><th>problem</th><th>variant</th><th>sample</th><th>outcome</th><th>answer read</th><th>why</th></tr>"
    body = []
    for r in rows:
        grade = r.grade or {}
        verdict = "ok" if r.correct else "bad"
        outcome = r.outcome or (f"error: {r.error_kind}" if r.status == "error" else "")
        why = grade.get("reason") or r.error_message or ""
        response = f"<details><summary>response</summary><pre>{_e(r.completion or '')}</pre></details>"
        body.append(f"<tr><td>{_e(r.problem_id)}</td><td>{_e(r.variant)}</td><td>{r.sample}</td>"
                    f"<td class='{verdict}'>{_e(outcome)}</td><td><code>{_e(grade.get('extracted') or '')}</code></td>"
                    f"<td>{_e(str(why)[:400])}{response}</td></tr>")
    return f"<table>{head}{''.join(body)}</table>"
