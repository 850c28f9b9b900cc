"""Response lengths (SimuScene Fig. 7): completion and reasoning tokens, and accuracy by length.

Token counts come from each row's ``usage`` (``completion_tokens``; reasoning from
``reasoning_tokens`` or ``completion_tokens_details.reasoning_tokens``). Only answered rows with
a count are measured; ``n`` says how many. Accuracy by length bins the completion lengths at
their quantiles (equal-count bins; ties keep equal lengths in one bin) and reports each bin's
accuracy with its ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from physeval.analysis.runs import Run
from physeval.store import SampleRow

__all__ = [
    "Distribution",
    "LengthBin",
    "ResponseLengths",
    "completion_tokens",
    "distribution",
    "reasoning_tokens",
    "response_lengths",
    "run_lengths",
]


@dataclass(frozen=True)
class Distribution:
    """Summary of ``n`` token counts (and the counts themselves, for plots)."""

    n: int
    mean: float
    median: float
    p10: float
    p90: float
    max: float
    values: tuple[int, ...]


@dataclass(frozen=True)
class LengthBin:
    """Samples whose completion length is in ``[low, high]``: how many, and the share right."""

    low: int
    high: int
    n: int
    accuracy: float


@dataclass(frozen=True)
class ResponseLengths:
    """One model's lengths: completion and reasoning distributions (``None``: no counts),
    accuracy per length bin, and how many samples were cut off at ``max_tokens``."""

    label: str
    completion: Distribution | None
    reasoning: Distribution | None
    accuracy_by_length: tuple[LengthBin, ...]
    cut_off: int


def completion_tokens(row: SampleRow) -> int | None:
    """The completion's token count from ``usage`` (``None`` when the server gave none)."""
    value = (row.usage or {}).get("completion_tokens")
    return int(value) if isinstance(value, (int, float)) else None


def reasoning_tokens(row: SampleRow) -> int | None:
    """The reasoning token count from ``usage``, if the server reported one."""
    usage = row.usage or {}
    value: Any = usage.get("reasoning_tokens")
    details: Any = usage.get("completion_tokens_details")
    if value is None and isinstance(details, dict):
        value = details.get("reasoning_tokens")
    return int(value) if isinstance(value, (int, float)) else None


def distribution(values: Sequence[int]) -> Distribution | None:
    """Mean, median, 10th/90th percentile and max of ``values`` (``None`` when empty)."""
    if not values:
        return None
    arr = np.asarray(values, dtype=float)
    return Distribution(len(values), float(arr.mean()), float(np.median(arr)), float(np.percentile(arr, 10)),
                        float(np.percentile(arr, 90)), float(arr.max()), tuple(int(v) for v in values))


def response_lengths(rows: Sequence[SampleRow], label: str = "", *, bins: int = 4) -> ResponseLengths:
    """Lengths of the answered ``rows`` and their accuracy in up to ``bins`` equal-count length bins."""
    answered = [r for r in rows if r.status == "answered"]
    measured = [(n, bool(r.correct)) for r in answered if (n := completion_tokens(r)) is not None]
    reasoning = [n for r in answered if (n := reasoning_tokens(r)) is not None]
    return ResponseLengths(label, distribution([n for n, _ in measured]), distribution(reasoning),
                           _bins(measured, bins), sum(r.finish_reason == "length" for r in answered))


def run_lengths(runs: Sequence[Run], *, bins: int = 4) -> list[ResponseLengths]:
    """One :class:`ResponseLengths` per model over all its runs (models in first-seen order)."""
    by_model: dict[str, list[SampleRow]] = {}
    for run in runs:
        by_model.setdefault(run.model, []).extend(run.rows)
    return [response_lengths(rows, model, bins=bins) for model, rows in by_model.items()]


def _bins(measured: Sequence[tuple[int, bool]], bins: int) -> tuple[LengthBin, ...]:
    if not measured:
        return ()
    ordered = sorted(measured)
    out: list[LengthBin] = []
    start = 0
    for b in range(bins):
        end = round(len(ordered) * (b + 1) / bins)
        while 0 < end < len(ordered) and ordered[end][0] == ordered[end - 1][0]:
            end += 1  # equal lengths stay in one bin
        if end <= start:
            continue
        chunk = ordered[start:end]
        out.append(LengthBin(chunk[0][0], chunk[-1][0], len(chunk), sum(ok for _, ok in chunk) / len(chunk)))
        start = end
    return tuple(out)
