"""A prime is part of a symbol's name: ``v'`` is not ``v`` (physeval's default mode).

latex2sympy2's normalisation deletes every ``'``, so ``v'`` (the velocity after a collision),
``x'`` (a coordinate in another frame) and ``y'(t)`` are read as ``v``, ``x`` and ``y(t)``:
``\\frac{m v'}{M}`` is then "correct" against ``\\frac{m v}{M}``, and ``y'(t) + y(t)`` against
``2 y(t)``. The PHYBench pipeline does the same, and ``compat="phybench"`` keeps it.
:func:`primes_as_names` writes each primed letter as one symbol whose name holds the primes
(``v'`` -> ``\\mathrm{v\\prime}``, ``\\omega''_1`` -> ``\\mathrm{\\omega\\prime\\prime}_1``,
``\\vec{v}'`` -> ``\\vec{v\\prime}``), which both parsers read as a symbol of its own;
``v^{\\prime}`` is the same prime. ``v'_1`` and ``v_1'`` are the same symbol.
"""

from __future__ import annotations

import re

from physeval.answers.latex_tokens import GREEK

__all__ = ["primes_as_names"]

_PRIME_POWER = re.compile(r"\^\s*(?:\{\s*((?:\\prime\s*)+)\}|\\prime(?![A-Za-z]))")
_PRIMED = re.compile(
    r"(?P<accent>\\[A-Za-z]+)\{(?P<inner>[^{}\\]*)\}(?P<after>'+)"  # \vec{v}'
    r"|(?P<base>(?<![A-Za-z\\])[A-Za-z]|\\[A-Za-z]+)"  # a letter, or a command (Greek letters only, below)
    r"(?P<sub>_\{[^{}]*\}|_[A-Za-z0-9])?(?P<primes>'+)(?P<late>_\{[^{}]*\}|_[A-Za-z0-9])?"
)


def primes_as_names(text: str) -> str:
    """``text`` with every primed letter written as one symbol whose name holds its primes."""
    if "'" not in text and "\\prime" not in text:
        return text
    text = _PRIME_POWER.sub(lambda m: "'" * max(1, (m.group(1) or "").count("\\prime")), text)

    def write(match: re.Match[str]) -> str:
        if match.group("accent"):
            marks = "\\prime" * len(match.group("after"))
            return f"{match.group('accent')}{{{match.group('inner')}{marks}}}"
        base = match.group("base")
        if base.startswith("\\") and base[1:] not in GREEK:
            return match.group(0)
        marks = "\\prime" * len(match.group("primes"))
        subscript = match.group("sub") or match.group("late") or ""
        if match.group("sub") and match.group("late"):
            return match.group(0)  # v_1'_2: not a name
        return f"\\mathrm{{{base}{marks}}}{subscript}"

    return _PRIMED.sub(write, text)
