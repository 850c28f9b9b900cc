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
    assert main(["run", "arithmetic", "--model", "openai/m", "--base-url", arithmetic_server.base_url,
                 "--samples", "2", "--out", str(out), "--no-progress"]) == 0
    return out


def test_html_report_is_self_contained_with_plots(run_dir: Path) -> None:
    page = write_html_report(run_dir).read_text()
    assert page.startswith("<!doctype html>") and "arithmetic" in page
    assert page.count("data:image/png;base64,") >= 3  # metrics, breakdown, outcomes (latency too)
    assert "<script" not in page and "http" not in page.split("<h2>Configuration</h2>")[0].replace("http://127", "")
    assert "pass@2" in page and "The sum is" in page  # metrics table and the responses


def test_report_html_flag_and_compare(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir), "--html"]) == 0
    assert (run_dir / "report.html").is_file()
    capsys.readouterr()
    assert main(["compare", str(run_dir), str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert out.count("0.667") >= 2  # accuracy of both columns


def test_summary_lists_headline_metrics_before_breakdowns(run_dir: Path) -> None:
    names = list(json.loads((run_dir / "summary.json").read_text())["metrics"])
    first_group = next(i for i, n in enumerate(names) if "/" in n)
    assert all("/" not in n for n in names[:first_group]) and all("/" in n for n in names[first_group:])
    assert comparison_table([run_dir]).row_count == first_group
