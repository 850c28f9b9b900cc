"""The grade types of the numeric and symbolic tracks: what each grader returns, and why.

Kept apart from the graders so that the ABench compat grader, the rewards and the reports can
name them without importing a grader (one direction of imports).
"""

from __future__ import annotations

from dataclasses import dataclass

from physeval.problems import Grade

__all__ = ["NumericGrade", "SymbolicGrade"]


@dataclass(frozen=True)
class NumericGrade(Grade):
    """A numeric verdict with the facts behind it.

    Attributes:
        predicted: The answer's value converted into the reference's unit (``None`` if unread).
        reference_value: The reference's value in its unit.
        unit_required: The unit the question asks for, as written there.
        unit_given: The unit written in the answer, as written.
        extraction_rule: Which extraction rule found the answer (``boxed_last``, ...).
        sig_figs_required / sig_figs_ok: The question's significant figures and whether the
            answer, as written, carries that many (``None`` when not asked or not decidable).
        scientific_required / scientific_ok: Whether scientific notation was asked and used.
        relative_error: ``|y_hat - y*| / |y*|`` (``None`` when undefined).
        compat: The compatibility mode that produced the verdict (``None`` for physeval's own).
    """

    predicted: float | None = None
    reference_value: float | None = None
    unit_required: str | None = None
    unit_given: str | None = None
    extraction_rule: str = "none"
    sig_figs_required: int | None = None
    sig_figs_ok: bool | None = None
    scientific_required: bool = False
    scientific_ok: bool | None = None
    relative_error: float | None = None
    compat: str | None = None



@dataclass(frozen=True)
class SymbolicGrade(Grade):
    """A symbolic-track grade: equivalence, EED and (when known) dimension checks.

    Attributes (beyond :class:`physeval.problems.Grade`; ``score`` is ``eed_score / 100``):
        equivalent: True/False, or ``None`` when undecided or not comparable.
        eed_score: The EED score, 0-100.
        eed_distance: Tree edit distance (0 for equivalent answers; ``None`` if not computed).
        eed_size: Node count of the reference tree (``None`` if no tree was needed).
        eed_rel_distance: ``eed_distance / eed_size``.
        extraction_rule: How the answer was found (``boxed_first``, ``final_line``, ...).
        dimension_consistent: Whether the answer is dimensionally consistent (``None``: unknown).
        dimension_matches: Whether its dimension equals the reference's (``None``: unknown).
        dimension_reason: Explanation of the dimension check.
        budget: Which operation budget ran out while building the EED trees (``""``: none).
    """

    equivalent: bool | None = None
    eed_score: float = 0.0
    eed_distance: float | None = None
    eed_size: int | None = None
    eed_rel_distance: float | None = None
    extraction_rule: str = "none"
    dimension_consistent: bool | None = None
    dimension_matches: bool | None = None
    dimension_reason: str = ""
    budget: str = ""
