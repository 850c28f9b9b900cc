"""Why answers fail: every sample gets exactly one reason, counted per run and per model.

Reasons, in display order. Answers: ``correct``, ``wrong`` (a wrong value), ``dimension_mismatch``,
``unparseable``, ``ambiguous``, ``no_answer``, ``undecided`` (the grader's budget ran out),
``cut_off`` (``finish_reason == "length"`` and not right: the model hit ``max_tokens``; its own
reason whatever the grader read), ``ungraded`` (answered and stored, but the run stopped before
grading it: a resume grades it without asking again), ``request_error`` (no answer from the model),
``grader_error`` (the grader or judge failed). Scenes, for every stage a program stops at: ``no_code``,
``sandbox_error``, ``render_timeout``, ``runtime_error``, ``no_video`` (ran, wrote no video),
``not_playable``, ``not_judged`` (playable, no judge asked), ``judge_unreadable`` (no judge reply
could be read: it measures the judge), ``judged_wrong``, ``correct``.
An outcome name outside these lists is kept as it is (a plugin track's own).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from physeval.analysis.run import Run
from physeval.store import SampleRow

__all__ = [
    "REASONS",
    "OutcomeBreakdown",
    "breakdowns_by_model",
    "outcome_breakdown",
    "run_breakdown",
    "sample_reason",
]

REASONS = ("correct", "wrong", "dimension_mismatch", "unparseable", "ambiguous", "no_answer", "undecided", "timeout",
           "cut_off", "no_code", "sandbox_error", "render_timeout", "runtime_error", "no_video", "not_playable",
           "not_judged", "judge_unreadable", "judged_wrong", "ungraded", "grader_error", "request_error")
_SCENE_STAGE = {"no_code": "no_code", "sandbox_error": "sandbox_error", "timeout": "render_timeout",
                "error": "runtime_error", "executable": "no_video", "rendered": "not_playable"}


@dataclass(frozen=True)
class OutcomeBreakdown:
    """How many of ``total`` samples ended for each reason (reasons in :data:`REASONS` order)."""

    label: str
    total: int
    counts: tuple[tuple[str, int], ...]

    def share(self, reason: str) -> float:
        """The fraction of samples with ``reason`` (0 when there are none)."""
        return dict(self.counts).get(reason, 0) / self.total if self.total else 0.0


def sample_reason(row: SampleRow) -> str:
    """The one reason ``row`` ended as it did (see the module doc for the list)."""
    grade = row.grade or {}
    if row.ungraded:  # the model answered; the run stopped (a full disk, a kill) before the grader ran
        return "ungraded"
    if row.status == "error":
        if row.error_kind == "sandbox":  # no usable sandbox: the program was never run
            return "sandbox_error"
        if row.error_kind == "grader" and grade.get("stage") in _SCENE_STAGE and not grade.get("judged"):
            return _SCENE_STAGE[str(grade["stage"])]  # a scene program that failed is a stage, not a grader fault
        return "grader_error" if row.error_kind in ("grader", "judge") else "request_error"
    if row.finish_reason == "length" and not row.correct:
        return "cut_off"
    if "stage" in grade:
        stage = str(grade.get("stage"))
        if stage in _SCENE_STAGE:
            return _SCENE_STAGE[stage]
        if not grade.get("judged"):
            return "not_judged"
        if not row.correct and (grade.get("judge") or {}).get("outcome") == "unparseable":
            return "judge_unreadable"
        return "correct" if row.correct else "judged_wrong"
    if row.correct:
        return "correct"
    return str(row.outcome or grade.get("outcome") or "wrong")


def outcome_breakdown(rows: Iterable[SampleRow], label: str = "") -> OutcomeBreakdown:
    """Count the reasons of ``rows`` (every row, errors included: they are reasons too)."""
    counter = Counter(sample_reason(r) for r in rows)
    order = [r for r in REASONS if r in counter] + sorted(r for r in counter if r not in REASONS)
    return OutcomeBreakdown(label, sum(counter.values()), tuple((r, counter[r]) for r in order))


def run_breakdown(run: Run, label: str | None = None) -> OutcomeBreakdown:
    """:func:`outcome_breakdown` of one run, labelled with its model."""
    return outcome_breakdown(run.rows, run.model if label is None else label)


def breakdowns_by_model(runs: Sequence[Run]) -> list[OutcomeBreakdown]:
    """One breakdown per model over all of its runs (models in first-seen order)."""
    rows: dict[str, list[SampleRow]] = {}
    for run in runs:
        rows.setdefault(run.model, []).extend(run.rows)
    return [outcome_breakdown(r, model) for model, r in rows.items()]
