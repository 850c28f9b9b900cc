"""Self-contained HTML reports: one run (:func:`write_html_report`) or several (:func:`write_multi_report`).

One file each, plots inlined as PNG data URLs, a few lines of inline JavaScript for the sample
filters and nothing fetched from the network, so a report can be mailed or attached to a
paper's supplement. Built from ``summary.json`` and the run store alone (reference answers are
read from the task's problems when the task still loads; otherwise from the grades).

A run's report, in reading order: headline cards (the task's headline metrics with interval
and n); one plot per scale (rates, differences, EED, judge tokens, judge seconds never share
an axis); the stage funnel (scenes); static vs dynamic per problem (dynamic tasks);
per-group bars with intervals; pass@k and maj@k curves with the decay fit; why samples ended
as they did; response lengths; a sample browser (filter by reason, domain, variant; question,
reference, extracted answer, reason, response; for scenes a strip of sampled frames and each
verification question with the judge's verdict); then every metric, the notes and the
configuration. The multi-run report holds the leaderboards, the paired comparisons with tiers,
the curves, outcome breakdowns and lengths per model and, for scenes, the matched-stage tables.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from physeval.analysis.leaderboard import board_html, leaderboards
from physeval.analysis.lengths import response_lengths, run_lengths
from physeval.analysis.matched import STAGES, matched_stage
from physeval.analysis.outcomes import breakdowns_by_model, run_breakdown, sample_reason
from physeval.analysis.paired import Comparison, PairingError, compare_runs, p_text
from physeval.analysis.runs import Run, load_run, load_runs, run_labels
from physeval.analysis.scaling import ScalingCurves, scaling_curves
from physeval.errors import UserError
from physeval.metrics import item_fraction, problem_values
from physeval.report import plots
from physeval.report.summary import metric_entries
from physeval.report.tables import fit_cells

__all__ = ["MULTI_REPORT_NAME", "REPORT_NAME", "headline_names", "write_html_report", "write_multi_report"]

REPORT_NAME = "report.html"
MULTI_REPORT_NAME = "physeval-report.html"
_SAMPLE_ROWS = 400
_FRAME_STRIPS = 24  # scene samples whose frames are decoded for the browser
_FRAMES = 6

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 1150px; color: #222; padding: 0 1rem; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
.sub { color: #555; margin-top: 0; } .status-incomplete { color: #b42318; font-weight: bold; }
.cards { display: flex; flex-wrap: wrap; gap: 0.8rem; margin: 1rem 0; }
.card { border: 1px solid #d0d7de; border-radius: 8px; padding: 0.7rem 1rem; min-width: 11rem; background: #f8fafc; }
.card .name { font-size: 0.85rem; color: #555; } .card .value { font-size: 2rem; font-weight: 600; }
.card .ci, .card .n { font-size: 0.8rem; color: #555; }
figure { margin: 1rem 0; } figure.board { overflow-x: auto; max-width: 100%; }
figcaption { font-size: 0.9rem; color: #444; margin-bottom: 0.3rem; font-weight: 600; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.88rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ci, .n, .note { color: #666; font-size: 0.8rem; } .ok { color: #1a7f37; } .bad { color: #b42318; }
code, pre { font-size: 0.8rem; white-space: pre-wrap; word-break: break-word; } img { max-width: 100%; }
.filters { display: flex; gap: 1rem; align-items: center; margin: 0.5rem 0; flex-wrap: wrap; }
.frames img { height: 90px; margin-right: 4px; border: 1px solid #ccc; } details { margin: 0.2rem 0; }
.verdict-yes { color: #1a7f37; font-weight: bold; } .verdict-no { color: #b42318; font-weight: bold; }
"""

_SCRIPT = """
(function () {
  var selects = document.querySelectorAll('#sample-filters select');
  var rows = document.querySelectorAll('#samples-table tbody tr');
  var counter = document.getElementById('shown-count');
  if (!counter) { return; }  // a report without a sample browser
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = true;
      selects.forEach(function (s) { if (s.value && row.dataset[s.name] !== s.value) { ok = false; } });
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    counter.textContent = String(shown);
  }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  apply();
})();
"""

_HEADLINES = {
    "scene": ("executable_rate", "render_rate", "playable_rate", "accuracy", "pass@{k}"),
    "symbolic": ("accuracy", "eed_mean", "pass@{k}", "maj@{k}"),
    "dynamic": ("static_accuracy", "dynamic_accuracy", "delta", "accuracy"),
    "numeric": ("accuracy", "pass@{k}", "maj@{k}"),
}


# -- helpers ------------------------------------------------------------------------------
def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _img(png: bytes | None, caption: str, key: str) -> str:
    if not png:
        return ""
    data = base64.b64encode(png).decode()
    return (f"<figure data-plot='{_e(key)}'><figcaption>{_e(caption)}</figcaption>"
            f"<img alt='{_e(caption)}' src='data:image/png;base64,{data}'></figure>")


def _scale(name: str) -> str:
    """Which axis a metric belongs on: rate, difference, score, tokens or seconds."""
    if "tokens" in name:
        return "tokens"
    if "seconds" in name:
        return "seconds"
    if name.startswith("eed"):
        return "score"
    if name == "delta":
        return "difference"
    return "rate"


def _fmt_value(name: str, value: Any) -> str:
    if not isinstance(value, (int, float)) or math.isnan(value):
        return "-"
    scale = _scale(name)
    if scale == "rate":
        return f"{100 * value:.1f}%"
    if scale == "difference":
        return f"{100 * value:+.1f} pts"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"


def _samples_k(summary: Mapping[str, Any]) -> int:
    names = [n for n in (summary.get("metrics") or {}) if n.startswith("pass@")]
    return int(names[0].split("@")[1]) if names else 1


def headline_names(run: Run) -> list[str]:
    """The metrics a run's headline cards show, in order (only those the run has)."""
    kind = "dynamic" if run.track == "numeric" and run.dynamic else run.track
    k = _samples_k(run.summary)
    wanted = [n.format(k=k) for n in _HEADLINES.get(kind, ("accuracy",))]
    metrics = run.summary.get("metrics") or {}
    chosen = [n for n in dict.fromkeys(wanted) if n in metrics and (k > 1 or "@" not in n)]
    return chosen or list(metrics)[:4]


def _cards(run: Run) -> str:
    metrics = run.summary.get("metrics") or {}
    cards = []
    for name in headline_names(run):
        m = metrics[name]
        cards.append(f"<div class='card' data-metric='{_e(name)}'><div class='name'>{_e(name)}</div>"
                     f"<div class='value'>{_fmt_value(name, m.get('value'))}</div>"
                     f"<div class='ci'>95% CI [{_fmt_value(name, m.get('ci_low'))}, "
                     f"{_fmt_value(name, m.get('ci_high'))}]</div>"
                     f"<div class='n'>n = {_e(m.get('n'))} problems · {_e(m.get('n_samples'))} samples</div></div>")
    return f"<section id='headline' class='cards'>{''.join(cards)}</section>"


def _header(run: Run) -> str:
    counts = run.summary.get("counts") or {}
    complete = run.summary.get("complete", True)
    status = ("<span class='status-complete'>complete</span>" if complete else
              f"<span class='status-incomplete'>{_e(str(run.summary.get('status', 'incomplete')).upper())}</span>")
    return (f"<header><h1>{_e(run.task)} &middot; {_e(run.model)}</h1><p class='sub'>{status} · "
            f"{_e(counts.get('problems', '?'))} problems · {_e(counts.get('samples', '?'))} samples "
            f"({_e(counts.get('planned_samples', '?'))} planned) · {_e(counts.get('errors', 0))} errors · "
            f"{_e(run.path)}</p></header>")


# -- the plots of one run -----------------------------------------------------------------
def _scale_plots(run: Run) -> list[str]:
    by_scale: dict[str, dict[str, Any]] = {}
    for name, m in (run.summary.get("metrics") or {}).items():
        if not run.dynamic and name.startswith(("static_", "dynamic_", "delta")):
            continue  # one variant per problem: static = dynamic, delta = 0 (still in the metrics table)
        if name.endswith("_rate") or name in ("accuracy", "static_accuracy", "dynamic_accuracy", "delta") or "@" in \
                name or name.startswith(("eed", "judge_")):
            if name.endswith("avg@" + str(_samples_k(run.summary))) and name != "accuracy":
                continue  # avg@K is the rate itself, already drawn
            by_scale.setdefault(_scale(name), {})[name] = m
    titles = {"rate": ("rates (0-1)", (0.0, 1.0)), "difference": ("differences (static - dynamic)", None),
              "score": ("EED score (0-100)", (0.0, 100.0)), "tokens": ("judge tokens per judged sample", None),
              "seconds": ("judge seconds per judged sample", None)}
    out = []
    for scale, (title, xlim) in titles.items():
        if scale in by_scale:
            image = plots.metric_bars(by_scale[scale], title, xlim=xlim)
            out.append(_img(image, f"metrics: {title}", f"scale-{scale}"))
    return out


def _funnel(run: Run) -> str:
    metrics = run.summary.get("metrics") or {}
    stages = [(label, metrics[name]) for label, name in (("executable", "executable_rate"), ("rendered", "render_rate"),
                                                         ("playable", "playable_rate"), ("judged correct", "accuracy"))
              if name in metrics]
    return _img(plots.funnel(stages, "share of samples reaching each stage (per-problem mean, 95% CI, n problems)"),
                "stage funnel", "funnel")


def _static_dynamic(run: Run) -> str:
    outcomes = run.outcomes()
    static = problem_values(outcomes, item_fraction(), "static")
    dynamic = problem_values(outcomes, item_fraction(), "product")
    pairs = {pid: (static[pid][0], dynamic[pid][0]) for pid in static if pid in dynamic}
    return _img(plots.paired_dots(pairs, "static vs dynamic accuracy"),
                "static (variant 0) vs dynamic (every variant right) accuracy, per problem", "static-dynamic")


def _group_plots(run: Run) -> list[str]:
    out = []
    for key, groups in (run.summary.get("breakdowns") or {}).items():
        for name, title, xlim in (("accuracy", "accuracy", (0.0, 1.0)), ("playable_rate", "playable rate", (0.0, 1.0)),
                                  ("eed_mean", "EED (0-100)", (0.0, 100.0))):
            values = {str(v): m[name] for v, m in groups.items() if name in m}
            if name == "playable_rate" and any("accuracy" in m for m in groups.values()):
                continue
            if values:
                out.append(_img(plots.metric_bars(values, f"{title} by {key}", xlim=xlim), f"{title} by {key}",
                                f"group-{key}-{name}"))
    return out


def _curves(curves: Sequence[ScalingCurves]) -> str:
    parts = [_img(plots.scaling_plot(curves, "pass"), "pass@k (unbiased) with the exponential-decay fit", "pass-at-k"),
             _img(plots.scaling_plot(curves, "maj"), "maj@k (mean over k-subsets) with its fit", "maj-at-k")]
    rows = []
    for c in curves:
        for kind, fit in (("pass@k", c.pass_fit), ("maj@k", c.maj_fit)):
            if fit is None:
                continue
            upper, improvement, rate, extra = fit_cells(fit)
            if fit.describes_data and fit.extrapolations:
                extra = "; ".join(f"k={e.k}: {e.value:.3f} [{e.ci_low:.3f}, {e.ci_high:.3f}] "
                                  f"({e.fits}/{e.resamples} refits)" for e in fit.extrapolations)
            rows.append(f"<tr><td>{_e(c.label)}</td><td>{kind}</td><td class='num'>{_e(upper)}</td>"
                        f"<td class='num'>{improvement}</td><td class='num'>{rate}</td>"
                        f"<td class='num'>{fit.r_squared:.2f}</td><td class='num'>{fit.rmse:.4f}</td>"
                        f"<td class='num'>{fit.n}</td><td>{_e(extra)}</td></tr>")
    table = ("<div class='scroll'><table class='fits'><tr><th>model</th><th>curve</th><th>upper bound</th>"
             "<th>achievable improvement</th><th>decay rate</th><th>R²</th><th>RMSE</th><th>n problems</th>"
             "<th>extrapolation (95% interval over resampled problems; assumes the decay form holds)</th></tr>"
             f"{''.join(rows)}</table></div>") if rows else ""
    notes = "".join(f"<p class='note'>{_e(c.label)}: {_e(n)}</p>" for c in curves for n in c.notes)
    return "".join(parts) + table + notes


def _outcome_section(breakdowns: Sequence[Any]) -> str:
    reasons = list(dict.fromkeys(r for b in breakdowns for r, _ in b.counts))
    head = "<tr><th></th>" + "".join(f"<th>{_e(r)}</th>" for r in reasons) + "<th>n</th></tr>"
    body = "".join(f"<tr><th>{_e(b.label)}</th>" + "".join(
        f"<td class='num'>{dict(b.counts).get(r, 0)} <span class='n'>({100 * b.share(r):.0f}%)</span></td>"
        for r in reasons) + f"<td class='num'>{b.total}</td></tr>" for b in breakdowns)
    return (_img(plots.outcome_bars(breakdowns), "why samples ended as they did", "outcomes")
            + f"<table class='outcome-table'>{head}{body}</table>")


def _length_section(lengths: Sequence[Any]) -> str:
    completion = [(s.label, s.completion.values if s.completion else ()) for s in lengths]
    reasoning = [(s.label, s.reasoning.values if s.reasoning else ()) for s in lengths]
    answer = [(s.label, s.answer.values if s.answer else ()) for s in lengths]

    def mean(d: Any) -> str:
        return f"{d.mean:.0f} <span class='n'>(n={d.n})</span>" if d else "-"

    rows = "".join(f"<tr><td>{_e(s.label)}</td><td class='num'>{s.completion.n}</td>"
                   f"<td class='num'>{s.completion.mean:.0f}</td><td class='num'>{s.completion.median:.0f}</td>"
                   f"<td class='num'>{s.completion.p90:.0f}</td><td class='num'>{mean(s.reasoning)}"
                   f"{' <span class=n>est.</span>' if 'estimated' in s.reasoning_source else ''}</td>"
                   f"<td class='num'>{mean(s.answer)}</td><td class='num'>{s.cut_off}</td></tr>"
                   for s in lengths if s.completion)
    table = ("<div class='scroll'><table class='lengths'><tr><th>model</th><th>n</th><th>mean</th><th>median</th>"
             "<th>90th pct</th><th>reasoning mean</th><th>answer mean</th><th>cut off</th></tr>"
             f"{rows}</table></div>") if rows else "<p class='note'>no token counts in the rows' usage</p>"
    sources = sorted({s.reasoning_label for s in lengths if s.reasoning})
    label = sources[0] if len(sources) == 1 else "reasoning tokens (" + "; ".join(sources) + ")"
    no_reasoning = ("" if any(v for _, v in reasoning) else
                    "<p class='note'>no reasoning counts and no stored reasoning text</p>")
    return (table + _img(plots.length_histogram(completion, "completion tokens"), "completion tokens",
                         "completion-tokens")
            + _img(plots.length_histogram(reasoning, label), label, "reasoning-tokens")
            + _img(plots.length_histogram(answer, "answer tokens (completion minus reasoning)"),
                   "answer tokens (completion minus reasoning; SimuScene Fig. 7's split)", "answer-tokens")
            + no_reasoning
            + _img(plots.accuracy_by_length(lengths), "accuracy by completion length", "accuracy-by-length"))


# -- the sample browser ---------------------------------------------------------------------
def _references(run: Run) -> dict[tuple[str, str], str]:
    """(problem, variant) -> reference answer, from the task's problems when it still loads."""
    try:
        from physeval.store import RunStore
        from physeval.tasks.registry import get_task

        with RunStore(run.path) as store:
            options = store.get_meta("task_options", {}) or {}
        return {p.key: p.answer for p in get_task(run.task, **options).load()}
    except Exception:  # noqa: BLE001 - a report must not fail because the data moved; grades say what they can
        return {}


def _question(row: Any) -> str:
    for message in reversed(row.messages or []):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)[:2000]
    return ""


def _frame_strip(grade: Mapping[str, Any]) -> str:
    path = (grade.get("render") or {}).get("video_path")
    if not path or not Path(path).is_file():
        return ""
    try:
        from physeval.scenes.frames import sample_frames

        frames = sample_frames(path, _FRAMES, max_side=160)
    except Exception:  # noqa: BLE001 - an undecodable video shows no strip
        return ""
    images = "".join(f"<img alt='frame at {f.time_s:.2f}s' title='t = {f.time_s:.2f} s' src='{f.data_url()}'>"
                     for f in frames)
    return f"<div class='frames'>{images}</div>" if images else ""


def _verdicts(grade: Mapping[str, Any]) -> str:
    judge = grade.get("judge") or {}
    per_question = judge.get("per_question") or {}
    if not judge.get("questions"):
        return ""
    items = []
    for q in judge["questions"]:
        verdict = per_question.get(str(q.get("key")))
        mark = ("<span class='verdict-yes'>yes</span>" if verdict else "<span class='verdict-no'>no</span>")
        items.append(f"<li>{mark} {_e(q.get('question') or q.get('label'))}</li>")
    return f"<ol class='verdicts'>{''.join(items)}</ol>"


def _samples(run: Run) -> str:
    references = _references(run)
    rows = list(run.rows)[:_SAMPLE_ROWS]
    strips = 0
    body = []
    for r in rows:
        grade = r.grade or {}
        reason = sample_reason(r)
        domain = str((r.problem_meta or {}).get("domain") or (r.problem_meta or {}).get("tag") or "")
        reference = references.get((r.problem_id, r.variant))
        if reference is None and grade.get("reference_value") is not None:
            reference = f"{grade['reference_value']} {grade.get('unit_required') or ''}"
        strip = ""
        if "stage" in grade and strips < _FRAME_STRIPS:
            strip = _frame_strip(grade)
            strips += bool(strip)
        why = grade.get("reason") or r.error_message or ""
        extracted = grade.get("extracted") if "stage" not in grade else ""
        detail = (f"<details><summary>question, response{', frames and verdicts' if 'stage' in grade else ''}"
                  f"</summary><p><b>question</b></p><pre>{_e(_question(r))}</pre>"
                  f"<p><b>response</b> (finish: {_e(r.finish_reason)})</p><pre>{_e(r.completion or '')}</pre>"
                  f"{strip}{_verdicts(grade)}</details>")
        body.append(f"<tr data-reason='{_e(reason)}' data-domain='{_e(domain)}' data-variant='{_e(r.variant)}'>"
                    f"<td>{_e(r.problem_id)}</td><td>{_e(r.variant)}</td><td>{r.sample}</td><td>{_e(domain)}</td>"
                    f"<td class='{'ok' if r.correct else 'bad'}'>{_e(reason)}</td>"
                    f"<td><code>{_e(reference if reference is not None else '')}</code></td>"
                    f"<td><code>{_e(extracted or '')}</code></td><td>{_e(str(why)[:300])}{detail}</td></tr>")

    def select(name: str, values: Sequence[str]) -> str:
        options = "".join(f"<option value='{_e(v)}'>{_e(v)}</option>" for v in values)
        return f"<label>{name} <select name='{name}'><option value=''>all</option>{options}</select></label>"

    groups = {str((r.problem_meta or {}).get("domain") or (r.problem_meta or {}).get("tag") or "") for r in rows}
    filters = (f"<div id='sample-filters' class='filters'>"
               f"{select('reason', sorted({sample_reason(r) for r in rows}))}"
               f"{select('domain', sorted(groups - {''}))}"
               f"{select('variant', sorted({r.variant for r in rows}, key=lambda v: (len(v), v)))}"
               f"<span><span id='shown-count'>{len(rows)}</span> of {len(rows)} shown</span></div>")
    head = ("<thead><tr><th>problem</th><th>variant</th><th>sample</th><th>domain</th><th>reason</th>"
            "<th>reference</th><th>extracted</th><th>why</th></tr></thead>")
    more = (f"<p class='note'>first {len(rows)} of {len(run.rows)} samples; all of them: "
            "<code>physeval export RUN_DIR</code></p>") if len(run.rows) > len(rows) else ""
    return f"{filters}{more}<table id='samples-table'>{head}<tbody>{''.join(body)}</tbody></table>"


def _metrics_table(summary: Mapping[str, Any]) -> str:
    head = "<tr><th>metric</th><th>group</th><th>value</th><th>95% CI</th><th>n</th><th>samples</th></tr>"
    body = "".join(
        f"<tr><td>{_e(key.name)}</td><td>{_e(f'{key.key} = {key.value}' if key.key is not None else '')}</td>"
        f"<td class='num'>{_fmt_value(key.name, m.get('value'))}</td>"
        f"<td class='num'>[{_fmt_value(key.name, m.get('ci_low'))}, {_fmt_value(key.name, m.get('ci_high'))}]</td>"
        f"<td class='num'>{_e(m.get('n', ''))}</td><td class='num'>{_e(m.get('n_samples', ''))}</td></tr>"
        for key, m in metric_entries(dict(summary)))
    notes = "".join(f"<li>{_e(n)}</li>" for n in summary.get("notes") or [])
    return f"<table id='metrics-table'>{head}{body}</table>" + (f"<ul class='notes'>{notes}</ul>" if notes else "")


def _section(key: str, title: str, content: str) -> str:
    return f"<section id='{key}'><h2>{_e(title)}</h2>{content}</section>" if content else ""


def _document(title: str, kind: str, parts: Sequence[str]) -> str:
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{_STYLE}</style></head>"
            f"<body data-report='{kind}'>{''.join(parts)}<script>{_SCRIPT}</script></body></html>")


# -- one run ------------------------------------------------------------------------------------
def write_html_report(run_dir: str | Path, path: str | Path | None = None) -> Path:
    """Write ``report.html`` for the run in ``run_dir`` (or to ``path``) and return its path."""
    run = load_run(run_dir)
    parts = [_header(run), _cards(run)]
    parts.append(_section("metric-plots", "Metrics, one plot per scale", "".join(_scale_plots(run))))
    if run.track == "scene":
        parts.append(_section("funnel-section", "Stage funnel", _funnel(run)))
    if run.dynamic:
        parts.append(_section("static-dynamic", "Static vs dynamic, problem by problem", _static_dynamic(run)))
    parts.append(_section("groups", "By group", "".join(_group_plots(run))))
    if _samples_k(run.summary) > 1:
        parts.append(_section("scaling", "Test-time scaling", _curves([scaling_curves(run)])))
    parts.append(_section("outcome-breakdown", "Why samples ended as they did", _outcome_section([run_breakdown(run)])))
    parts.append(_section("lengths", "Response lengths", _length_section([response_lengths(run.rows, run.model)])))
    parts.append(_section("samples", "Samples", _samples(run)))
    count = len(list(metric_entries(dict(run.summary))))
    parts.append(_section("all-metrics", "Every metric", f"<details><summary>{count}"
                          f" metrics and notes</summary>{_metrics_table(run.summary)}</details>"))
    config = json.dumps(run.summary.get("config", {}), indent=2, ensure_ascii=False)
    parts.append(_section("configuration", "Configuration", f"<details><summary>config</summary><pre>{_e(config)}"
                          "</pre></details>"))
    out = Path(path) if path else run.path / REPORT_NAME
    out.write_text(_document(f"physeval: {run.task} · {run.model}", "run", parts), encoding="utf-8")
    return out


# -- several runs -------------------------------------------------------------------------------
_PAIRED_METRICS: dict[str, Callable[[Run], list[str]]] = {
    "numeric": lambda r: ["dynamic_accuracy", "static_accuracy"] if r.dynamic else ["accuracy"],
    "symbolic": lambda r: ["accuracy", "eed"],
    "scene": lambda r: ["accuracy"] if "accuracy" in (r.summary.get("metrics") or {}) else ["playable_rate"],
}


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
        rows.append(f"<tr><td>{_e(p.a)}</td><td>{_e(p.b)}</td><td class='num'>{p.value_a:.3f}</td>"
                    f"<td class='num'>{p.value_b:.3f}</td><td class='num'>{p.diff:+.3f} {interval}</td>"
                    f"<td class='num'>{_e(p_text(p.p_value))}</td><td class='num'>{100 * p.confidence:.1f}%"
                    f"</td><td class='num'>{p.n}</td><td>{_e(overlap)}</td></tr>")
    tiers = "".join(f"<li>tier {i + 1}: {_e(', '.join(t))}</li>" for i, t in enumerate(comparison.tiers))
    sentences = "".join(f"<li>{_e(p.sentence)}</li>" for p in comparison.pairs)
    methods = "".join(f"<li>{_e(m)}</li>" for m in dict.fromkeys(x for p in comparison.pairs
                                                                  for x in (p.test, p.interval)))
    return (f"<h3>{_e(comparison.metric)}</h3><div class='scroll'><table class='paired'>{head}{''.join(rows)}"
            f"</table></div><ul class='methods note'>{methods}</ul>"
            f"<p>Tiers at {100 * comparison.level:.0f}% confidence (PHYBench C.1): no model of a tier is beaten by "
            f"another model of the same or a lower tier.</p><ol class='tiers'>{tiers}</ol><ul>{sentences}</ul>")


def _by_task(runs: Sequence[Run]) -> dict[str, list[Run]]:
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(f"{run.task}{' (dynamic)' if run.dynamic else ''}", []).append(run)
    return groups


def write_multi_report(run_dirs: Sequence[str | Path], path: str | Path) -> Path:
    """Write one report over several runs: leaderboards, paired comparisons with tiers, curves,
    outcome breakdowns and lengths per model, matched-stage tables for scenes."""
    runs = load_runs(run_dirs)
    if not runs:
        raise UserError("a multi-run report needs at least one run")
    models, tasks = ", ".join(dict.fromkeys(r.model for r in runs)), ", ".join(dict.fromkeys(r.task for r in runs))
    header = f"<header><h1>physeval: {len(runs)} runs</h1><p class='sub'>models: {_e(models)} · tasks: {_e(tasks)}"
    parts = [header + "</p></header>"]
    boards = leaderboards(runs)
    parts.append(_section("leaderboards", "Leaderboards", "".join(board_html(b) for b in boards)))
    comparisons, curves_parts, matched_parts = [], [], []
    for task, group in _by_task(runs).items():
        if len(group) >= 2:
            block = []
            for metric in _PAIRED_METRICS.get(group[0].track, lambda r: ["accuracy"])(group[0]):
                try:
                    block.append(comparison_html(compare_runs(group, metric)))
                except PairingError as exc:
                    block.append(f"<p class='bad'>not paired: {_e(exc)}</p>")
            comparisons.append(f"<h3>{_e(task)}</h3>{''.join(block)}")
        if max((_samples_k(r.summary) for r in group), default=1) > 1:
            labels = run_labels(group)
            curves_parts.append(f"<h3>{_e(task)}</h3>" + _curves([scaling_curves(r, label=lab)
                                                                   for r, lab in zip(group, labels)]))
        if group[0].track == "scene" and len(group) >= 2:
            matched_parts.append(f"<h3>{_e(task)}</h3>" + "".join(_matched_html(group, stage) for stage in STAGES))
    parts.append(_section("comparison", "Paired comparison", "".join(comparisons)))
    parts.append(_section("scaling", "Test-time scaling", "".join(curves_parts)))
    groups = _by_task(runs)
    parts.append(_section("outcome-breakdown", "Why samples ended as they did, per task and model", "".join(
        f"<h3>{_e(task)}</h3>" + _outcome_section(breakdowns_by_model(group)) for task, group in groups.items())))
    parts.append(_section("lengths", "Response lengths, per task and model", "".join(
        f"<h3>{_e(task)}</h3>" + _length_section(run_lengths(group)) for task, group in groups.items())))
    parts.append(_section("matched", "Matched-stage analysis (SimuScene Table 9)", "".join(matched_parts)))
    listing = "".join(f"<li>{_e(r.model)} · {_e(r.task)} · <code>{_e(r.path)}</code></li>" for r in runs)
    parts.append(_section("runs", "Runs", f"<ul>{listing}</ul>"))
    out = Path(path)
    out.write_text(_document(f"physeval: {len(runs)} runs", "multi", parts), encoding="utf-8")
    return out


def _matched_html(runs: Sequence[Run], stage: str) -> str:
    result = matched_stage(runs, stage)
    names = list(dict.fromkeys(name for r in result.runs for name, _ in r.metrics))
    head = "<tr><th>model</th>" + "".join(f"<th>{_e(n)}</th>" for n in names) + "</tr>"
    body = "".join(f"<tr><td>{_e(r.label)}</td>" + "".join(_matched_cell(dict(r.metrics).get(n)) for n in names)
                   + "</tr>" for r in result.runs)
    return (f"<h4>matched at {_e(stage)}: {result.size} of {result.common} common samples "
            f"({result.problems} problems)</h4>" + (f"<table class='matched'>{head}{body}</table>" if names else ""))


def _matched_cell(m: Any) -> str:
    if m is None:
        return "<td>-</td>"
    return (f"<td class='num'>{100 * m.value:.1f}% <span class='ci'>[{100 * m.ci_low:.1f}, {100 * m.ci_high:.1f}]"
            f"</span> <span class='n'>n={m.n}</span></td>")
