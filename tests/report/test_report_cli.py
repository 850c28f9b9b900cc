"""`physeval report RUN...`: per-model outcome reasons, the scaling fit and lengths in the terminal."""

from __future__ import annotations

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
