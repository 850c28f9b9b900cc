"""Why answers fail, and response lengths, on hand-written rows."""

from __future__ import annotations

from analysis.rows import row
from physeval.analysis.lengths import estimated_reasoning_tokens, response_lengths
from physeval.analysis.outcomes import outcome_breakdown, sample_reason
from physeval.store import SampleRow


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


def test_an_answer_stored_but_not_graded_is_ungraded_not_a_request_error() -> None:
    """A run stopped by a full disk or a kill keeps its answers before grading them: the model did
    answer (found from outside: they were shown as request_error)."""
    answered = row("1", True).as_ungraded()
    assert sample_reason(answered) == "ungraded"
    breakdown = outcome_breakdown([answered, row("2", None, status="error", outcome=None, error_kind="server_error")])
    assert breakdown.counts == (("ungraded", 1), ("request_error", 1))


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


def _reasoning_row(pid: str, *, reasoning: str, completion: str, usage: dict) -> SampleRow:  # type: ignore[type-arg]
    r = row(pid, True)
    return SampleRow(**{**r.__dict__, "reasoning": reasoning, "completion": completion, "usage": usage})


def test_reasoning_the_server_did_not_count_is_estimated_from_its_text_never_zero() -> None:
    # 3000 characters of reasoning and 1000 of answer in a 1200-token completion: by proportion
    # 900 reasoning tokens and 300 answer tokens. Without a completion count: 3000 / 4 = 750.
    with_count = _reasoning_row("1", reasoning="r" * 3000, completion="a" * 1000,
                                usage={"completion_tokens": 1200})
    zero_reported = _reasoning_row("2", reasoning="r" * 3000, completion="a" * 1000,
                                   usage={"completion_tokens": 1200, "reasoning_tokens": 0})
    no_count = _reasoning_row("3", reasoning="r" * 3000, completion="a" * 1000, usage={})
    assert estimated_reasoning_tokens(with_count) == 900 and estimated_reasoning_tokens(no_count) == 750
    lengths = response_lengths([with_count, zero_reported, no_count], "m")
    assert lengths.reasoning is not None and lengths.reasoning.values == (900, 900, 750)
    assert lengths.answer is not None and lengths.answer.values == (300, 300)  # Fig. 7's split
    assert lengths.reasoning_source == "estimated" and lengths.reasoning_estimated == 3
    assert "estimated from the stored reasoning text" in lengths.reasoning_label
    reported = _reasoning_row("4", reasoning="r" * 10, completion="a", usage={"completion_tokens": 50,
                                                                              "reasoning_tokens": 40})
    mixed = response_lengths([reported, with_count], "m")
    assert mixed.reasoning.values == (40, 900) and mixed.reasoning_source == "reported and estimated"  # type: ignore[union-attr]
    assert mixed.answer.values == (10, 300)  # type: ignore[union-attr]
    plain = response_lengths([row("5", True, tokens=80)], "m")  # no reasoning anywhere: none, not 0
    assert plain.reasoning is None and plain.answer is None and plain.reasoning_source == "none"
