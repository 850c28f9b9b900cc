"""`physeval leaderboard` over three scripted-model runs per task: every paper's layout, every format."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from physeval.cli import main


def _all(scripted_runs: dict[str, list[Path]]) -> list[str]:
    return [str(p) for kind in ("numeric", "dynamic", "symbolic", "scene") for p in scripted_runs[kind]]


def test_terminal_leaderboard_prints_the_three_papers_layouts(scripted_runs: dict[str, list[Path]],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", *_all(scripted_runs)]) == 0
    out = capsys.readouterr().out
    for title in ("bank-numeric (ABench Table 2 columns)", "PHYBench (main table layout)",
                  "SimuScene (Table 2 layout)", "SimuScene (Table 3 layout)"):
        assert title in out
    assert "ABench-Physics" not in out and "Phy_B" not in out  # bank-numeric is not ABench
    for header in ("accuracy", "dynamic", "EED", "E.R. Avg@2", "Acc. Pass@2", "electromagnetism"):
        assert header in out
    assert {"strong", "medium", "weak"} <= set(re.findall(r"│ (strong|medium|weak) ", out))


def test_strong_beats_weak_in_every_layout(scripted_runs: dict[str, list[Path]],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", *_all(scripted_runs), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    value = {(r["table"], r["model"], r["column"]): r["value"] for r in rows}
    for table, column in (("abench", "accuracy"), ("abench", "dynamic"), ("phybench", "Acc."),
                          ("phybench", "EED")):
        assert float(value[table, "strong", column]) > float(value[table, "weak", column])
    assert all(r["n"] for r in rows if r["value"])  # every number carries its n


def test_latex_is_balanced_with_the_right_column_count(scripted_runs: dict[str, list[Path]], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "boards.tex"
    assert main(["leaderboard", *_all(scripted_runs), "--format", "latex", "--output", str(out)]) == 0
    text = out.read_text()
    tabulars = re.findall(r"\\begin\{tabular\}\{([lrc]+)\}(.*?)\\end\{tabular\}", text, re.DOTALL)
    assert len(tabulars) == text.count("\\begin{tabular}") == text.count("\\end{tabular}") == 4
    widths = []
    for spec, body in tabulars:
        rows = [line for line in body.splitlines() if line.rstrip().endswith("\\\\")]
        assert len(rows) == 4  # header and three models
        assert {line.count(" & ") + 1 for line in rows} == {len(spec)}
        assert body.count("{") == body.count("}") and body.count("$") % 2 == 0
        widths.append(len(spec))
    assert widths[0] == 5 and widths[2] == 9  # model + Phy_A, static, dynamic, delta; model + 4 rates x 2


def test_a_model_without_a_run_gets_dashes(scripted_runs: dict[str, list[Path]],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # weak has only its dynamic run here: its Phy_A cell is a dash, the others hold numbers
    runs = [str(p) for p in scripted_runs["numeric"][:2]] + [str(p) for p in scripted_runs["dynamic"]]
    assert main(["leaderboard", *runs, "--format", "markdown", "--layout", "abench"]) == 0
    out = capsys.readouterr().out
    weak = next(line for line in out.splitlines() if line.startswith("| weak |"))
    assert weak.split(" | ")[1] == "-" and "n=10" in weak
    assert "PHYBench" not in out


def test_leaderboard_of_no_fitting_run_is_a_user_error(tmp_path: Path) -> None:
    assert main(["leaderboard", str(tmp_path)]) == 2


def test_crashing_scene_programs_count_against_the_executable_rate(scripted_runs: dict[str, list[Path]]) -> None:
    from physeval.analysis.runs import load_run

    for path in scripted_runs["scene"]:
        run = load_run(path)
        crashed = [r for r in run.rows if (r.grade or {}).get("stage") == "error"]
        assert all(r.status == "answered" and r.outcome == "runtime_error" for r in crashed)
        executable = run.summary.metrics["executable_rate"]
        assert executable.n_samples == len(run.rows)  # every program is in the denominator
        if crashed:
            assert executable.value < 1.0
    assert any((r.grade or {}).get("stage") == "error" for p in scripted_runs["scene"] for r in load_run(p).rows)


def test_leaderboard_help_says_95_percent(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["leaderboard", "--help"])
    out = capsys.readouterr().out
    assert "95% CI" in " ".join(out.split()) and "%%" not in out
