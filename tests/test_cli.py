"""The command line end to end against the scripted server (fixture task registered here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixture_tasks import ArithmeticTask
from physeval.cli import main
from physeval.tasks.registry import register_task
from physeval.testing import ScriptedServer

register_task(ArithmeticTask)


def test_run_writes_summary_and_report_prints_it(arithmetic_server: ScriptedServer, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["run", "arithmetic", "--model", "openai/test", "--base-url", arithmetic_server.base_url,
                 "--samples", "2", "--out", str(out), "--no-progress"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["task"] == "arithmetic" and summary["model"] == "openai/test"
    assert summary["counts"] == {**summary["counts"], "problems": 12, "samples": 24, "graded": 24, "errors": 0}
    accuracy = summary["metrics"]["accuracy"]
    assert accuracy["value"] == pytest.approx(8 / 12) and accuracy["ci_low"] <= accuracy["value"] <= accuracy["ci_high"]
    assert "pass@2" in summary["metrics"] and "accuracy" in summary["breakdowns"]["parity"]["even"]
    assert summary["config"]["samples"] == 2
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert "accuracy" in capsys.readouterr().out


def test_resume_reuses_the_stored_invocation(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    main(["run", "arithmetic", "--model", "openai/test", "--base-url", arithmetic_server.base_url,
          "--limit", "3", "--out", str(out), "--no-progress"])
    asked = len(arithmetic_server.requests)
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0  # nothing left to ask
    assert len(arithmetic_server.requests) == asked


def test_score_matches_ids_as_strings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    responses = tmp_path / "r.jsonl"
    responses.write_text("\n".join([
        json.dumps({"id": 1, "response": "\\boxed{11}"}),  # 4 + 7, right
        json.dumps({"id": "2", "variant": 0, "response": "\\boxed{0}"}),
        "not json at all",
        json.dumps({"id": 999, "response": "\\boxed{1}"}),
    ]) + "\n")
    out = tmp_path / "scored"
    assert main(["score", "arithmetic", "--responses", str(responses), "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["samples"] == 2 and summary["metrics"]["accuracy"]["value"] == 0.5
    err = capsys.readouterr().err
    assert "line 3" in err and "999/0" in err


def test_export_and_user_errors(arithmetic_server: ScriptedServer, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    main(["run", "arithmetic", "--model", "openai/test", "--base-url", arithmetic_server.base_url,
          "--limit", "2", "--out", str(out), "--no-progress"])
    assert main(["export", str(out), "--format", "jsonl"]) == 0
    assert len((out / "samples.jsonl").read_text().splitlines()) == 2
    assert main(["run", "no-such-task", "--no-progress", "--out", str(tmp_path / "x")]) == 2
    assert "unknown task" in capsys.readouterr().err
    assert main(["run", "arithmetic", "--model", "nonsense", "--out", str(tmp_path / "y")]) == 2
    assert main(["export", str(tmp_path / "nowhere")]) == 2


def test_every_subcommand_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    from physeval.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in commands:
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0
        assert "usage: physeval" in capsys.readouterr().out


def test_missing_data_is_one_clear_line_and_leaves_no_run_dir(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never"
    assert main(["run", "abench-a", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
                 "--out", str(out), "--no-progress"]) == 2
    assert "Phy_A_fixed_400.csv" in capsys.readouterr().err and not out.exists()


def test_two_runs_started_in_the_same_second_get_two_folders(arithmetic_server: ScriptedServer, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The default folder is named to the second: a script's second run with another seed, in the
    same second, stopped with "run with other settings" (a docs page's probe runs did on a fast
    machine). The clock is frozen here, so both runs see the same second whatever the load."""
    from datetime import UTC, datetime

    import physeval.flow.record as record

    frozen = datetime(2026, 12, 7, 2, 11, 29, tzinfo=UTC)

    class FrozenClock(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def, override]
            return frozen

    monkeypatch.setattr(record, "datetime", FrozenClock)
    monkeypatch.chdir(tmp_path)
    for seed in ("1", "2", "2"):
        assert main(["run", "arithmetic", "--model", "openai/test", "--base-url", arithmetic_server.base_url,
                     "--limit", "2", "--seed", seed, "--no-progress"]) == 0
    folders = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert folders == ["20261207T021129Z_arithmetic_openai-test", "20261207T021129Z_arithmetic_openai-test-2",
                       "20261207T021129Z_arithmetic_openai-test-3"]
    seeds = [json.loads((tmp_path / "runs" / f / "summary.json").read_text())["config"]["seed"] for f in folders]
    assert seeds == [1, 2, 2]  # each run in its own folder, none resumed another


def test_no_cache_lasts_one_command(arithmetic_server: ScriptedServer, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--no-cache`` turns the grading cache off for its command and the workers it starts; a
    ``main()`` called in a process that goes on left it off for good, and a later command in that
    process (a docs page's ``physeval cache info``, in the test run) reported the cache "off"."""
    import os

    monkeypatch.delenv("PHYSEVAL_EED_CACHE", raising=False)
    assert main(["run", "arithmetic", "--model", "openai/test", "--base-url", arithmetic_server.base_url,
                 "--limit", "2", "--no-cache", "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    assert "PHYSEVAL_EED_CACHE" not in os.environ
    capsys.readouterr()
    assert main(["cache", "info"]) == 0
    assert "(off" not in capsys.readouterr().out
