"""The slice of a graded sample that metrics read, and how samples group into items and problems.

Only graded samples become outcomes: a sample whose request, grader or judge failed measured
nothing and never reaches a metric (it is counted as an error instead). The one place rows become
outcomes is :func:`physeval.graded.graded_outcomes`.

Why apart from :mod:`physeval.metrics`: the plan of a run (:mod:`physeval.plan`) and the
metrics both stand on this vocabulary, and neither should import the other to get it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SampleOutcome", "STATIC_VARIANT", "group_items", "samples_per_item"]

STATIC_VARIANT = "0"
"""The variant that holds a problem's released values (the static problem of a dynamic family)."""


@dataclass(frozen=True)
class SampleOutcome:
    """The slice of a graded sample record that metrics need (built by
    :func:`~physeval.graded.graded_outcomes`)."""

    problem_id: str
    variant: str
    sample: int
    correct: bool
    score: float | None = None
    answer_key: str | None = None
    meta: Mapping[str, Any] | None = None
    grade: Mapping[str, Any] | None = None


def group_items(outcomes: Iterable[SampleOutcome]) -> dict[str, dict[str, list[SampleOutcome]]]:
    """Problem id -> variant -> the item's samples in sample order (problems in first-seen order)."""
    grouped: dict[str, dict[str, list[SampleOutcome]]] = defaultdict(lambda: defaultdict(list))
    for o in outcomes:
        grouped[o.problem_id][o.variant].append(o)
    return {pid: {v: _in_sample_order(samples) for v, samples in variants.items()}
            for pid, variants in grouped.items()}


def samples_per_item(outcomes: Iterable[SampleOutcome]) -> int:
    """K: the largest number of samples of any item (0 without outcomes)."""
    sizes = Counter((o.problem_id, o.variant) for o in outcomes)
    return max(sizes.values(), default=0)


def _in_sample_order(samples: list[SampleOutcome]) -> list[SampleOutcome]:
    # one sample an item is the common case (a summary groups each breakdown's outcomes again)
    return samples if len(samples) < 2 else sorted(samples, key=lambda o: o.sample)
