"""The HTML reports and run comparison, from real runs against the scripted server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fixture_tasks import ArithmeticTask
from physeval.cli import main
from physeval.report import comparison_table, write_html_report
from physeval.report.html import write_multi_report
from physeval.tasks.registry import register_task
from physeval.testing import ScriptedServer

register_task(ArithmeticTask)


@pytest.fixture
def run_dir(arithmetic_server: ScriptedServer, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert main(["run", "arithmetic", "--model", "openai/scripted", "--base-url", arithmetic_server.base_url,
                 "--samples", "2", "--out", str(out), "--no-progress"]) == 0
    return out


def _no_network(page: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*['"]?(https?:)?//""", page), "the report must load nothing"


def test_html_report_is_self_contained_with_cards_first(run_dir: Path) -> None:
    page = write_html_report(run_dir).read_text()
    assert page.startswith("<!doctype html>") and "arithmetic" in page
    _no_network(page)
    # headline cards come before the first plot, each with its interval and n
    assert page.index("id='headline'") < page.index("data:image/png;base64,")
    card = re.search(r"<div class='card' data-metric='accuracy'>(.*?)</div></div>", page)
    assert card and "66.7%" in card.group(1) and "n = 12 problems · 24 samples" in card.group(1)
    assert page.count("data:image/png;base64,") >= 4  # rates, per-group bars, outcomes, lengths
    assert "The sum is" in page and "parity = even" in page and "maj@2 omitted" in page


def test_sample_browser_rows_carry_their_filters(run_dir: Path) -> None:
    page = write_html_report(run_dir).read_text()
    rows = re.findall(r"<tr (?:hidden )?data-reason='(\w+)' data-domain='[^']*' data-variant='(\d+)'>", page)
    assert len(rows) == 24 and {reason for reason, _ in rows} == {"correct", "wrong"}
    assert sum(reason == "wrong" for reason, _ in rows) == 8  # ids 0, 3, 6, 9 are answered wrong, twice each
    assert "<select name='reason'>" in page and "<select name='variant'>" in page


def test_report_html_flag_and_compare(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir), "--html"]) == 0
    assert (run_dir / "report.html").is_file()
    capsys.readouterr()
    assert main(["compare", str(run_dir), str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert out.count("0.667") >= 2  # accuracy of both columns
    assert "paired by problem" in out and "+0.000" in out  # a run against itself differs by nothing


def test_report_of_several_runs_writes_the_multi_run_report(run_dir: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "all.html"
    assert main(["report", str(run_dir), str(run_dir), "--html", str(out)]) == 0
    page = out.read_text()
    assert "data-report='multi'" in page and "(ABench Table 2 columns)" in page and "class='paired'" in page
    _no_network(page)
    assert write_multi_report([run_dir], tmp_path / "one.html").is_file()


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


def test_report_prints_breakdowns_reasons_and_notes(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "by parity" in out and "even" in out and "samples" in out and "note: maj@2 omitted" in out
    assert "why samples ended: correct 16 (67%) · wrong 8 (33%)" in out
    assert main(["report", str(run_dir), "--no-breakdowns"]) == 0
    assert "by parity" not in capsys.readouterr().out


def test_no_breakdowns_reaches_the_html_report(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "plain.html"
    assert main(["report", str(run_dir), "--no-breakdowns", "--html", str(out)]) == 0
    page = out.read_text()
    assert "id='groups'" not in page and "parity = even" not in page and "id='headline'" in page


def test_multi_report_pairs_scene_stage_rates_and_shows_sample_efficiency(scripted_runs: dict[str, list[Path]],
                                                                         tmp_path: Path) -> None:
    runs = [p for kind in ("symbolic", "scene") for p in scripted_runs[kind]]
    page = write_multi_report(runs, tmp_path / "multi.html").read_text()
    for metric in ("accuracy", "playable_rate", "render_rate", "executable_rate", "eed"):
        assert f"<h3>{metric}</h3>" in page
    assert "sample efficiency of EED over accuracy" in page and "table class='efficiency'" in page
    assert "sign-flip test" in page and "<nav class='toc'>" in page
