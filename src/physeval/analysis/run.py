"""The :class:`Run` value: one run directory's facts, as every analysis and report reads them.

Why a module of its own: the outcome analysis types its functions with :class:`Run`, while
reading a run (:mod:`physeval.analysis.runs`) goes through the summary, whose reason counts
come from the outcome analysis. Both import this module, which imports neither, so the
dependency runs one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from physeval.graded import graded_outcomes, graded_rows
from physeval.metrics import Plan, SampleOutcome
from physeval.store import SampleRow
from physeval.summary import RunSummary

__all__ = ["Run"]


@dataclass(frozen=True)
class Run:
    """One run: where it is, what it ran, and every stored row (sorted by key).

    ``track`` is the task's track (``numeric``, ``symbolic``, ``scene``, ...) when the task is
    registered, else read from the grades (a scene grade has a ``stage``). ``dynamic`` is
    whether any problem comes in more than one variant. ``plan`` is what the run set out to grade
    (problems x variants x samples; ``None``: not known), so dynamic metrics leave incomplete problems out.
    """

    path: Path
    task: str
    model: str
    track: str
    dynamic: bool
    summary: RunSummary
    rows: tuple[SampleRow, ...]
    data_sha256: Mapping[str, str]
    plan: Plan | None = None

    @property
    def graded(self) -> list[SampleRow]:
        """The rows that were answered and graded (errors measured nothing: :mod:`physeval.graded`)."""
        return graded_rows(self.rows)

    def outcomes(self) -> list[SampleOutcome]:
        """The graded rows as metric outcomes, carrying the run's plan."""
        return graded_outcomes(self.rows, self.plan)
