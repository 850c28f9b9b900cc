"""Leaderboards from hand-written summaries: layouts, dashes for missing runs, and the five formats."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

from physeval.analysis.leaderboard import board_html, leaderboards, render_boards
from physeval.analysis.runs import Run
from physeval.summary import RunSummary


def m(value: float, n: int = 10) -> dict[str, Any]:
    return {"value": value, "ci_low": value - 0.05, "ci_high": value + 0.05, "n": n, "n_samples": 4 * n}


def run(model: str, task: str, track: str, metrics: dict[str, Any], *, dynamic: bool = False,
        breakdowns: dict[str, Any] | None = None) -> Run:
    summary = RunSummary.from_dict({"task": task, "model": model, "metrics": metrics, "breakdowns": breakdowns or {}})
    return Run(Path(f"/runs/{task}-{model}"), task, model, track, dynamic, summary, (), {})


def test_abench_layout_pairs_phy_a_and_phy_b_by_model_and_leaves_dashes() -> None:
    runs = [run("x", "abench-a", "numeric", {"accuracy": m(0.5)}),
            run("x", "abench-b", "numeric", {"static_accuracy": m(0.6), "dynamic_accuracy": m(0.4),
                                             "delta": m(0.2)}, dynamic=True),
            run("y", "abench-b", "numeric", {"static_accuracy": m(0.3), "dynamic_accuracy": m(0.1),
                                             "delta": m(0.2)}, dynamic=True)]
    (board,) = leaderboards(runs)
    assert board.columns == ("Phy_A acc.", "Phy_B static", "Phy_B dynamic", "Δ")
    x, y = board.rows
    assert [c.value if c else None for c in x.cells] == pytest.approx([50.0, 60.0, 40.0, 20.0])
    assert y.cells[0] is None and y.cells[2].value == pytest.approx(10.0)  # type: ignore[union-attr]
    assert "| y | - | 30.0 [25.0, 35.0] n=10 |" in render_boards([board], "markdown")


def test_phybench_layout_has_accuracy_and_eed_per_tag() -> None:
    tags = {"tag": {"MECHANICS": {"accuracy": m(0.5, 3), "eed_mean": m(60.0, 3)}, "OPTICS": {"accuracy": m(0.2, 2)}}}
    (board,) = leaderboards([run("x", "phybench", "symbolic", {"accuracy": m(0.4), "eed_mean": m(55.0)},
                                 breakdowns=tags)])
    assert board.columns == ("Acc.", "EED", "Mechanics Acc.", "Mechanics EED", "Optics Acc.", "Optics EED")
    cells = board.rows[0].cells
    assert cells[1].value == 55.0 and cells[3].value == 60.0 and cells[5] is None  # type: ignore[union-attr]


def test_simuscene_tables_two_and_three() -> None:
    metrics = {"executable_rate": m(0.9), "executable_pass@4": m(1.0), "render_rate": m(0.8),
               "render_pass@4": m(0.9), "playable_rate": m(0.7), "playable_pass@4": m(0.8), "accuracy": m(0.3),
               "pass@4": m(0.5)}
    domains = {"domain": {"optics": {"accuracy": m(0.25, 4), "pass@4": m(0.5, 4)},
                          "mechanics": {"accuracy": m(0.5, 6), "pass@4": m(0.75, 6)}}}
    table2, table3 = leaderboards([run("x", "simuscene", "scene", metrics, breakdowns=domains)])
    assert table2.columns[:2] == ("E.R. Avg@4", "E.R. Pass@4") and table2.columns[-1] == "Acc. Pass@4"
    assert [c.value for c in table2.rows[0].cells] == pytest.approx([90, 100, 80, 90, 70, 80, 30, 50])  # type: ignore[union-attr]
    assert table3.columns == ("mechanics Avg@4", "mechanics Pass@4", "optics Avg@4", "optics Pass@4")
    assert [c.value for c in table3.rows[0].cells] == pytest.approx([50, 75, 25, 50])  # type: ignore[union-attr]


def _check_latex(text: str) -> None:
    """A LaTeX-free check: every tabular is closed, every row has as many cells as the column spec."""
    assert text.count("\\begin{tabular}") == text.count("\\end{tabular}") > 0
    for spec, body in re.findall(r"\\begin\{tabular\}\{([lrc]+)\}(.*?)\\end\{tabular\}", text, re.DOTALL):
        rows = [line for line in body.splitlines() if line.rstrip().endswith("\\\\")]
        assert rows and all(line.count(" & ") + 1 == len(spec) for line in rows), (spec, rows)
        assert body.count("\\toprule") == body.count("\\midrule") == body.count("\\bottomrule") == 1
        assert body.count("{") == body.count("}")


def test_formats_latex_csv_html() -> None:
    boards = leaderboards([run("model_1 & co", "abench-a", "numeric", {"accuracy": m(0.5)}),
                           run("y%", "abench-b", "numeric", {"static_accuracy": m(0.6)}, dynamic=True)])
    latex = render_boards(boards, "latex")
    _check_latex(latex)
    assert "model\\_1 \\& co" in latex and "y\\%" in latex and "--" in latex
    rows = list(csv.DictReader(io.StringIO(render_boards(boards, "csv"))))
    assert len(rows) == 8 and rows[0] == {"table": "abench", "model": "model_1 & co", "column": "Phy_A acc.",
                                          "value": "50.0000", "ci_low": "45.0000", "ci_high": "55.0000", "n": "10"}
    assert rows[1]["value"] == ""  # a missing run: an empty cell, not a zero
    page = render_boards(boards, "html")
    assert page.count("<tr>") == 3 and "model_1 &amp; co" in page and "class='scroll'" in page


def test_only_abench_runs_fill_phy_a_and_phy_b_and_argument_order_never_decides() -> None:
    bank_static = run("x", "bank-numeric", "numeric", {"accuracy": m(0.5)})
    bank_dynamic = run("x", "bank-numeric", "numeric", {"static_accuracy": m(0.6), "dynamic_accuracy": m(0.4),
                                                        "delta": m(0.2)}, dynamic=True)
    (board,) = leaderboards([bank_static, bank_dynamic])
    assert board.title == "bank-numeric (ABench Table 2 columns)" and "Phy_B" not in " ".join(board.columns)
    assert [c.value for c in board.rows[0].cells] == pytest.approx([50, 60, 40, 20])  # type: ignore[union-attr]
    # two abench-b runs of one model: the one with more graded samples is shown, whatever the order
    small = run("x", "abench-b", "numeric", {"dynamic_accuracy": m(0.1)}, dynamic=True)
    big = Run(Path("/runs/b-big"), "abench-b", "x", "numeric", True,
              RunSummary.from_dict({"task": "abench-b", "model": "x", "metrics": {"dynamic_accuracy": m(0.7)},
                                    "counts": {"answered": 40}}),  # a version 1 summary: "answered" is "graded"
              (), {})
    for order in ([small, big], [big, small]):
        (abench,) = leaderboards(order)
        assert abench.title.startswith("ABench") and abench.rows[0].cells[2].value == 70.0  # type: ignore[union-attr]
        assert any("2 runs for Phy_B; shown: /runs/b-big" in n for n in abench.notes)


def test_rows_are_sorted_best_first_and_the_best_of_each_column_is_bold() -> None:
    runs = [run(name, "abench-b", "numeric", {"static_accuracy": m(s), "dynamic_accuracy": m(d), "delta": m(s - d)},
                dynamic=True) for name, s, d in (("low", 0.5, 0.2), ("high", 0.6, 0.5), ("mid", 0.9, 0.3))]
    (board,) = leaderboards(runs)
    assert [r.model for r in board.rows] == ["high", "mid", "low"]  # by Phy_B dynamic
    high, mid, low = board.rows
    assert board.is_best(high, 2) and board.is_best(mid, 1) and board.is_best(high, 3)  # delta: the smallest wins
    assert "| high | - | 60.0 [55.0, 65.0] n=10 | **50.0** [45.0, 55.0] n=10 | **10.0**" in render_boards(
        [board], "markdown")
    assert "\\textbf{90.0}" in render_boards([board], "latex") and "<strong>50.0</strong>" in board_html(board)
    page = render_boards([board], "html")
    assert page.startswith("<!doctype html>") and "<meta charset='utf-8'>" in page and "<style>" in page
