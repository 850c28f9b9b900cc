"""``remove_square``: ``X^2`` / ``X^{2}`` -> ``X``, recording the squared symbol ``X`` (never its coefficient)."""

from __future__ import annotations

import re

from physeval.probes.latex_structure import atom_start
from physeval.probes.rules.site import Site

__all__ = ["base_before", "remove_square"]


def remove_square(math: str, mask: list[bool]) -> list[Site]:
    """Every square outside a command name or text argument."""
    return [Site("X^2 -> X", m.start(), m.end(), "", token=base_before(math, m.start()))
            for m in re.finditer(r"\^\s*(?:\{\s*2\s*\}|2(?![0-9.]))", math) if not mask[m.start()]]


def base_before(math: str, pos: int) -> str:
    """The base of a power ending at ``pos``: the last atom, with the symbol it subscripts
    (``r_{0}`` in ``k r_{0}^2``, ``R`` in ``3R^{2}``, ``\\omega_2``, ``(z-c)``), never a coefficient."""
    end = pos
    while end > 0 and math[end - 1] == " ":
        end -= 1
    start = atom_start(math, end)
    while True:  # a subscript belongs to the symbol before it
        k = start
        while k > 0 and math[k - 1] == " ":
            k -= 1
        if k > 0 and math[k - 1] == "_":
            start = atom_start(math, k - 1)
            continue
        break
    return math[start:end]
