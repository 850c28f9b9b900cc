"""The one rule of which samples a metric receives: graded ones, never an error.

A sample whose request failed for good, or whose grader or judge failed, measured nothing: it is
counted (``counts.errors``) and makes the run incomplete, but it is not a zero. A sample stored
without a verdict yet (answered, not graded) measured nothing either. So no metric, analysis,
statistic, plot, log writer or integration filters rows itself: each receives its outcomes from
:func:`graded_outcomes` (or the rows behind them from :func:`graded_rows`), and
``tests/test_graded_outcomes.py`` checks every module that computes a metric for it.

Samples from outside a run store (inspect scores, lm-eval documents) enter as
:class:`SampleRecord` values, so they meet the same rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from physeval.plan import Plan, with_plan
from physeval.sample_outcomes import SampleOutcome

__all__ = ["GradedSample", "SampleRecord", "graded_outcomes", "graded_rows", "is_graded"]

GRADED_STATUS = "answered"
"""The status of a stored sample that was answered (an error row's status is ``error``)."""


class GradedSample(Protocol):
    """What the rule reads of a sample: a :class:`~physeval.store.SampleRow` is one."""

    @property
    def problem_id(self) -> str:
        """The problem's id."""

    @property
    def variant(self) -> str:
        """The variant's id (``"0"``: the released values)."""

    @property
    def sample(self) -> int:
        """The sample index within the item."""

    @property
    def status(self) -> str:
        """``answered`` or ``error``."""

    @property
    def correct(self) -> bool | None:
        """The verdict (``None``: none yet, or the sample errored)."""

    @property
    def score(self) -> float | None:
        """The partial-credit score, when the grader gives one."""

    @property
    def grade(self) -> Mapping[str, Any] | None:
        """Every field of the grade."""

    @property
    def problem_meta(self) -> Mapping[str, Any] | None:
        """The problem's meta fields (for breakdowns)."""

@dataclass(frozen=True)
class SampleRecord:
    """A sample from outside a run store (another tool's score), in the shape the rule reads.

    ``status`` is ``answered`` for a graded sample and ``error`` when the tool recorded an error
    or the grade's outcome is ``error``; ``correct`` is ``None`` when there is no verdict.
    """

    problem_id: str
    variant: str
    sample: int
    status: str
    correct: bool | None
    score: float | None = None
    grade: Mapping[str, Any] | None = None
    problem_meta: Mapping[str, Any] | None = field(default_factory=dict)


S = TypeVar("S", bound=GradedSample)


def is_graded(sample: GradedSample) -> bool:
    """Whether ``sample`` was answered and carries a verdict (so a metric may stand on it)."""
    return sample.status == GRADED_STATUS and sample.correct is not None


def graded_rows(samples: Iterable[S]) -> list[S]:
    """The graded samples among ``samples``, in their order (for analyses that read more of a
    row than its outcome: token lengths, stages reached)."""
    return [s for s in samples if is_graded(s)]


def graded_outcomes(samples: Iterable[GradedSample], plan: Plan | None = None) -> list[SampleOutcome]:
    """The metric outcomes of the graded samples among ``samples`` (in their order), carrying
    ``plan`` (what the run set out to grade, so dynamic metrics leave incomplete problems out)."""
    outcomes = []
    for s in samples:
        if not is_graded(s):
            continue
        grade = s.grade or {}
        outcomes.append(SampleOutcome(s.problem_id, s.variant, s.sample, bool(s.correct), s.score,
                                      grade.get("answer_key"), s.problem_meta or {}, grade))
    return with_plan(outcomes, plan)
