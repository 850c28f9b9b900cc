"""The HTML report and run comparison, from a real run against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_tasks import ArithmeticTask

from physeval.cli import main
from physeval.report import comparison_table, write_html_report
from physeval.tasks.registry import register_task
from physeval.testing import ScriptedServer

register_task(ArithmeticTask)


@pytest.fixture
def run_dir(arithmetic_server: ScriptedServer, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert main(["run", "arithmetic", "--model", "openai/scripted", "--base-url", arithmetic_server.base_url,
                 "--samples", "2", "--out", str(out), "--no-progress"]) == 0
    return out


def test_html_report_is_self_contained_with_plots(run_dir: Path) -> None:
    page = write_html_report(run_dir).read_text()
    assert page.startswith("<!doctype html>") and "arithmetic" in page
    assert page.count("data:image/png;base64,") >= 3  # metrics, breakdown, outcomes (latency too)
    assert "<script" not in page and "http" not in page.split("<h2>Configuration</h2>")[0].replace("http://127", "")
    assert "pass@2" in page and "The sum is" in page  # metrics table and the responses
    assert "parity = even" in page and "maj@2 omitted" in page  # grouped rows and the notes


def test_report_html_flag_and_compare(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir), "--html"]) == 0
    assert (run_dir / "report.html").is_file()
    capsys.readouterr()
    assert main(["compare", str(run_dir), str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert out.count("0.667") >= 2  # accuracy of both columns


def test_summary_keeps_groups_out_of_metric_names(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    names = list(summary["metrics"])
    assert "accuracy" in names and not any("=" in n or "/" in n for n in names)
    parity = summary["breakdowns"]["parity"]
    assert list(parity) == ["even", "odd"] and all("accuracy" in m for m in parity.values())
    # 12 problems (6 even, 6 odd) x 2 samples; arithmetic grades carry no answer class
    assert summary["metrics"]["accuracy"]["n"] == 12 and summary["metrics"]["accuracy"]["n_samples"] == 24
    assert parity["even"]["accuracy"]["n"] == 6 and parity["even"]["accuracy"]["n_samples"] == 12
    assert "maj@2" not in names and any("maj@2 omitted" in note for note in summary["notes"])
    grouped = sum(len(m) for m in parity.values())
    assert comparison_table([run_dir]).row_count == len(names)
    assert comparison_table([run_dir], breakdowns=True).row_count == len(names) + grouped


def test_report_prints_breakdowns_and_notes(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "by parity" in out and "even" in out and "samples" in out and "note: maj@2 omitted" in out
    assert main(["report", str(run_dir), "--no-breakdowns"]) == 0
    assert "by parity" not in capsys.readouterr().out
