"""Leaderboards in the three papers' layouts, grouped by model, in five formats.

Layouts (each row a model; each cell the metric with its 95 % interval and its n problems):

- ``abench`` (ABench-Physics Table 2): Phy_A accuracy | Phy_B static, dynamic, delta. Phy_A comes
  from a model's static numeric run (``abench-a``, or any numeric run without variants), Phy_B
  from its dynamic one (``abench-b``, ``bank-numeric``).
- ``phybench`` (PHYBench main table): accuracy and EED overall, then per tag (the ``tag``
  breakdown, or ``domain`` where a task has no tags), from symbolic runs.
- ``simuscene`` (SimuScene Tables 2 and 3): executable, render, playable rate and accuracy, each
  as Avg@K and Pass@K, then accuracy (Avg@K) per domain, from scene runs.

Rates are shown in percent, EED on its own 0-100 scale, delta in percentage points. A model
without the run a column needs gets a dash, never an error; when one model has two runs for
the same column, the first given is used and a note says so. Formats: ``terminal`` (rich),
``markdown``, ``csv`` (long: one line per cell with value, interval and n), ``latex``
(booktabs) and ``html``.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from physeval.analysis.runs import Run

__all__ = [
    "FORMATS",
    "LAYOUTS",
    "Board",
    "BoardRow",
    "Cell",
    "abench_board",
    "board_html",
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
    """One table in a paper's layout."""

    layout: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[BoardRow, ...]
    notes: tuple[str, ...] = ()


def _cell(entry: Mapping[str, Any] | None, scale: float) -> Cell | None:
    if not entry or not isinstance(entry.get("value"), (int, float)):
        return None

    def scaled(x: Any) -> float:
        return float(x) * scale if isinstance(x, (int, float)) else math.nan

    return Cell(scaled(entry["value"]), scaled(entry.get("ci_low")), scaled(entry.get("ci_high")),
                int(entry.get("n") or 0))


def _metric(run: Run | None, name: str, key: str | None = None, value: str | None = None) -> Mapping[str, Any] | None:
    if run is None:
        return None
    if key is None:
        return (run.summary.get("metrics") or {}).get(name)
    return (((run.summary.get("breakdowns") or {}).get(key) or {}).get(value) or {}).get(name)


def _models(runs: Sequence[Run]) -> list[str]:
    return list(dict.fromkeys(r.model for r in runs))


def _pick(runs: Sequence[Run], model: str, want: Any, role: str, notes: list[str]) -> Run | None:
    chosen = [r for r in runs if r.model == model and want(r)]
    if len(chosen) > 1:
        notes.append(f"{model}: {len(chosen)} runs for {role}; the first ({chosen[0].path}) is shown")
    return chosen[0] if chosen else None


def abench_board(runs: Sequence[Run]) -> Board | None:
    """ABench Table 2 from the numeric runs (``None`` when there are none)."""
    numeric = [r for r in runs if r.track == "numeric"]
    if not numeric:
        return None
    notes: list[str] = []
    rows = []
    for model in _models(numeric):
        a = _pick(numeric, model, lambda r: r.task == "abench-a" or (r.task != "abench-b" and not r.dynamic),
                  "Phy_A", notes)
        b = _pick(numeric, model, lambda r: r.task == "abench-b" or (r.task != "abench-a" and r.dynamic),
                  "Phy_B", notes)
        cells = (_cell(_metric(a, "accuracy"), 100) if a else None,
                 *((_cell(_metric(b, n), 100) if b else None) for n in ("static_accuracy", "dynamic_accuracy",
                                                                        "delta")))
        rows.append(BoardRow(model, cells))
    sources = sorted({r.task for r in numeric})
    notes.append(f"from {', '.join(sources)}; accuracy in %, delta = static - dynamic in points")
    return Board("abench", "ABench-Physics (Table 2 layout)",
                 ("Phy_A acc.", "Phy_B static", "Phy_B dynamic", "Δ"), tuple(rows), tuple(notes))


def phybench_board(runs: Sequence[Run]) -> Board | None:
    """PHYBench's main table from the symbolic runs (``None`` when there are none)."""
    symbolic = [r for r in runs if r.track == "symbolic"]
    if not symbolic:
        return None
    has_tag = any((r.summary.get("breakdowns") or {}).get("tag") for r in symbolic)
    group = "tag" if has_tag else "domain"
    tags = sorted({t for r in symbolic for t in ((r.summary.get("breakdowns") or {}).get(group) or {})})
    notes: list[str] = []
    rows = []
    for model in _models(symbolic):
        run = _pick(symbolic, model, lambda r: True, "the symbolic columns", notes)
        cells: list[Cell | None] = [_cell(_metric(run, "accuracy"), 100), _cell(_metric(run, "eed_mean"), 1)]
        for tag in tags:
            cells += [_cell(_metric(run, "accuracy", group, tag), 100), _cell(_metric(run, "eed_mean", group, tag), 1)]
        rows.append(BoardRow(model, tuple(cells)))
    columns = ("Acc.", "EED", *(f"{tag} {what}" for tag in tags for what in ("Acc.", "EED")))
    notes.append(f"from {', '.join(sorted({r.task for r in symbolic}))}; accuracy in %, EED 0-100; per {group}")
    return Board("phybench", "PHYBench (main table layout)", columns, tuple(rows), tuple(notes))


def _samples_k(run: Run) -> int:
    for name in run.summary.get("metrics") or {}:
        match = re.fullmatch(r"executable_pass@(\d+)", name)
        if match:
            return int(match.group(1))
    return 1


def simuscene_board(runs: Sequence[Run]) -> list[Board]:
    """SimuScene Tables 2 (stage rates and accuracy, Avg@K and Pass@K) and 3 (accuracy per domain)."""
    scene = [r for r in runs if r.track == "scene"]
    if not scene:
        return []
    ks = sorted({_samples_k(r) for r in scene})
    k_text = str(ks[0]) if len(ks) == 1 else "K"
    notes: list[str] = [] if len(ks) == 1 else [f"runs differ in K ({', '.join(map(str, ks))})"]
    rates = (("E.R.", "executable_rate", "executable"), ("R.R.", "render_rate", "render"),
             ("P.R.", "playable_rate", "playable"), ("Acc.", "accuracy", ""))
    rows, domain_rows = [], []
    domains = sorted({d for r in scene for d in ((r.summary.get("breakdowns") or {}).get("domain") or {})})
    for model in _models(scene):
        run = _pick(scene, model, lambda r: True, "the scene columns", notes)
        assert run is not None
        k = _samples_k(run)
        cells: list[Cell | None] = []
        for _, avg_name, prefix in rates:
            pass_name = f"{prefix}_pass@{k}" if prefix else f"pass@{k}"
            cells += [_cell(_metric(run, avg_name), 100), _cell(_metric(run, pass_name if k > 1 else avg_name), 100)]
        rows.append(BoardRow(model, tuple(cells)))
        domain_rows.append(BoardRow(model, tuple(_cell(_metric(run, "accuracy", "domain", d), 100) for d in domains)))
    columns = tuple(f"{short} {kind}@{k_text}" for short, _, _ in rates for kind in ("Avg", "Pass"))
    notes.append(f"from {', '.join(sorted({r.task for r in scene}))}; rates in %; a dash: not measured "
                 "(accuracy needs a judge)")
    boards = [Board("simuscene", "SimuScene (Table 2 layout)", columns, tuple(rows), tuple(notes))]
    if domains:
        boards.append(Board("simuscene-domains", f"SimuScene (Table 3 layout): accuracy Avg@{k_text} per domain",
                            tuple(domains), tuple(domain_rows), ("accuracy in %",)))
    return boards


def leaderboards(runs: Sequence[Run], layouts: Sequence[str] = LAYOUTS) -> list[Board]:
    """The boards of ``layouts`` that ``runs`` can fill (a layout without runs is skipped)."""
    boards: list[Board] = []
    if "abench" in layouts and (b := abench_board(runs)):
        boards.append(b)
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
    """``boards`` as text in ``fmt`` (``terminal`` gives a list of rich tables)."""
    if fmt == "terminal":
        return [_rich(b) for b in boards]
    if fmt == "markdown":
        return "\n\n".join(_markdown(b) for b in boards) + "\n"
    if fmt == "csv":
        return _csv(boards)
    if fmt == "latex":
        return "\n\n".join(_latex(b) for b in boards) + "\n"
    if fmt == "html":
        return "\n".join(board_html(b) for b in boards)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def _rich(board: Board) -> Any:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(board.title), caption=escape(" · ".join(board.notes)) or None)
    table.add_column("model")
    for column in board.columns:
        table.add_column(escape(column), justify="right")
    for row in board.rows:
        table.add_row(escape(row.model), *(cell_text(c).replace(" [", "\n[").replace(" n=", "\nn=") for c in row.cells))
    return table


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown(board: Board) -> str:
    lines = [f"**{_md_escape(board.title)}**", "",
             "| model | " + " | ".join(_md_escape(c) for c in board.columns) + " |",
             "|---|" + "---:|" * len(board.columns)]
    lines += ["| " + _md_escape(row.model) + " | " + " | ".join(cell_text(c) for c in row.cells) + " |"
              for row in board.rows]
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
        cells = ["--" if c is None else (f"{_num(c.value)}\\,{{\\scriptsize [{_num(c.ci_low)}, {_num(c.ci_high)}]; "
                                         f"$n={c.n}$}}") for c in row.cells]
        lines.append(" & ".join([latex_escape(row.model), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def board_html(board: Board) -> str:
    """One board as an HTML table (class ``board``), notes below it."""
    def e(s: object) -> str:
        return html.escape(str(s), quote=True)
    head = "<tr><th>model</th>" + "".join(f"<th>{e(c)}</th>" for c in board.columns) + "</tr>"
    body = []
    for row in board.rows:
        cells = "".join("<td class='num missing'>-</td>" if c is None else
                        f"<td class='num'><b>{_num(c.value)}</b> <span class='ci'>[{_num(c.ci_low)}, "
                        f"{_num(c.ci_high)}]</span> <span class='n'>n={c.n}</span></td>" for c in row.cells)
        body.append(f"<tr><th>{e(row.model)}</th>{cells}</tr>")
    notes = "".join(f"<p class='note'>{e(n)}</p>" for n in board.notes)
    return (f"<figure class='board' data-layout='{e(board.layout)}'><figcaption>{e(board.title)}</figcaption>"
            f"<table>{head}{''.join(body)}</table>{notes}</figure>")
