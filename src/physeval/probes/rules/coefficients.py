"""``change_coefficient``: a number that is not an index or exponent, ``n`` -> ``n + 1``."""

from __future__ import annotations

import re

from physeval.probes.latex_structure import in_script, segments
from physeval.probes.rules.site import Site, segment_of

__all__ = ["change_coefficient"]


def change_coefficient(math: str, mask: list[bool]) -> list[Site]:
    """Every non-zero integer outside scripts, command names and text arguments, incremented."""
    found = []
    pieces = segments(math)
    for m in re.finditer(r"(?<![0-9.])[0-9]+(?![0-9.])", math):
        if mask[m.start()] or in_script(math, m.start()):
            continue
        value = int(m.group(0))
        if value:
            found.append(Site(f"{value} -> {value + 1}", m.start(), m.end(), str(value + 1),
                              segment_of(pieces, m.start())))
    return found
