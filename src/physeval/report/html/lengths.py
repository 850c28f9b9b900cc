"""Response lengths in a report (SimuScene Fig. 7): completion, reasoning and answer tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from physeval.report import plots
from physeval.report.html.page import e, grid, img, scroll

__all__ = ["length_section"]


def length_section(lengths: Sequence[Any]) -> str:
    """The table of means, then the histograms (reasoning labelled reported or estimated) and
    accuracy by length."""
    completion = [(s.label, s.completion.values if s.completion else ()) for s in lengths]
    reasoning = [(s.label, s.reasoning.values if s.reasoning else ()) for s in lengths]
    answer = [(s.label, s.answer.values if s.answer else ()) for s in lengths]

    def mean(d: Any) -> str:
        return f"{d.mean:.0f} <span class='n'>(n={d.n})</span>" if d else "-"

    rows = "".join(f"<tr><td>{e(s.label)}</td><td class='num'>{s.completion.n}</td>"
                   f"<td class='num'>{s.completion.mean:.0f}</td><td class='num'>{s.completion.median:.0f}</td>"
                   f"<td class='num'>{s.completion.p90:.0f}</td><td class='num'>{mean(s.reasoning)}"
                   f"{' <span class=n>est.</span>' if 'estimated' in s.reasoning_source else ''}</td>"
                   f"<td class='num'>{mean(s.answer)}</td><td class='num'>{s.cut_off}</td></tr>"
                   for s in lengths if s.completion)
    table = scroll("<table class='lengths'><tr><th>model</th><th>n</th><th>mean</th><th>median</th>"
                   "<th>90th pct</th><th>reasoning mean</th><th>answer mean</th><th>cut off</th></tr>"
                   f"{rows}</table>", "response lengths") if rows else (
        "<p class='note'>no token counts in the rows' usage</p>")
    sources = sorted({s.reasoning_label for s in lengths if s.reasoning})
    label = sources[0] if len(sources) == 1 else "reasoning tokens (" + "; ".join(sources) + ")"
    no_reasoning = ("" if any(v for _, v in reasoning) else
                    "<p class='note'>no reasoning counts and no stored reasoning text</p>")
    return table + no_reasoning + grid([
        img(plots.length_histogram(completion, "completion tokens"), "completion tokens", "completion-tokens"),
        img(plots.length_histogram(reasoning, "reasoning tokens"), label, "reasoning-tokens"),
        img(plots.length_histogram(answer, "answer tokens"), "answer tokens (completion minus reasoning; "
            "SimuScene Fig. 7's split)", "answer-tokens"),
        img(plots.accuracy_by_length(lengths), "accuracy by completion length", "accuracy-by-length")])
