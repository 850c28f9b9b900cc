"""Response lengths (SimuScene Fig. 7): completion and reasoning tokens, and accuracy by length.

Token counts come from each row's ``usage`` (``completion_tokens``; reasoning from
``reasoning_tokens`` or ``completion_tokens_details.reasoning_tokens``). Many servers store the
reasoning text (``reasoning_content``) but send no reasoning count; then the count is
*estimated* from the stored text (:func:`estimated_reasoning_tokens`) and labelled so
(:attr:`ResponseLengths.reasoning_source`), never reported as 0. The answer's own tokens (the
completion minus its reasoning: SimuScene Fig. 7's split) follow from the same numbers. Only
answered rows with a count are measured; ``n`` says how many. Accuracy by length bins the
completion lengths at their quantiles (equal-count bins; ties keep equal lengths in one bin)
and reports each bin's accuracy with its ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from physeval.analysis.runs import Run
from physeval.graded import graded_rows
from physeval.store import SampleRow

__all__ = [
    "Distribution",
    "LengthBin",
    "ResponseLengths",
    "answer_tokens",
    "completion_tokens",
    "distribution",
    "estimated_reasoning_tokens",
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
    """One model's lengths: completion, reasoning and answer (completion minus reasoning)
    distributions (``None``: no counts), accuracy per length bin, and how many samples were cut
    off at ``max_tokens``. ``reasoning_source`` says where the reasoning counts came from:
    ``reported`` (the server's usage), ``estimated`` (the stored reasoning text, see
    :func:`estimated_reasoning_tokens`), ``reported and estimated`` or ``none``;
    ``reasoning_estimated`` how many of them were estimated."""

    label: str
    completion: Distribution | None
    reasoning: Distribution | None
    accuracy_by_length: tuple[LengthBin, ...]
    cut_off: int
    answer: Distribution | None = None
    reasoning_source: str = "none"
    reasoning_estimated: int = 0

    @property
    def reasoning_label(self) -> str:
        """``reasoning tokens`` with how they were obtained, for captions."""
        if self.reasoning_source == "estimated":
            return f"reasoning tokens (estimated from the stored reasoning text: {ESTIMATE_METHOD})"
        if self.reasoning_source == "reported and estimated":
            return (f"reasoning tokens (reported; {self.reasoning_estimated} estimated from the stored reasoning "
                    f"text: {ESTIMATE_METHOD})")
        return "reasoning tokens (reported by the server)"


CHARS_PER_TOKEN = 4.0
MAX_CHARS_PER_TOKEN = 8.0
ESTIMATE_METHOD = ("the completion's token count split in proportion to the characters of reasoning and answer; "
                   f"without a count that can hold the reasoning, {CHARS_PER_TOKEN:g} characters a token")


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


def _counts_reasoning(row: SampleRow) -> bool:
    """Whether the row's completion count can include its reasoning text: at least one token per
    :data:`MAX_CHARS_PER_TOKEN` characters of reasoning and answer together."""
    total = completion_tokens(row)
    chars = len(row.reasoning or "") + len(row.completion or "")
    return total is not None and total > 0 and total * MAX_CHARS_PER_TOKEN >= chars


def estimated_reasoning_tokens(row: SampleRow) -> int | None:
    """The reasoning token count estimated from the stored reasoning text (``None`` without one).

    Servers that return ``reasoning_content`` count its tokens in ``completion_tokens`` (they
    are generated tokens), so the count is split between reasoning and answer in proportion
    to their characters. A count too small to hold the reasoning (fewer than one token per
    :data:`MAX_CHARS_PER_TOKEN` characters: the server counted the answer alone), or no count,
    falls back to :data:`CHARS_PER_TOKEN` characters a token (a round figure for English and
    LaTeX with BPE tokenisers). An estimate, labelled so wherever it is shown.
    """
    reasoning = row.reasoning or ""
    if not reasoning.strip():
        return None
    total = completion_tokens(row)
    if total is not None and _counts_reasoning(row):
        return round(total * len(reasoning) / (len(reasoning) + len(row.completion or "")))
    return max(1, round(len(reasoning) / CHARS_PER_TOKEN))


def estimated_reasoning_total(rows: Sequence[SampleRow]) -> tuple[int, int]:
    """The summed :func:`estimated_reasoning_tokens` of ``rows`` and how many rows have an estimate."""
    estimates = [n for row in rows if (n := estimated_reasoning_tokens(row)) is not None]
    return sum(estimates), len(estimates)


def answer_tokens(row: SampleRow, reasoning: int | None) -> int | None:
    """The answer's own tokens: the completion's count minus its reasoning when the count holds
    the reasoning, else the count itself (``None`` without a count)."""
    total = completion_tokens(row)
    if total is None:
        return None
    if reasoning_tokens(row) or _counts_reasoning(row):
        return max(0, total - (reasoning or 0))
    return total


def distribution(values: Sequence[int]) -> Distribution | None:
    """Mean, median, 10th/90th percentile and max of ``values`` (``None`` when empty)."""
    if not values:
        return None
    arr = np.asarray(values, dtype=float)
    return Distribution(len(values), float(arr.mean()), float(np.median(arr)), float(np.percentile(arr, 10)),
                        float(np.percentile(arr, 90)), float(arr.max()), tuple(int(v) for v in values))


def response_lengths(rows: Sequence[SampleRow], label: str = "", *, bins: int = 4) -> ResponseLengths:
    """Lengths of the answered ``rows`` and their accuracy in up to ``bins`` equal-count length bins."""
    answered = graded_rows(rows)
    measured = [(n, bool(r.correct)) for r in answered if (n := completion_tokens(r)) is not None]
    reasoning: list[int] = []
    answers: list[int] = []
    reported = estimated = 0
    for r in answered:
        count = reasoning_tokens(r)
        if count is not None and not (count == 0 and (r.reasoning or "").strip()):  # 0 beside reasoning text: unset
            reported += 1
        else:
            count = estimated_reasoning_tokens(r)
            estimated += count is not None
        if count is not None:
            reasoning.append(count)
        if (n := answer_tokens(r, count)) is not None:
            answers.append(n)
    source = ("reported and estimated" if reported and estimated else "estimated" if estimated else
              "reported" if reported else "none")
    return ResponseLengths(label, distribution([n for n, _ in measured]), distribution(reasoning),
                           _bins(measured, bins), sum(r.finish_reason == "length" for r in answered),
                           distribution(answers) if reasoning else None, source, estimated)


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
