"""One dimension algebra: exponents of base dimensions, read from text or units, of SymPy expressions.

Why: the template engine proves at load time that a solution has its answer's dimension, and
the symbolic grader checks a model's answer against declared symbol dimensions; both need the
same rules. A :data:`Dimension` is a sorted tuple of ``(base name, Fraction exponent)``; the
base names are pint's (``length``, ``mass``, ``time``, ``current``, ``temperature``,
``substance``, ``luminosity``); angles are dimensionless, as in SI.

Text is read by :func:`parse_dimension`: base names (``"length/time**2"``, ``"[mass]*[length]^2"``,
``amount`` and ``luminous_intensity`` as aliases), pint's derived dimension names (``"[energy]"``,
``"force"``) or units (``"kg*m/s^2"``, ``"N"``, ``"V/m"``); ``""``, ``"1"`` or ``"dimensionless"``
for pure numbers. :func:`expression_dimension` walks a SymPy expression and raises
:class:`InconsistentDimension` (a sum of unlike terms, a dimensioned function argument or
exponent) or :class:`UnknownDimension` (an undeclared symbol, an unsupported node), both
:class:`UnitError` (a ``ValueError``). SymPy is imported only when an expression is walked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from physeval.units.registry import registry

__all__ = [
    "DIMENSIONLESS",
    "Dimension",
    "InconsistentDimension",
    "UnitError",
    "UnknownDimension",
    "dimension_from_pint",
    "divide",
    "expression_dimension",
    "format_dimension",
    "multiply",
    "parse_dimension",
    "power",
    "unit_dimension",
]

Dimension = tuple[tuple[str, Fraction], ...]
"""A dimension as sorted (base name, exponent) pairs, e.g. (("length", 1), ("time", -2)); ``()`` is dimensionless."""

DIMENSIONLESS: Dimension = ()


class UnitError(ValueError):
    """A unit or dimension that cannot be read, or a dimensionally inconsistent expression."""


class InconsistentDimension(UnitError):
    """An expression that has no dimension: unlike terms added, a dimensioned argument or exponent."""


class UnknownDimension(UnitError):
    """An expression whose dimension cannot be known: an undeclared symbol or an unsupported node."""


_BASE_ALIASES = {
    "mass": "mass",
    "length": "length",
    "time": "time",
    "current": "current",
    "temperature": "temperature",
    "substance": "substance",
    "amount": "substance",
    "luminosity": "luminosity",
    "luminous_intensity": "luminosity",
}
_DIMENSIONLESS_TEXT = {"", "1", "dimensionless", "none", "[]"}
_WORD = re.compile(r"\[?([A-Za-z_][A-Za-z_]*)\]?")


def _normalize(exponents: Mapping[str, Fraction]) -> Dimension:
    return tuple(sorted((name, exp) for name, exp in exponents.items() if exp != 0))


def dimension_from_pint(container: Mapping[str, Any]) -> Dimension:
    """A pint dimensionality (``{"[length]": 1, "[time]": -2}``) as a :data:`Dimension`."""
    exps: dict[str, Fraction] = {}
    for key, exponent in dict(container).items():
        exps[str(key).strip("[]")] = Fraction(exponent).limit_denominator(1000)
    return _normalize(exps)


def multiply(a: Dimension, b: Dimension, power_b: Fraction = Fraction(1)) -> Dimension:
    """``a * b**power_b``."""
    exps: dict[str, Fraction] = dict(a)
    for name, exp in b:
        exps[name] = exps.get(name, Fraction(0)) + exp * power_b
    return _normalize(exps)


def divide(a: Dimension, b: Dimension) -> Dimension:
    """``a / b``."""
    return multiply(a, b, Fraction(-1))


def power(a: Dimension, exponent: Fraction) -> Dimension:
    """``a ** exponent``."""
    return _normalize({name: exp * exponent for name, exp in a})


def format_dimension(dim: Dimension) -> str:
    """A readable dimension string, ``"length/time**2"``; ``"dimensionless"`` when empty."""
    if not dim:
        return "dimensionless"
    num = [(n, e) for n, e in dim if e > 0]
    den = [(n, -e) for n, e in dim if e < 0]

    def part(name: str, exp: Fraction) -> str:
        if exp == 1:
            return name
        shown = str(exp) if exp.denominator == 1 else f"({exp})"
        return f"{name}**{shown}"

    top = "*".join(part(n, e) for n, e in num) or "1"
    if not den:
        return top
    bottom = "*".join(part(n, e) for n, e in den)
    return f"{top}/({bottom})" if len(den) > 1 else f"{top}/{bottom}"


def _dimension_names() -> frozenset[str]:
    """Every dimension name pint knows (base and derived: length, energy, velocity, ...)."""
    known = getattr(registry(), "_dimensions", {})
    return frozenset(str(k).strip("[]") for k in known) | frozenset(_BASE_ALIASES)


@lru_cache(maxsize=1024)
def parse_dimension(text: str) -> Dimension:
    """Read a dimension written with dimension names or as a unit; :class:`UnitError` when unreadable.

    ``"length/time**2"``, ``"[energy]"``, ``"force"``, ``"kg*m/s^2"`` and ``"N"`` all work; a text
    whose every word is a dimension name is read as dimensions, anything else as units.
    """
    raw = str(text).strip()
    if raw.lower() in _DIMENSIONLESS_TEXT:
        return DIMENSIONLESS
    expression = raw.replace("^", "**")
    words = _WORD.findall(raw)
    try:
        names = _dimension_names()
        if words and all(w in names or w.lower() in _BASE_ALIASES or w == "dimensionless" for w in words):

            def bracket(match: re.Match[str]) -> str:
                word = match.group(1)
                if word == "dimensionless":
                    return "[]"
                return f"[{_BASE_ALIASES.get(word.lower(), word)}]"

            dimensionality = registry().get_dimensionality(_WORD.sub(bracket, expression))
        else:
            dimensionality = registry().parse_expression(expression).dimensionality
        return dimension_from_pint(dimensionality)
    except Exception as exc:  # noqa: BLE001 - pint raises many types; all mean "cannot read this"
        raise UnitError(f"cannot read dimension {text!r}: {exc}") from None


def _clean_unit(unit: str) -> str:
    return unit.strip().replace("^", "**")


@lru_cache(maxsize=4096)
def unit_dimension(unit: str) -> Dimension:
    """The dimension of a pint unit string (angles are dimensionless, as in SI)."""
    text = _clean_unit(unit)
    if text in ("", "1", "dimensionless"):
        return DIMENSIONLESS
    try:
        return dimension_from_pint(registry().Quantity(Fraction(1), text).dimensionality)
    except Exception as exc:  # noqa: BLE001 - pint raises many types
        raise UnitError(f"pint cannot read unit {unit!r}: {exc}") from None


def expression_dimension(expr: Any, dims: Mapping[str, Dimension]) -> Dimension:
    """The dimension of a SymPy expression whose free symbols have the given dimensions.

    Rules: numbers are dimensionless; sums need equal dimensions; powers of a dimensioned base
    need a rational exponent and every exponent is dimensionless; ``Abs``, ``Min`` and ``Max``
    keep their (common) argument dimension, ``sign`` and ``atan2`` (of like arguments) are
    dimensionless; every other function (trigonometric, hyperbolic, exponential, logarithm, ...)
    needs dimensionless arguments and returns a pure number. Raises
    :class:`InconsistentDimension` or :class:`UnknownDimension` naming the sub-expression.
    """
    import sympy

    if expr.is_Symbol:
        if expr.name not in dims:
            raise UnknownDimension(f"symbol {expr.name!r} has no declared unit or dimension")
        return dims[expr.name]
    if expr.is_Number or expr.is_NumberSymbol or expr is sympy.S.ImaginaryUnit or expr.is_number:
        return DIMENSIONLESS
    if expr.is_Add:
        parts = [expression_dimension(arg, dims) for arg in expr.args]
        first = parts[0]
        for arg, dim in zip(expr.args[1:], parts[1:]):
            if dim != first:
                raise InconsistentDimension(
                    f"cannot add {format_dimension(first)} and {format_dimension(dim)} (in {expr.args[0]} + {arg})"
                )
        return first
    if expr.is_Mul:
        out = DIMENSIONLESS
        for arg in expr.args:
            out = multiply(out, expression_dimension(arg, dims))
        return out
    if expr.is_Pow:
        base, exponent = expr.args
        base_dim = expression_dimension(base, dims)
        if expression_dimension(exponent, dims) != DIMENSIONLESS:
            raise InconsistentDimension(f"exponent {exponent} is not dimensionless")
        if not base_dim:
            return DIMENSIONLESS
        if not exponent.is_Rational:
            raise InconsistentDimension(
                f"{base} has dimension {format_dimension(base_dim)} but exponent {exponent} is not a number"
            )
        return power(base_dim, Fraction(int(exponent.p), int(exponent.q)))
    if isinstance(expr, (sympy.Abs, sympy.Min, sympy.Max, sympy.sign)):
        parts = [expression_dimension(arg, dims) for arg in expr.args]
        if any(p != parts[0] for p in parts):
            raise InconsistentDimension(f"arguments of {expr.func.__name__} have different dimensions")
        return DIMENSIONLESS if isinstance(expr, sympy.sign) else parts[0]
    if isinstance(expr, sympy.atan2):
        a, b = (expression_dimension(arg, dims) for arg in expr.args)
        if a != b:
            raise InconsistentDimension(f"atan2 arguments have different dimensions in {expr}")
        return DIMENSIONLESS
    if isinstance(expr, sympy.Function):  # sin, exp, log, erf, ... and any other applied function
        for arg in expr.args:
            dim = expression_dimension(arg, dims)
            if dim != DIMENSIONLESS:
                raise InconsistentDimension(
                    f"{expr.func.__name__} needs a dimensionless argument, got {format_dimension(dim)} in {expr}"
                )
        return DIMENSIONLESS
    raise UnknownDimension(f"unsupported {type(expr).__name__} in {expr}")
