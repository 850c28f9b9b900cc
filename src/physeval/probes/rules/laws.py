"""``swap_law``: a named law in the prose replaced by a wrong one, or one law's formula by another's."""

from __future__ import annotations

import re
from collections.abc import Sequence

from physeval.probes.edits import Candidate
from physeval.probes.latex_spans import MathSpan
from physeval.probes.latex_structure import segments
from physeval.probes.rules.site import Site, segment_of

__all__ = ["FORMULA_LAWS", "PROSE_LAWS", "prose_candidates", "swap_law"]


PROSE_LAWS: tuple[tuple[str, str], ...] = (
    ("conservation of energy", "conservation of momentum"),
    ("conservation of mechanical energy", "conservation of momentum"),
    ("energy conservation", "momentum conservation"),
    ("conservation of momentum", "conservation of energy"),
    ("momentum conservation", "energy conservation"),
    ("conservation of angular momentum", "conservation of linear momentum"),
    ("angular momentum conservation", "linear momentum conservation"),
    ("adiabatic", "isothermal"),
    ("isothermal", "adiabatic"),
    ("isobaric", "isochoric"),
    ("isochoric", "isobaric"),
    ("elastic collision", "perfectly inelastic collision"),
    ("inelastic collision", "elastic collision"),
    ("in series", "in parallel"),
    ("in parallel", "in series"),
    ("Newton's third law", "Newton's first law"),
    ("Gauss's law", "Ampère's law"),
    ("Faraday's law", "Gauss's law"),
    ("Snell's law", "the law of reflection"),
)
"""``swap_law`` in prose: (phrase, wrong replacement); matched as whole words, case-insensitive."""


FORMULA_LAWS: tuple[tuple[str, str, str], ...] = (
    ("kinetic energy -> momentum",
     r"\\frac\s*\{\s*1\s*\}\s*\{\s*2\s*\}\s*m\s*(v(?:_\{?\w+\}?)?)\s*\^\s*(?:\{\s*2\s*\}|2)", r"m \1"),
    ("rotational energy -> angular momentum",
     r"\\frac\s*\{\s*1\s*\}\s*\{\s*2\s*\}\s*I\s*(\\omega(?:_\{?\w+\}?)?)\s*\^\s*(?:\{\s*2\s*\}|2)", r"I \1"),
    ("spring energy -> spring force",
     r"\\frac\s*\{\s*1\s*\}\s*\{\s*2\s*\}\s*k\s*(x(?:_\{?\w+\}?)?)\s*\^\s*(?:\{\s*2\s*\}|2)", r"k \1"),
)
"""``swap_law`` in formulas: (name, pattern, replacement)."""


def swap_law(math: str, mask: list[bool]) -> list[Site]:
    """Every formula of :data:`FORMULA_LAWS` in the equation, written as the other law's."""
    found = []
    pieces = segments(math)
    for name, pattern, repl in FORMULA_LAWS:
        for m in re.finditer(pattern, math):
            found.append(Site(name, m.start(), m.end(), m.expand(repl), segment_of(pieces, m.start())))
    return found


def prose_candidates(text: str, spans: Sequence[MathSpan]) -> list[Candidate]:
    """Every law of :data:`PROSE_LAWS` named in the prose (outside ``spans``), as a whole phrase."""
    inside = [(s.start, s.end) for s in spans]
    found = []
    for phrase, wrong in sorted(PROSE_LAWS, key=lambda p: -len(p[0])):
        pattern = re.compile(r"(?<![A-Za-z])" + re.escape(phrase).replace("\\ ", r"\s+") + r"(?![A-Za-z])",
                             re.IGNORECASE)
        for m in pattern.finditer(text):
            if any(a <= m.start() < b for a, b in inside):
                continue
            if phrase.startswith("momentum") and text[max(0, m.start() - 8):m.start()].lower().endswith(
                    ("angular ", "linear ")):
                continue
            if phrase.startswith("elastic") and text[max(0, m.start() - 2):m.start()].lower() == "in":
                continue
            after = wrong[0].upper() + wrong[1:] if m.group(0)[0].isupper() else wrong
            found.append(Candidate("swap_law", f"{phrase} -> {wrong}", None, m.start(), m.end(), m.group(0), after))
    return found
