"""Numbers as datasets and questions write them: ``2.9 \\times 10^{-11}``, ``3.0e5``, ``{8.854} \\times {10}^{8}``.

Why one module: the plain-problem converter reads every number of a question with these patterns, and
the converter, the audit and the Phy_B solution checks read written reference answers and their
rounding allowance the same way; one place, so a spelling fixed here is fixed for all of them.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["NUMBER", "TIMES_TEN", "TIMES_TEN_BRACED", "POWER_OF_TEN", "parse_written_number", "written_precision"]

NUMBER = re.compile(r"(?<![A-Za-z0-9_.\\])(?P<num>[-−]?(?:\d+(?:\.\d+)?|\.\d+))")
"""A plain decimal number in running text (not part of a name, a subscript digit run or a command)."""
TIMES_TEN = re.compile(r"\s*(?:\\times|\\cdot|×|\*)\s*10\s*\^\s*(?:\{\s*(?P<e1>[-−+]?\s*\d+)\s*\}|(?P<e2>[-−+]?\d))")
"""The ``\\times 10^{-19}`` (or ``× 10^3``, ``* 10^2``) after a mantissa; the exponent in ``e1`` or ``e2``."""
TIMES_TEN_BRACED = re.compile(
    r"\}\s*(?:\\times|\\cdot|×)\s*\{\s*10\s*\}\s*\^\s*\{\s*(?P<sign>[-−+]?)\s*\{?\s*(?P<e>\d+)\s*\}?\s*\}"
)
"""The rest of a braced scientific number after ``{8.854``: ``} \\times {10}^{-{12}}`` (exponent: ``sign``, ``e``)."""
_WRITTEN = re.compile(
    r"([-+]?\d+(?:\.\d*)?|[-+]?\.\d+)(?:[eE]([-+]?\d+))?(?:\s*(?:\\times|\\cdot)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?)?"
)
POWER_OF_TEN = re.compile(r"\s*\^\s*(?:\{\s*(?P<e1>[-−+]?\s*\d+)\s*\}|(?P<e2>[-−+]?\d))")
"""The ``^{-3}`` after a bare ``10``."""


def parse_written_number(text: str) -> Decimal | None:
    """A written reference answer (``2.9 \\times 10^{-11}``, `` 500``, ``3.0e5``) as a Decimal, or None."""
    s = text.strip().strip("$").strip()
    s = re.sub(r"\\(?:,|;|!|\s)|\{,\}|[\u2009\u202f\u00a0]", "", s)
    s = s.replace("−", "-").replace("×", "\\times")
    s = re.sub(r"^([-+])\s+(?=[\d.])", r"\1", s)
    match = _WRITTEN.fullmatch(s)
    if match:
        value = Decimal(match.group(1))
        for group in (2, 3):
            if match.group(group):
                value = value.scaleb(int(match.group(group)))
        return value
    match = re.fullmatch(r"10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?", s)
    if match:
        return Decimal(1).scaleb(int(match.group(1)))
    return None


def written_precision(answer: str, value: Decimal) -> float:
    """Relative half-unit of the last digit of a written answer (1.7 -> 0.05/1.7), a rounding allowance.

    ``value`` is the answer's parsed value (kept for the callers' symmetry); 0.0 when the mantissa is not
    a plain decimal.
    """
    mantissa = answer.strip().split("\\")[0].strip().lstrip("+-").strip()
    try:
        digits = Decimal(mantissa)
    except InvalidOperation:
        return 0.0
    exponent = digits.as_tuple().exponent
    if digits == 0 or not isinstance(exponent, int):
        return 0.0
    return float(Decimal(5).scaleb(exponent - 1) / abs(digits)) * 1.000001
