"""`physeval report RUN...`: per-model outcome reasons, the scaling fit and lengths in the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.cli import main


def test_several_runs_get_reasons_per_model_scaling_and_lengths(scripted_runs: dict[str, list[Path]],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(p) for p in scripted_runs["numeric"]]
    assert main(["report", *runs, "--no-breakdowns", "--scaling", "--lengths"]) == 0
    out = capsys.readouterr().out
    assert out.count("why samples ended:") == 3  # one line under each run's summary
    assert "why samples ended, per model" in out and "cut off" in out and "dimension mismatch" in out
    assert "PHYBench Table 7" in out and "k=16:" in out  # K = 4 samples: extrapolated to 2K and 4K
    assert "response lengths" in out and "(n=10)" in out


def test_reasoning_without_a_server_count_is_estimated_on_the_run_line_and_in_lengths(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from physeval.testing import Reply, ScriptedServer

    thinking = " ".join(["consider the forces"] * 250)  # about 700 words of reasoning, as in the issue
    out = tmp_path / "run"
    with ScriptedServer(lambda r: Reply.text("so \\boxed{1}", reasoning=thinking)) as server:
        main(["run", "bank-numeric", "--model", "openai/thinker", "--base-url", server.base_url, "--limit", "2",
              "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("tokens:"))
    assert "(0 reasoning)" not in line and "estimated from the reasoning text of 8 samples" in " ".join(err.split())
    assert main(["report", str(out), "--lengths"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    # the scripted server counts the answer alone (2 tokens): the count cannot hold the reasoning,
    # so each sample's reasoning is its characters / 4, and the answer keeps its own 2 tokens
    assert "(n=8, est.)" in text and "estimated from the stored reasoning text" in text
    assert f"~{8 * round(len(thinking) / 4):,} reasoning" in line
    tokens = json.loads((out / "summary.json").read_text())["provenance"]["tokens"]
    assert tokens["reasoning_estimated"] == 8 * round(len(thinking) / 4) and tokens["reasoning_estimated_samples"] == 8


def test_a_summary_written_before_the_estimate_was_recorded_still_shows_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from physeval.testing import Reply, ScriptedServer

    thinking = "consider the forces " * 40
    out = tmp_path / "run"
    with ScriptedServer(lambda r: Reply.text("so \\boxed{1}", reasoning=thinking)) as server:
        main(["run", "bank-numeric", "--model", "openai/thinker", "--base-url", server.base_url, "--limit", "1",
              "--out", str(out), "--no-progress"])
    summary = json.loads((out / "summary.json").read_text())
    for key in ("reasoning_estimated", "reasoning_estimated_samples"):  # as an older physeval wrote it
        del summary["provenance"]["tokens"][key]
    (out / "summary.json").write_text(json.dumps(summary))
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert "estimated from the reasoning text of 4 samples" in " ".join(capsys.readouterr().err.split())
