"""Why answers fail, and response lengths, on hand-written rows."""

from __future__ import annotations

from analysis.rows import row
from physeval.analysis.lengths import response_lengths
from physeval.analysis.outcomes import outcome_breakdown, sample_reason


def test_every_sample_gets_one_reason() -> None:
    rows = [row("1", True), row("2", False), row("3", False, outcome="dimension_mismatch"),
            row("4", False, outcome="no_answer", finish_reason="length"),  # cut off, whatever was read
            row("5", None, status="error", outcome=None, error_kind="rate_limit"),
            row("6", None, status="error", outcome="error", error_kind="grader"),
            row("7", False, outcome="unparseable"), row("8", True, finish_reason="length")]
    breakdown = outcome_breakdown(rows, "m")
    assert breakdown.counts == (("correct", 2), ("wrong", 1), ("dimension_mismatch", 1), ("unparseable", 1),
                                ("cut_off", 1), ("grader_error", 1), ("request_error", 1))
    assert breakdown.total == 8 and breakdown.share("correct") == 0.25


def test_scene_samples_stop_at_a_stage() -> None:
    assert sample_reason(row("s", False, outcome="no_code", stage="no_code")) == "no_code"
    assert sample_reason(row("s", False, outcome="executable", stage="executable")) == "no_video"
    assert sample_reason(row("s", False, stage="playable", judged=True)) == "judged_wrong"
    assert sample_reason(row("s", False, outcome="unjudged", stage="playable", judged=False)) == "not_judged"
    # a crashing program is stored as an error row of kind "grader" with stage "error": it is a runtime error
    crashed = row("s", None, status="error", outcome="error", error_kind="grader", stage="error")
    assert sample_reason(crashed) == "runtime_error"
    unsandboxed = row("s", None, status="error", outcome="error", error_kind="sandbox", stage="sandbox_error")
    assert sample_reason(unsandboxed) == "sandbox_error"


def test_lengths_and_accuracy_by_length() -> None:
    rows = [row("1", True, tokens=10), row("2", True, tokens=20), row("3", False, tokens=30),
            row("4", False, tokens=40, finish_reason="length"), row("5", True), row("6", None, status="error")]
    lengths = response_lengths(rows, "m", bins=2)
    assert lengths.completion is not None and lengths.completion.n == 4
    assert (lengths.completion.mean, lengths.completion.median, lengths.completion.max) == (25.0, 25.0, 40.0)
    assert [(b.low, b.high, b.n, b.accuracy) for b in lengths.accuracy_by_length] == [(10, 20, 2, 1.0),
                                                                                     (30, 40, 2, 0.0)]
    assert lengths.reasoning is None and lengths.cut_off == 1


def test_equal_lengths_stay_in_one_bin() -> None:
    rows = [row(str(i), i % 2 == 0, tokens=t) for i, t in enumerate([5, 5, 5, 9])]
    assert [(b.low, b.high, b.n) for b in response_lengths(rows, bins=2).accuracy_by_length] == [(5, 5, 3), (9, 9, 1)]
