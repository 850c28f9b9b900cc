"""What a perturbation rule proposes inside one equation: a :class:`Site`."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Site", "segment_of"]


class Site(NamedTuple):
    """Replace ``math[start:end]`` of one equation by ``after`` (offsets within the equation).

    ``segment``: the additive piece holding the edit (``(start, end)``), carried into the answer;
    ``token``: what was deleted or unsquared (``\\hbar``, ``r_{0}``).
    """

    rule: str
    start: int
    end: int
    after: str
    segment: tuple[int, int] | None = None
    token: str = ""


def segment_of(segments: list[tuple[int, int]], pos: int) -> tuple[int, int] | None:
    """The first additive piece holding ``pos``, or ``None``."""
    return next((seg for seg in segments if seg[0] <= pos < seg[1]), None)
