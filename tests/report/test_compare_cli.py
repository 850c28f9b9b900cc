"""`physeval compare`: paired by problem over real runs, refusals with the reason, matched stages."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.analysis.paired import PairingError, compare_runs
from physeval.analysis.runs import load_runs
from physeval.cli import main


def test_compare_prints_paired_differences_and_tiers(scripted_runs: dict[str, list[Path]],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(p) for p in scripted_runs["symbolic"]]
    assert main(["compare", *runs, "--metric", "eed"]) == 0
    out = capsys.readouterr().out
    assert "paired by problem: eed" in out and "tiers at 99% confidence" in out
    comparison = compare_runs(load_runs(runs), "eed")
    # with 10 problems strong beats medium at about 98.9 % only, so they share tier 1; weak is below both
    assert comparison.tiers == (("strong", "medium"), ("weak",))
    strong_weak = next(p for p in comparison.pairs if (p.a, p.b) == ("strong", "weak"))
    assert strong_weak.n == 10 and strong_weak.diff > 0 and strong_weak.p_value < 0.01


def test_compare_refuses_runs_of_different_tasks(scripted_runs: dict[str, list[Path]],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    a, b = scripted_runs["numeric"][0], scripted_runs["symbolic"][0]
    assert main(["compare", str(a), str(b)]) == 2
    assert "different tasks" in capsys.readouterr().err
    with pytest.raises(PairingError, match="different tasks"):
        compare_runs(load_runs([a, b]))


def test_partial_overlap_is_reported(scripted_runs: dict[str, list[Path]]) -> None:
    # one variant per problem vs three: variant 0 was asked the same in both, so they pair on it
    static, dynamic = load_runs([scripted_runs["numeric"][0], scripted_runs["dynamic"][1]])
    pair = compare_runs([static, dynamic]).pairs[0]
    assert pair.overlap.partial and pair.overlap.common_items == 10 and pair.overlap.only_b == 20


def test_matched_stage_from_the_command_line(scripted_runs: dict[str, list[Path]],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(p) for p in scripted_runs["scene"]]
    assert main(["compare", *runs, "--matched", "executable"]) == 0
    out = capsys.readouterr().out
    assert "matched at executable:" in out and "common samples" in out and "render_rate" in out
    assert main(["compare", str(scripted_runs["numeric"][0]), "--matched", "playable"]) == 2


def test_a_metric_the_runs_lack_is_refused_before_any_table(scripted_runs: dict[str, list[Path]],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(p) for p in scripted_runs["numeric"]]
    assert main(["compare", *runs, "--metric", "eed"]) == 2
    captured = capsys.readouterr()
    assert "cannot pair on eed" in captured.err and "needs EED scores" in captured.err
    assert "physeval compare" not in captured.out and "0.000" not in captured.out
    assert main(["compare", runs[0], "--matched", "playable"]) == 2
    assert "physeval compare" not in capsys.readouterr().out


def test_paired_output_names_its_methods_and_never_prints_p_zero(scripted_runs: dict[str, list[Path]],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(p) for p in scripted_runs["dynamic"]]
    assert main(["compare", *runs, "--metric", "delta"]) == 0
    out = " ".join(capsys.readouterr().out.split("paired by problem: delta")[1].split())
    assert "sign-flip test, exact" in out and "no interval: 10 problems" in out
    assert "(no interval, n < 20)" in out and " 0.000 " not in out


def test_long_model_names_fold_at_80_columns_instead_of_being_cut(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from analysis.rows import row, store_run
    from physeval.metrics import Metric
    from physeval.report.compare import comparison_table
    from physeval.summary import RunSummary, write_summary

    names = ("openai/Qwen2.5-72B-Instruct-AWQ", "openai/Meta-Llama-3.1-70B-Instruct")
    dirs = []
    for name in names:
        path = tmp_path / name.split("/")[1]
        store_run(path, [row("1", True)], model=name)
        write_summary(path, RunSummary(task="bank-numeric", model=name,
                                       metrics={"accuracy": Metric(0.5, 0.4, 0.6, 10, 10)}))
        dirs.append(path)
    buffer = io.StringIO()
    Console(file=buffer, width=80).print(comparison_table(dirs))
    text = buffer.getvalue()
    assert "…" not in text
    header = [line.split("┃")[1:-1] for line in text.splitlines() if line.startswith("┃")]
    columns = ["".join(cells[i].strip() for cells in header) for i in (1, 2)]  # each run's header, read down
    assert all(name in column for name, column in zip(names, columns))
