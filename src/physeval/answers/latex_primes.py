"""A prime is part of a symbol's name: ``v'`` is not ``v`` (physeval's default mode).

latex2sympy2's normalisation deletes every ``'``, so ``v'`` (the velocity after a collision),
``x'`` (a coordinate in another frame) and ``y'(t)`` are read as ``v``, ``x`` and ``y(t)``:
``\\frac{m v'}{M}`` is then "correct" against ``\\frac{m v}{M}``, and ``y'(t) + y(t)`` against
``2 y(t)``. The PHYBench pipeline does the same, and ``compat="phybench"`` keeps it.

Two passes, around the normal form's own symbol rewrites (``E_`` -> ``\\bar{E}_``,
``\\gamma`` -> ``\\bar{gamma}``, which must see the same text for ``E'_k`` and ``E_k'``):

* :func:`primes_after_subscripts` first writes every prime the same way: ``x^{\\prime}`` and
  ``x^{'}`` as ``x'``, and ``v'_1`` as ``v_1'``;
* :func:`primes_as_names` then writes each primed symbol as one symbol whose name holds the
  primes: ``v'`` -> ``\\mathrm{v\\prime}``, ``m v_1'`` -> ``m \\mathrm{v\\prime}_1``,
  ``\\omega''`` -> ``\\mathrm{omega\\prime\\prime}``, ``\\vec{v}_1'`` -> ``\\vec{v\\prime}_1``, which both
  parsers read as a symbol of its own.

A prime after a bracket (``(x+ct)'``, ``\\sin(\\theta)'``) is written ``^{\\prime}``: a mark of its own.
"""

from __future__ import annotations

import re

from physeval.answers.latex_tokens import ACCENTS, SYMBOL_COMMANDS

__all__ = ["primes_after_subscripts", "primes_as_names"]

_PRIME_POWER = re.compile(
    r"\^\s*(?:\{\s*(?P<marks>(?:\\prime(?![A-Za-z])\s*|'\s*)+)(?P<rest>[^{}]*)\}|\\prime(?![A-Za-z]))")
_SUB = r"(?:_\{(?:[^{}]|\{[^{}]*\})*\}|_\\[A-Za-z]+(?:\{[^{}]*\})?|_[A-Za-z0-9])"
_PRIMES = r"(?:\s*')+"
_MOVE = re.compile(r"(?P<primes>" + _PRIMES + r")(?P<sub>" + _SUB + ")")
_AFTER_BRACKET = re.compile(r"(?<=[)\]}|])(?P<primes>" + _PRIMES + ")")
_ACCENT = "|".join(sorted(ACCENTS, key=len, reverse=True))
_PRIMED = re.compile(
    r"(?P<accent>\\(?:" + _ACCENT + r"))\{(?P<inner>[^{}\\']*)(?P<iprimes>'*)\}(?P<asub>" + _SUB + r")?(?P<aprimes>"
    + _PRIMES + ")?"
    r"|(?P<command>\\[A-Za-z]+)(?P<csub>" + _SUB + r")?(?P<cprimes>" + _PRIMES + ")?"
    r"|(?P<letter>[A-Za-z])(?P<sub>" + _SUB + r")?(?P<primes>" + _PRIMES + ")"
)


def _has_prime(text: str) -> bool:
    return "'" in text or "\\prime" in text


def _prime_power(match: re.Match[str]) -> str:
    """``^{\\prime}`` -> ``'``; ``^{\\prime 2}`` and ``^{'2}`` -> ``'^{2}`` (the primed symbol squared)."""
    marks = match.group("marks") or ""
    primes = "'" * max(1, marks.count("\\prime") + marks.count("'"))
    rest = (match.group("rest") or "").strip()
    return primes + (f"^{{{rest}}}" if rest else "")


def primes_after_subscripts(text: str) -> str:
    """Every prime written ``'`` and after its symbol's subscript: ``x^{\\prime}`` -> ``x'``,
    ``v'_1`` -> ``v_1'`` (the first pass)."""
    if not _has_prime(text):
        return text
    text = _PRIME_POWER.sub(_prime_power, text)
    return _MOVE.sub(lambda m: m.group("sub") + "'" * m.group("primes").count("'"), text)


def primes_as_names(text: str) -> str:
    """``text`` with every primed symbol written as one symbol whose name holds its primes (the
    second pass)."""
    if "'" not in text:
        return text

    def write(match: re.Match[str]) -> str:
        if match.group("accent"):
            accent = match.group("accent")
            count = match.group("iprimes").count("'") + (match.group("aprimes") or "").count("'")
            if not count:
                return match.group(0)
            marks = "\\prime" * count
            return f"{accent}{{{match.group('inner')}{marks}}}{match.group('asub') or ''}"
        if match.group("command"):
            name = match.group("command")[1:]
            if not match.group("cprimes") or name not in SYMBOL_COMMANDS:
                return match.group(0)
            marks = "\\prime" * match.group("cprimes").count("'")
            return f"\\mathrm{{{name}{marks}}}{match.group('csub') or ''}"
        marks = "\\prime" * match.group("primes").count("'")
        return f"\\mathrm{{{match.group('letter')}{marks}}}{match.group('sub') or ''}"

    text = _PRIMED.sub(write, text)
    # a prime after a bracket ((x+ct)', \sin(\theta)'): a mark of its own, not nothing
    return _AFTER_BRACKET.sub(lambda m: "^{" + "\\prime" * m.group("primes").count("'") + "}", text)
