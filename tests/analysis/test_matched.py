"""Matched-stage analysis on a hand-built pair of scene runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.rows import row, store_run
from physeval.analysis.matched import matched_stage
from physeval.errors import UserError

STAGES = {"error": (False, False, False), "executable": (True, False, False), "rendered": (True, True, False),
          "playable": (True, True, True)}


def scene(pid: str, sample: int, stage: str, correct: bool = False):  # type: ignore[no-untyped-def]
    executable, rendered, playable = STAGES[stage]
    return row(pid, correct, sample=sample, outcome="correct" if correct else stage, stage=stage,
               executable=executable, rendered=rendered, playable=playable, judged=playable)


def test_only_samples_every_run_reached_are_measured(tmp_path: Path) -> None:
    a = store_run(tmp_path / "a", [scene("p", 0, "playable", True), scene("p", 1, "playable"),
                                   scene("q", 0, "rendered"), scene("q", 1, "executable")], task="bank-scene", model="A")
    b = store_run(tmp_path / "b", [scene("p", 0, "playable"), scene("p", 1, "error"),
                                   scene("q", 0, "playable", True), scene("q", 1, "executable")],
                  task="bank-scene", model="B")
    executable = matched_stage([a, b], "executable")
    # (p,0), (q,0), (q,1) were executable in both; (p,1) failed in B
    assert (executable.size, executable.common, executable.problems) == (3, 4, 2)
    metrics_a = dict(executable.runs[0].metrics)
    # A: p -> render 1/1, q -> 1/2: per-problem mean (1 + 0.5) / 2; playable p 1, q 0 -> 0.5
    assert metrics_a["render_rate"].value == pytest.approx(0.75) and metrics_a["playable_rate"].value == 0.5
    assert metrics_a["render_rate"].n == 2 and metrics_a["render_rate"].n_samples == 3
    playable = matched_stage([a, b], "playable")
    assert playable.size == 1  # only (p, 0)
    assert dict(playable.runs[0].metrics)["accuracy"].value == 1.0 and dict(playable.runs[1].metrics)["accuracy"].value == 0


def test_matched_refuses_non_scene_or_mixed_runs(tmp_path: Path) -> None:
    a = store_run(tmp_path / "a", [row("1", True)], task="bank-numeric")
    with pytest.raises(UserError, match="scene runs"):
        matched_stage([a], "playable")
    with pytest.raises(UserError, match="unknown stage"):
        matched_stage([a], "judged")
