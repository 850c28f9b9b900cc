"""Leaderboards in the three papers' layouts, grouped by model, in five formats.

Layouts (each row a model; each cell the metric with its 95 % interval and its n problems):

- ``abench`` (ABench-Physics Table 2): Phy_A accuracy (from ``abench-a``) | Phy_B static,
  dynamic, delta (from ``abench-b``). Any other numeric task gets a table of its own in the
  same columns, titled by the task (accuracy from its runs without variants, static, dynamic
  and delta from those with), never labelled Phy_A or Phy_B.
- ``phybench`` (PHYBench main table): accuracy and EED overall, then per tag (the ``tag``
  breakdown, or ``domain`` where a task has no tags) in the paper's order (Mechanics,
  Electricity, Thermodynamics, Optics, Modern, Advanced; other tags after), from symbolic runs.
- ``simuscene`` (SimuScene Tables 2 and 3): executable, render, playable rate and accuracy, each
  as Avg@K and Pass@K, then accuracy Avg@K and Pass@K per domain, from scene runs.

Rates are shown in percent, EED on its own 0-100 scale, delta in percentage points. Rows are
sorted by the table's headline column (best first; a model without it last) and the best value
of every column is marked (bold; for delta the smallest). A model without the run a column
needs gets a dash, never an error; when one model has several runs for the same column, the
one with the most graded samples is used (ties: the first directory name in sorting order), so
the order of the arguments never decides, and a note names it. Formats: ``terminal`` (rich),
``markdown``, ``csv`` (long: one line per cell with value, interval and n), ``latex``
(booktabs) and ``html`` (a fragment; :func:`boards_document` wraps it in a page).
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from physeval.analysis.runs import Run
from physeval.metrics import Metric
from physeval.summary import MetricKey

__all__ = [
    "FORMATS",
    "LAYOUTS",
    "Board",
    "BoardRow",
    "Cell",
    "abench_board",
    "board_html",
    "boards_document",
    "numeric_boards",
    "cell_text",
    "latex_escape",
    "leaderboards",
    "phybench_board",
    "render_boards",
    "simuscene_board",
]

LAYOUTS = ("abench", "phybench", "simuscene")
FORMATS = ("terminal", "markdown", "csv", "latex", "html")
Format = Literal["terminal", "markdown", "csv", "latex", "html"]


@dataclass(frozen=True)
class Cell:
    """A metric as a leaderboard shows it: value and interval already on the display scale."""

    value: float
    ci_low: float
    ci_high: float
    n: int


@dataclass(frozen=True)
class BoardRow:
    """A model and its cells (``None``: the model has no run for that column)."""

    model: str
    cells: tuple[Cell | None, ...]


@dataclass(frozen=True)
class Board:
    """One table in a paper's layout.

    ``better`` holds, per column, 1 when higher is better, -1 when lower is (delta), 0 when
    neither; ``groups`` optional column groups ``(label, width)`` for a two-row header.
    """

    layout: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[BoardRow, ...]
    notes: tuple[str, ...] = ()
    better: tuple[int, ...] = ()
    groups: tuple[tuple[str, int], ...] = ()

    def direction(self, column: int) -> int:
        """1 (higher is better), -1 (lower) or 0 for ``column``."""
        return self.better[column] if column < len(self.better) else 1

    def best(self, column: int) -> float | None:
        """The best value of ``column`` over the rows (``None``: no value or no direction)."""
        direction = self.direction(column)
        values = [c.value for r in self.rows if (c := r.cells[column]) is not None and math.isfinite(c.value)]
        if not values or not direction or len(values) < 2:
            return None
        return max(values) if direction > 0 else min(values)

    def is_best(self, row: BoardRow, column: int) -> bool:
        """Whether ``row`` holds the best value of ``column`` (ties all count)."""
        best, cell = self.best(column), row.cells[column]
        return best is not None and cell is not None and abs(cell.value - best) < 1e-9


def _cell(entry: Metric | None, scale: float) -> Cell | None:
    if entry is None or math.isnan(entry.value):
        return None
    return Cell(entry.value * scale, entry.ci_low * scale, entry.ci_high * scale, entry.n)


def _metric(run: Run | None, name: str, key: str | None = None, value: str | None = None) -> Metric | None:
    if run is None:
        return None
    return run.summary.metric(MetricKey(name, key, value))


def _models(runs: Sequence[Run]) -> list[str]:
    return list(dict.fromkeys(r.model for r in runs))


def _graded(run: Run) -> int:
    return len(run.graded) or run.summary.counts.graded


def _pick(runs: Sequence[Run], model: str, want: Any, role: str, notes: list[str]) -> Run | None:
    """The model's run for ``role``: the most graded samples, then the first path in sorting order."""
    chosen = sorted((r for r in runs if r.model == model and want(r)), key=lambda r: (-_graded(r), str(r.path)))
    if len(chosen) > 1:
        notes.append(f"{model}: {len(chosen)} runs for {role}; shown: {chosen[0].path} (the most graded samples)")
    return chosen[0] if chosen else None


def _sorted(rows: Sequence[BoardRow], column: int, direction: int = 1) -> tuple[BoardRow, ...]:
    """Rows best first by ``column`` (a row without it last, in its given order)."""
    def key(indexed: tuple[int, BoardRow]) -> tuple[int, float, int]:
        i, row = indexed
        cell = row.cells[column] if column < len(row.cells) else None
        if cell is None or not math.isfinite(cell.value):
            return (1, 0.0, i)
        return (0, -direction * cell.value, i)
    return tuple(row for _, row in sorted(enumerate(rows), key=key))


_NUMERIC_COLUMNS = ("static_accuracy", "dynamic_accuracy", "delta")


def _numeric_cells(static: Run | None, dynamic: Run | None) -> tuple[Cell | None, ...]:
    return (_cell(_metric(static, "accuracy"), 100) if static else None,
            *((_cell(_metric(dynamic, n), 100) if dynamic else None) for n in _NUMERIC_COLUMNS))


def abench_board(runs: Sequence[Run]) -> Board | None:
    """ABench Table 2 from the ``abench-a`` and ``abench-b`` runs (``None`` when there are none)."""
    abench = [r for r in runs if r.task in ("abench-a", "abench-b")]
    if not abench:
        return None
    notes: list[str] = []
    rows = []
    for model in _models(abench):
        a = _pick(abench, model, lambda r: r.task == "abench-a", "Phy_A", notes)
        b = _pick(abench, model, lambda r: r.task == "abench-b", "Phy_B", notes)
        rows.append(BoardRow(model, _numeric_cells(a, b)))
    notes.append(f"from {', '.join(sorted({r.task for r in abench}))}; accuracy in %, delta = static - dynamic in "
                 "points; sorted by Phy_B dynamic, the best of each column in bold (delta: the smallest)")
    return Board("abench", "ABench-Physics (Table 2 layout)", ("Phy_A acc.", "Phy_B static", "Phy_B dynamic", "Δ"),
                 _sorted(rows, 2), tuple(notes), (1, 1, 1, -1))


def numeric_boards(runs: Sequence[Run]) -> list[Board]:
    """One table per numeric task other than ABench's, in ABench's columns, titled by the task."""
    boards = []
    for task in dict.fromkeys(r.task for r in runs if r.track == "numeric" and r.task not in ("abench-a",
                                                                                                "abench-b")):
        group = [r for r in runs if r.task == task and r.track == "numeric"]
        notes: list[str] = []
        rows = [BoardRow(model, _numeric_cells(_pick(group, model, lambda r: not r.dynamic, "one variant", notes),
                                               _pick(group, model, lambda r: r.dynamic, "variants", notes)))
                for model in _models(group)]
        sort_by = 2 if any(r.dynamic for r in group) else 0
        notes.append(f"not ABench: {task}'s runs in ABench's columns; accuracy from runs with one variant per "
                     "problem, static / dynamic / delta from runs with several; in %, delta in points")
        boards.append(Board("abench", f"{task} (ABench Table 2 columns)",
                            ("accuracy", "static", "dynamic", "Δ"), _sorted(rows, sort_by), tuple(notes),
                            (1, 1, 1, -1)))
    return boards


PHYBENCH_TAGS = ("MECHANICS", "ELECTRICITY", "THERMODYNAMICS", "OPTICS", "MODERN", "ADVANCED")
"""PHYBench's domains in the order of its tables."""


def tag_label(tag: str) -> str:
    """``MECHANICS`` -> ``Mechanics``; other tags as they are."""
    return tag.capitalize() if tag.isupper() else tag


def _tag_order(tag: str) -> tuple[int, str]:
    return (PHYBENCH_TAGS.index(tag), "") if tag in PHYBENCH_TAGS else (len(PHYBENCH_TAGS), tag)


def phybench_board(runs: Sequence[Run]) -> Board | None:
    """PHYBench's main table from the symbolic runs (``None`` when there are none)."""
    symbolic = [r for r in runs if r.track == "symbolic"]
    if not symbolic:
        return None
    has_tag = any(r.summary.breakdowns.get("tag") for r in symbolic)
    group = "tag" if has_tag else "domain"
    tags = sorted({t for r in symbolic for t in r.summary.breakdowns.get(group) or {}},
                  key=_tag_order)
    notes: list[str] = []
    rows = []
    for model in _models(symbolic):
        run = _pick(symbolic, model, lambda r: True, "the symbolic columns", notes)
        cells: list[Cell | None] = [_cell(_metric(run, "accuracy"), 100), _cell(_metric(run, "eed_mean"), 1)]
        for tag in tags:
            cells += [_cell(_metric(run, "accuracy", group, tag), 100), _cell(_metric(run, "eed_mean", group, tag), 1)]
        rows.append(BoardRow(model, tuple(cells)))
    columns = ("Acc.", "EED", *(f"{tag_label(tag)} {what}" for tag in tags for what in ("Acc.", "EED")))
    notes.append(f"from {', '.join(sorted({r.task for r in symbolic}))}; accuracy in %, EED 0-100; per {group}; "
                 "sorted by EED, the best of each column in bold")
    groups = (("overall", 2), *((tag_label(tag), 2) for tag in tags))
    return Board("phybench", "PHYBench (main table layout)", columns, _sorted(rows, 1), tuple(notes),
                 (1,) * len(columns), groups)


def _samples_k(run: Run) -> int:
    for name in run.summary.metrics:
        match = re.fullmatch(r"executable_pass@(\d+)", name)
        if match:
            return int(match.group(1))
    return 1


def simuscene_board(runs: Sequence[Run]) -> list[Board]:
    """SimuScene Tables 2 (stage rates and accuracy, Avg@K and Pass@K) and 3 (accuracy per domain,
    Avg@K and Pass@K)."""
    scene = [r for r in runs if r.track == "scene"]
    if not scene:
        return []
    ks = sorted({_samples_k(r) for r in scene})
    k_text = str(ks[0]) if len(ks) == 1 else "K"
    notes: list[str] = [] if len(ks) == 1 else [f"runs differ in K ({', '.join(map(str, ks))})"]
    rates = (("E.R.", "executable_rate", "executable"), ("R.R.", "render_rate", "render"),
             ("P.R.", "playable_rate", "playable"), ("Acc.", "accuracy", ""))
    rows, domain_rows = [], []
    domains = sorted({d for r in scene for d in r.summary.breakdowns.get("domain") or {}})
    for model in _models(scene):
        run = _pick(scene, model, lambda r: True, "the scene columns", notes)
        assert run is not None
        k = _samples_k(run)
        pass_acc = f"pass@{k}" if k > 1 else "accuracy"
        cells: list[Cell | None] = []
        for _, avg_name, prefix in rates:
            pass_name = f"{prefix}_pass@{k}" if prefix else f"pass@{k}"
            cells += [_cell(_metric(run, avg_name), 100), _cell(_metric(run, pass_name if k > 1 else avg_name), 100)]
        rows.append(BoardRow(model, tuple(cells)))
        domain_rows.append(BoardRow(model, tuple(_cell(_metric(run, name, "domain", d), 100)
                                                 for d in domains for name in ("accuracy", pass_acc))))
    columns = tuple(f"{short} {kind}@{k_text}" for short, _, _ in rates for kind in ("Avg", "Pass"))
    notes.append(f"from {', '.join(sorted({r.task for r in scene}))}; rates in %; a dash: not measured "
                 "(accuracy needs a judge); sorted by Acc. Avg, the best of each column in bold")
    groups = (("executable", 2), ("rendered", 2), ("playable", 2), ("accuracy", 2))
    boards = [Board("simuscene", "SimuScene (Table 2 layout)", columns, _sorted(rows, 6), tuple(notes),
                    (1,) * len(columns), groups)]
    if domains:
        boards.append(Board("simuscene-domains", f"SimuScene (Table 3 layout): accuracy per domain, "
                                                 f"Avg@{k_text} and Pass@{k_text}",
                            tuple(f"{d} {kind}@{k_text}" for d in domains for kind in ("Avg", "Pass")),
                            _sorted(domain_rows, 0), ("accuracy in %; a domain no sample of which reached the "
                                                      "judge scores 0, as in the overall accuracy",),
                            (1,) * (2 * len(domains)), tuple((d, 2) for d in domains)))
    return boards


def leaderboards(runs: Sequence[Run], layouts: Sequence[str] = LAYOUTS) -> list[Board]:
    """The boards of ``layouts`` that ``runs`` can fill (a layout without runs is skipped)."""
    boards: list[Board] = []
    if "abench" in layouts and (b := abench_board(runs)):
        boards.append(b)
    if "abench" in layouts:
        boards += numeric_boards(runs)
    if "phybench" in layouts and (b := phybench_board(runs)):
        boards.append(b)
    if "simuscene" in layouts:
        boards += simuscene_board(runs)
    return boards


# -- formats ------------------------------------------------------------------------------
def _num(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{x:.1f}"


def cell_text(cell: Cell | None) -> str:
    """``63.2 [58.1, 68.0] n=40``, or ``-`` for a missing cell."""
    if cell is None:
        return "-"
    return f"{_num(cell.value)} [{_num(cell.ci_low)}, {_num(cell.ci_high)}] n={cell.n}"


def render_boards(boards: Sequence[Board], fmt: str) -> Any:
    """``boards`` as text in ``fmt`` (``terminal`` gives a list of rich tables; ``html`` a whole
    page, UTF-8 declared, styled)."""
    if fmt == "terminal":
        return [_rich(b) for b in boards]
    if fmt == "markdown":
        return "\n\n".join(_markdown(b) for b in boards) + "\n"
    if fmt == "csv":
        return _csv(boards)
    if fmt == "latex":
        return "\n\n".join(_latex(b) for b in boards) + "\n"
    if fmt == "html":
        return boards_document(boards)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def _rich(board: Board) -> Any:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(board.title), caption=escape(" · ".join(board.notes)) or None)
    table.add_column("model", overflow="fold")
    for column in board.columns:
        table.add_column(escape(column), justify="right", overflow="fold")
    for row in board.rows:
        texts = []
        for i, c in enumerate(row.cells):
            text = cell_text(c).replace(" [", "\n[").replace(" n=", "\nn=")
            texts.append(f"[bold]{text}[/bold]" if board.is_best(row, i) else text)
        table.add_row(escape(row.model), *texts)
    return table


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown(board: Board) -> str:
    lines = [f"**{_md_escape(board.title)}**", "",
             "| model | " + " | ".join(_md_escape(c) for c in board.columns) + " |",
             "|---|" + "---:|" * len(board.columns)]
    for row in board.rows:
        cells = [f"**{_num(c.value)}**{cell_text(c)[len(_num(c.value)):]}" if c is not None and board.is_best(row, i)
                 else cell_text(c) for i, c in enumerate(row.cells)]
        lines.append("| " + _md_escape(row.model) + " | " + " | ".join(cells) + " |")
    lines += [""] + [f"_{_md_escape(n)}_" for n in board.notes]
    return "\n".join(lines)


def _csv(boards: Sequence[Board]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["table", "model", "column", "value", "ci_low", "ci_high", "n"])
    for board in boards:
        for row in board.rows:
            for column, c in zip(board.columns, row.cells):
                writer.writerow([board.layout, row.model, column, *(("", "", "", "") if c is None else (
                    f"{c.value:.4f}", f"{c.ci_low:.4f}", f"{c.ci_high:.4f}", c.n))])
    return out.getvalue()


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "Δ": r"$\Delta$"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex(board: Board) -> str:
    spec = "l" + "r" * len(board.columns)
    lines = [r"% " + latex_escape(board.title) + " (needs \\usepackage{booktabs})", r"\begin{tabular}{" + spec + "}",
             r"\toprule", " & ".join(["Model", *(latex_escape(c) for c in board.columns)]) + r" \\", r"\midrule"]
    for row in board.rows:
        cells = []
        for i, c in enumerate(row.cells):
            if c is None:
                cells.append("--")
                continue
            value = f"\\textbf{{{_num(c.value)}}}" if board.is_best(row, i) else _num(c.value)
            cells.append(f"{value}\\,{{\\scriptsize [{_num(c.ci_low)}, {_num(c.ci_high)}]; $n={c.n}$}}")
        lines.append(" & ".join([latex_escape(row.model), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def board_html(board: Board) -> str:
    """One board as an HTML table (class ``board``) in a horizontally scrolling frame labelled
    with the board's title, its notes below; value on one line, interval and n under it."""
    def e(s: object) -> str:
        return html.escape(str(s), quote=True)
    head = ""
    if board.groups and sum(w for _, w in board.groups) == len(board.columns):
        head = ("<tr><th rowspan='2'>model</th>" + "".join(f"<th colspan='{w}' class='group'>{e(label)}</th>"
                                                          for label, w in board.groups) + "</tr><tr>")
        sub, start = [], 0
        for label, width in board.groups:
            sub += [c.removeprefix(f"{label} ") for c in board.columns[start:start + width]]
            start += width
        head += "".join(f"<th>{e(c)}</th>" for c in sub) + "</tr>"
    else:
        head = "<tr><th>model</th>" + "".join(f"<th>{e(c)}</th>" for c in board.columns) + "</tr>"
    body = []
    for row in board.rows:
        cells = []
        for i, c in enumerate(row.cells):
            if c is None:
                cells.append("<td class='num missing'>-</td>")
                continue
            value = f"<strong>{_num(c.value)}</strong>" if board.is_best(row, i) else _num(c.value)
            cells.append(f"<td class='num{' best' if board.is_best(row, i) else ''}'>{value}<br>"
                         f"<span class='ci'>[{_num(c.ci_low)}, {_num(c.ci_high)}]</span> "
                         f"<span class='n'>n={c.n}</span></td>")
        body.append(f"<tr><th>{e(row.model)}</th>{''.join(cells)}</tr>")
    notes = "".join(f"<p class='note'>{e(n)}</p>" for n in board.notes)
    return (f"<figure class='board' data-layout='{e(board.layout)}'><figcaption>{e(board.title)}</figcaption>"
            f"<div class='scroll' role='region' tabindex='0' aria-label='{e(board.title)}'>"
            f"<table><thead>{head}</thead><tbody>{''.join(body)}</tbody></table></div>{notes}</figure>")


BOARD_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
figure.board { margin: 1.2rem 0; } figcaption { font-weight: 600; margin-bottom: 0.3rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.45rem; vertical-align: top; }
th { background: #f4f4f4; text-align: left; } th.group { text-align: center; }
figure.board th { overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }  /* wraps on a narrow window, never cut */
td.best { background: #eef6ee; } .ci, .n, .note { color: #666; font-size: 0.75rem; }
"""


def boards_document(boards: Sequence[Board], title: str = "physeval leaderboard") -> str:
    """The boards as one self-contained HTML page (UTF-8 declared, styled)."""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{BOARD_STYLE}</style>"
            f"</head><body>{''.join(board_html(b) for b in boards)}</body></html>\n")
