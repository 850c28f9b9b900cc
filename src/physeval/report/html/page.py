"""The page every HTML report shares: style, script, escaping, figures, sections, the document.

Layout rules a reviewer can check (``tests/report/test_browser.py`` does, at 1440 px): the body
uses the window's width; figures sit in a grid, two a row where they fit; every table lives in
a frame that is labelled and scrolls on its own if a narrow window needs it, with cells that
wrap (value, then interval and n under it), so no column is cut; the sample browser pages.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from typing import Any

from physeval.report.fonts import CSS_FONT_STACK, missing_cjk_font_note
from physeval.summary import RunSummary

__all__ = ["document", "e", "fmt_value", "grid", "img", "samples_k", "scale", "scroll", "section"]

STYLE = """
body { font-family: FONT_STACK; margin: 1.2rem 1.5rem; color: #222; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
.sub { color: #555; margin-top: 0; } .status-incomplete { color: #b42318; font-weight: bold; }
nav.toc { font-size: 0.85rem; margin: 0.5rem 0 1rem; } nav.toc a { margin-right: 0.8rem; }
.cards { display: flex; flex-wrap: wrap; gap: 0.8rem; margin: 1rem 0; }
.card { border: 1px solid #d0d7de; border-radius: 8px; padding: 0.7rem 1rem; min-width: 11rem; background: #f8fafc; }
.card .name { font-size: 0.85rem; color: #555; } .card .value { font-size: 2rem; font-weight: 600; }
.card .ci, .card .n { font-size: 0.8rem; color: #555; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 0.8rem 1.2rem;
        align-items: start; }
figure { margin: 0.6rem 0; } figure img { width: 100%; max-width: 760px; height: auto; }
figcaption { font-size: 0.9rem; color: #444; margin-bottom: 0.3rem; font-weight: 600; }
.scroll { overflow-x: auto; max-width: 100%; } .scroll.tall { max-height: 34rem; overflow-y: auto; }
table { border-collapse: collapse; margin: 0.4rem 0; font-size: 0.84rem; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.4rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; max-width: 16rem; } th.group { text-align: center; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { background: #eef6ee; }
figure.board td.num { white-space: normal; } figure.board th { overflow-wrap: anywhere; }  /* wraps, never cut */
.ci, .n, .note { color: #666; font-size: 0.76rem; } .ok { color: #1a7f37; } .bad { color: #b42318; }
code, pre { font-size: 0.78rem; white-space: pre-wrap; overflow-wrap: anywhere; }
#samples-table td { max-width: 26rem; }
#samples-table td code, #samples-table td:first-child { overflow-wrap: anywhere; }
.filters, .pager { display: flex; gap: 1rem; align-items: center; margin: 0.5rem 0; flex-wrap: wrap; }
.frames img { height: 90px; margin-right: 4px; border: 1px solid #ccc; } details { margin: 0.2rem 0; }
.verdict-yes { color: #1a7f37; font-weight: bold; } .verdict-no { color: #b42318; font-weight: bold; }
""".replace("FONT_STACK", CSS_FONT_STACK)  # the CJK fonts by name: Chinese text never left to luck

SCRIPT = """
(function () {
  var selects = document.querySelectorAll('#sample-filters select');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#samples-table tbody tr'));
  var counter = document.getElementById('shown-count');
  var pageLabel = document.getElementById('page-label');
  if (!counter) { return; }  // a report without a sample browser
  var size = Number(document.getElementById('samples-table').dataset.pageSize || 25);
  var page = 0, matching = [];
  function show() {
    var pages = Math.max(1, Math.ceil(matching.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    rows.forEach(function (row) { row.hidden = true; });
    matching.slice(page * size, page * size + size).forEach(function (row) { row.hidden = false; });
    counter.textContent = String(matching.length);
    pageLabel.textContent = 'page ' + (page + 1) + ' of ' + pages;
  }
  function apply() {
    matching = rows.filter(function (row) {
      var ok = true;
      selects.forEach(function (s) { if (s.value && row.dataset[s.name] !== s.value) { ok = false; } });
      return ok;
    });
    page = 0;
    show();
  }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  document.getElementById('page-prev').addEventListener('click', function () { page -= 1; show(); });
  document.getElementById('page-next').addEventListener('click', function () { page += 1; show(); });
  apply();
})();
"""


def e(value: Any) -> str:
    """``value`` as HTML text, quotes escaped."""
    return html.escape(str(value), quote=True)


def img(png: bytes | None, caption: str, key: str) -> str:
    """A figure with the PNG inlined (nothing when there is no PNG: nothing to draw)."""
    if not png:
        return ""
    data = base64.b64encode(png).decode()
    return (f"<figure data-plot='{e(key)}'><figcaption>{e(caption)}</figcaption>"
            f"<img alt='{e(caption)}' src='data:image/png;base64,{data}'></figure>")


def grid(figures: Sequence[str]) -> str:
    """Figures side by side where the window allows (nothing when there are none)."""
    kept = [f for f in figures if f]
    return f"<div class='grid'>{''.join(kept)}</div>" if kept else ""


def scroll(table: str, label: str, *, tall: bool = False) -> str:
    """``table`` in a labelled frame that scrolls on its own when it must (never cut)."""
    return (f"<div class='scroll{' tall' if tall else ''}' role='region' tabindex='0' aria-label='{e(label)}'>"
            f"{table}</div>")


def scale(name: str) -> str:
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


def fmt_value(name: str, value: Any) -> str:
    """A metric's value on its scale: rates in %, differences in points, others as numbers."""
    if not isinstance(value, (int, float)) or math.isnan(value):
        return "-"
    kind = scale(name)
    if kind == "rate":
        return f"{100 * value:.1f}%"
    if kind == "difference":
        return f"{100 * value:+.1f} pts"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"


def samples_k(summary: RunSummary) -> int:
    """K, the samples per item, read from the summary's ``pass@K`` metric (1 without one)."""
    names = [n for n in summary.metrics if n.startswith("pass@")]
    return int(names[0].split("@")[1]) if names else 1


def section(key: str, title: str, content: str) -> str:
    """An ``<h2>`` section (nothing when it has no content)."""
    return f"<section id='{key}'><h2>{e(title)}</h2>{content}</section>" if content else ""


def document(title: str, kind: str, parts: Sequence[str]) -> str:
    """The whole page: UTF-8, styled, a table of contents of its sections, the script last."""
    import re

    body = "".join(parts)
    toc = "".join(f"<a href='#{key}'>{name}</a>" for key, name in  # names are escaped already
                  re.findall(r"<section id='([^']+)'><h2>([^<]+)</h2>", body))
    nav = f"<nav class='toc'>{toc}</nav>" if toc else ""
    head_end = body.find("</header>")
    if head_end >= 0:
        body = body[:head_end + len("</header>")] + nav + body[head_end + len("</header>"):]
    note = missing_cjk_font_note(title + body)
    if note:
        body = f"<p class='note' id='font-note'>{e(note)}</p>{body}"
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(title)}</title>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{STYLE}</style></head>"
            f"<body data-report='{kind}'>{body}<script>{SCRIPT}</script></body></html>")
