"""The PHYBench pipeline's ``EED`` signature over physeval's compat mode (an adapter, no copied code).

``EED(answer_latex, test_latex, eed_settings, debug_mode=False)`` returns the pipeline's tuple
``(score, relative_distance, answer_tree_size, distance)`` with its conventions: identical
strings are ``(100, 0.0, -1, 0)``, an equivalent answer ``(100, 0.0, 0, 0)``, a failure (no
answer, ``\\int``/``\\sum``, too long, unparseable, no tree) ``(0, -1, -1, -1)``. The score is
:func:`physeval.grading.eed.eed` with ``compat="phybench"`` and the settings' scoring constants;
the settings' wall-clock limits are accepted and ignored (physeval bounds the same work by
operation budgets). Used to run the pipeline's own tests against the compat mode
(``tests/grading/test_official_eed_tests.py``) and by anyone with code written against the
pipeline's function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["EED", "EvaluationEEDSettings"]


def _unit_costs() -> dict[str, float]:
    return {"number": 1.0, "symbol": 1.0, "operator": 1.0, "function": 1.0}


@dataclass(frozen=True)
class EvaluationEEDSettings:
    """The pipeline's EED settings (the same names and defaults). Only unit node costs are
    supported, as published; ``simplify_time_limit`` and ``equals_time_limit`` are ignored."""

    initial_score: float = 60.0
    scoring_slope: float = 100.0
    insert_cost: dict[str, float] = field(default_factory=_unit_costs)
    delete_cost: dict[str, float] = field(default_factory=_unit_costs)
    update_cost: dict[str, float] = field(default_factory=_unit_costs)
    change_type_cost: float = 1.0
    bar_size: float = 5.0
    discount_slope: float = 0.6
    simplify_time_limit: int = 30
    equals_time_limit: int = 10


def EED(answer_latex: str, test_latex: str, eed_settings: EvaluationEEDSettings,  # noqa: N802 - the pipeline's name
        debug_mode: bool = False) -> tuple[float, float, float, float]:
    """The pipeline's ``EED`` over ``eed(answer_latex, test_latex, compat="phybench")``."""
    from physeval.grading.eed import EEDScoring, eed

    costs = (eed_settings.insert_cost, eed_settings.delete_cost, eed_settings.update_cost)
    if any(set(c.values()) != {1.0} for c in costs) or eed_settings.change_type_cost != 1.0:
        raise ValueError("only unit node costs are supported (the published EED)")
    if answer_latex == test_latex and test_latex:
        return 100, 0.0, -1, 0
    scoring = EEDScoring(initial_score=eed_settings.initial_score, scoring_slope=eed_settings.scoring_slope,
                         bar_size=eed_settings.bar_size, discount_slope=eed_settings.discount_slope)
    result = eed(answer_latex, test_latex, compat="phybench", scoring=scoring)
    if result.equivalent is True:
        return 100, 0.0, 0, 0
    if result.distance is None or result.size is None:
        return 0, -1, -1, -1
    return result.score, result.distance / result.size, float(result.size), result.distance
