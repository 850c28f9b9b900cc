"""The numeric and symbolic graders as rewards: one rollout at a time, and as picklable items.

The same pure graders that score evaluations score rollouts, so a policy is trained on
exactly the judgement it is later evaluated with. Rewards are deterministic; a response that
cannot be read earns 0 and never raises; a grading that itself failed (outcome ``error``: the
reference is not a number, the grader crashed) measured nothing and is ``None``, never a 0.
:func:`numeric_result` and :func:`symbolic_result` take one tuple (module-level, so the shared
grading pool can pickle them by name) and return a
:class:`~physeval.rewards.result.RewardResult` with the grade as its explanation.
"""

from __future__ import annotations

from typing import Any

from physeval.rewards.result import RewardResult

__all__ = ["NumericItem", "SymbolicItem", "numeric_result", "numeric_reward", "symbolic_result", "symbolic_reward"]

NumericItem = tuple[str, "str | None", str, float, float, "str | None"]
"""``(response, reference, question, rel_tol, format_weight, unit)``; ``reference=None``: nothing to
score; ``unit``: the required unit given explicitly (``None``: the one the question states)."""

SymbolicItem = tuple[str, "str | None", bool]
"""``(response, reference, partial_credit)``; ``reference=None``: nothing to score."""


def numeric_reward(response: str, reference: str, question: str = "", *, rel_tol: float = 0.01,
                   format_weight: float = 0.0, unit: str | None = None) -> float:
    """1.0 for a correct quantity (units converted, 1 % tolerance), else 0.0.

    With ``format_weight`` w > 0 the reward is (1 - w) * correct + w * format, where format is
    1 when the asked significant figures and scientific notation were respected. ``unit`` is the
    required unit when the question does not state it ("km/s").
    """
    return numeric_result((response, reference, question, rel_tol, format_weight, unit)).reward or 0.0


def symbolic_reward(response: str, reference: str, *, partial_credit: bool = False) -> float:
    """1.0 for an expression equivalent to the reference, else 0.0; with ``partial_credit``
    the EED score / 100 (0-1), which rewards answers that are structurally close."""
    return symbolic_result((response, reference, partial_credit)).reward or 0.0


def _no_reference(kind: str) -> RewardResult:
    return RewardResult(None, outcome="no_reference", reason=f"the row has no {kind} reference: not scored")


def _not_measured(grade: Any) -> RewardResult:
    """A grade whose grader failed: reward ``None`` with the outcome and the reason."""
    return RewardResult(None, outcome="error", reason=f"{grade.reason} (the grader failed: not measured)",
                        pred=grade.extracted or "", explanation={"stage": "error"})


def numeric_result(item: NumericItem) -> RewardResult:
    """The numeric reward of one item with the grade as its explanation (never raises)."""
    from physeval.grading.numeric import grade_numeric

    response, reference, question, rel_tol, format_weight = item[:5]
    unit = item[5] if len(item) > 5 else None
    if reference is None or not str(reference).strip():
        return _no_reference("numeric")
    grade = grade_numeric(response, str(reference), question, rel_tol=rel_tol, unit=unit)
    if grade.outcome == "error":
        return _not_measured(grade)
    correct = 1.0 if grade.correct else 0.0
    reward = correct
    if format_weight > 0:
        format_ok = 1.0 if (grade.sig_figs_ok is not False and grade.scientific_ok is not False) else 0.0
        reward = (1.0 - format_weight) * correct + format_weight * format_ok
    explanation: dict[str, Any] = {
        "stage": "graded", "unit_required": grade.unit_required, "unit_given": grade.unit_given,
        "predicted": grade.predicted, "reference_value": grade.reference_value,
        "relative_error": grade.relative_error, "extraction_rule": grade.extraction_rule,
    }
    return RewardResult(reward, correct=bool(grade.correct), outcome=str(grade.outcome), reason=grade.reason,
                        pred=grade.extracted or "", explanation=explanation)


numeric_result.grade_inline = True  # type: ignore[attr-defined]  # under a millisecond: few items grade here


def symbolic_result(item: SymbolicItem) -> RewardResult:
    """The symbolic reward of one item (EED / 100 as partial credit when asked), never raising."""
    from physeval.grading.symbolic import grade_symbolic

    response, reference, partial_credit = item
    if reference is None or not str(reference).strip():
        return _no_reference("symbolic")
    grade = grade_symbolic(response, str(reference))
    if grade.outcome == "error":
        return _not_measured(grade)
    if grade.correct:
        reward = 1.0
    else:
        reward = float(grade.eed_score or 0.0) / 100.0 if partial_credit else 0.0
    explanation = {"stage": "graded", "eed_score": grade.eed_score}
    return RewardResult(reward, correct=bool(grade.correct), outcome=str(grade.outcome), reason=grade.reason,
                        pred=grade.extracted or "", explanation=explanation)
