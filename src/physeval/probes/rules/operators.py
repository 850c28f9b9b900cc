"""``reverse_operator`` (a binary ``+`` <-> ``-``, ``\\cdot``/``\\times`` -> ``/``) and ``drop_term``
(one additive term of a sum of two or more removed with its sign)."""

from __future__ import annotations

import re

from physeval.probes.latex_structure import binary_ops, segments
from physeval.probes.rules.site import Site, segment_of

__all__ = ["drop_term", "reverse_operator"]


def reverse_operator(math: str, mask: list[bool]) -> list[Site]:
    """Every binary ``+``/``-`` flipped, every ``\\cdot``/``\\times`` made a division."""
    found = []
    pieces = segments(math)
    for seg in pieces:
        for k in binary_ops(math, *seg):
            flipped = "-" if math[k] == "+" else "+"
            found.append(Site(f"{math[k]} -> {flipped}", k, k + 1, flipped, seg))
    for m in re.finditer(r"\\(?:cdot|times)(?![a-zA-Z])", math):
        found.append(Site(f"{m.group(0)} -> /", m.start(), m.end(), "/", segment_of(pieces, m.start())))
    return found


def drop_term(math: str, mask: list[bool]) -> list[Site]:
    """Every term of every sum dropped: the first with the operator after it (a leading minus
    moves to the next term), the others with the operator before them."""
    found = []
    for seg in segments(math):
        ops = binary_ops(math, *seg)
        if not ops:
            continue
        bounds = [seg[0], *ops, seg[1]]
        for t in range(len(bounds) - 1):
            s, e = bounds[t], bounds[t + 1]
            if t == 0:
                found.append(Site("drop a term", s, ops[0] + 1, "-" if math[ops[0]] == "-" else "", seg))
            else:
                found.append(Site("drop a term", s, e, "", seg))
    return found
