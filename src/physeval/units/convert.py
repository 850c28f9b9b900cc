"""Exact conversions: between two units (affine, for answers) and to SI (SymPy numbers, for templates).

Why: the numeric grader compares an answer written in one unit with a reference in another
(km/s and m/s, eV and J, degC and K with offsets) inside an exact-fraction tolerance test, and
a template states each quantity in the unit its question uses while its solution is written in
SI. Both need the *exact* affine map ``y = scale * x + offset``; the shared registry has
``Fraction`` magnitudes, so ``km -> m`` is exactly 1000 and ``degF -> degC`` exactly 5/9.
:func:`unit_to_si` gives SymPy numbers, with multiples of pi recognised (a degree is
``pi/180``); :func:`default_unit_latex` writes a unit the way ABench questions do.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from physeval.units.dimension import UnitError
from physeval.units.registry import registry
from physeval.units.unit import Unit

__all__ = ["UnitConversion", "conversion", "default_unit_latex", "unit_conversion", "unit_to_si"]


@dataclass(frozen=True)
class UnitConversion:
    """An affine map ``y = scale * x + offset`` between two units (exact fractions)."""

    scale: Fraction
    offset: Fraction

    def apply(self, value: Fraction) -> Fraction:
        """``value`` converted."""
        if self.offset == 0:
            return value * self.scale if self.scale != 1 else value
        return value * self.scale + self.offset


@lru_cache(maxsize=4096)
def conversion(src: Any, dst: Any) -> UnitConversion | None:
    """How to convert a value in pint unit ``src`` to pint unit ``dst``; ``None`` if the dimensions differ.

    Both units come from the shared registry (:func:`physeval.units.parse_unit`). Offsets
    (degC, degF) are handled; the map is exact.
    """
    if src == dst:
        return UnitConversion(Fraction(1), Fraction(0))
    ureg = registry()
    try:
        if ureg.Quantity(1, src).dimensionality != ureg.Quantity(1, dst).dimensionality:
            return None
        zero = Fraction(ureg.Quantity(Fraction(0), src).to(dst).magnitude)
        one = Fraction(ureg.Quantity(Fraction(1), src).to(dst).magnitude)
    except Exception:  # noqa: BLE001 - pint raises many types; all mean "no conversion"
        return None
    return UnitConversion(one - zero, zero)


_IDENTITY = UnitConversion(Fraction(1), Fraction(0))


@lru_cache(maxsize=4096)
def unit_conversion(src: Unit, dst: Unit) -> UnitConversion | None:
    """:func:`conversion` for :class:`~physeval.units.unit.Unit` values: exact table factors, else pint's.

    Two units the shipped table knows convert by their exact affine maps to base units
    (``y = (s_src * x + o_src - o_dst) / s_dst``), which is what pint computes from the same
    fractions; any other pair goes through pint.
    """
    if src == dst:
        return _IDENTITY
    if src.scale is not None and dst.scale is not None and src.offset is not None and dst.offset is not None:
        if src.dimension != dst.dimension:
            return None
        return UnitConversion(src.scale / dst.scale, (src.offset - dst.offset) / dst.scale)
    return conversion(src.pint, dst.pint)


def _pi_fraction() -> Fraction:
    return Fraction(registry().Quantity(Fraction(1), "pi").to_base_units().magnitude)


def _exact(value: Fraction) -> Any:
    """A pint Fraction as an exact SymPy number; multiples of pint's 50-digit pi become pi."""
    import sympy

    value = Fraction(value)
    if value == 0:
        return sympy.Integer(0)
    ratio = value / _pi_fraction()
    simple = ratio.limit_denominator(10**7)
    close = simple != 0 and abs(ratio - simple) <= abs(simple) * Fraction(1, 10**40)
    if close and value.limit_denominator(10**12) != value:  # a multiple of pi, not itself a plain decimal
        return sympy.Rational(simple.numerator, simple.denominator) * sympy.pi
    return sympy.Rational(value.numerator, value.denominator)


def _clean_unit(unit: str) -> str:
    return unit.strip().replace("^", "**")


@lru_cache(maxsize=4096)
def unit_to_si(unit: str) -> tuple[Any, Any]:
    """Exact ``(scale, offset)`` (SymPy numbers) with ``value_SI = scale * value + offset`` for a pint unit string.

    ``""`` and ``"1"`` mean dimensionless (scale 1). Raises :class:`UnitError` when pint
    cannot read the unit.
    """
    import sympy

    text = _clean_unit(unit)
    if text in ("", "1", "dimensionless"):
        return sympy.Integer(1), sympy.Integer(0)
    reg = registry()
    try:
        zero = reg.Quantity(Fraction(0), text).to_base_units().magnitude
        one = reg.Quantity(Fraction(1), text).to_base_units().magnitude
    except Exception as exc:  # noqa: BLE001 - pint raises many types; all mean "cannot read this unit"
        raise UnitError(f"pint cannot read unit {unit!r}: {exc}") from None
    return _exact(Fraction(one) - Fraction(zero)), _exact(Fraction(zero))


_NON_ASCII_OK = {"µ": r"\mu ", "Ω": r"\Omega", "°": r"^{\circ}", "Å": r"\AA"}


def default_unit_latex(unit: str) -> str:
    """A LaTeX rendering of a pint unit string in the style of ABench questions.

    ``"m/s**2"`` -> ``\\mathrm{m/s^{2}}``; ``"J/(kg*K)"`` -> ``\\mathrm{J\\,kg^{-1}\\,K^{-1}}``.
    Symbols pint writes in Unicode (µ, Ω, °) are mapped to LaTeX commands.
    """
    text = _clean_unit(unit)
    if text in ("", "1", "dimensionless"):
        return ""
    reg = registry()
    try:
        units = reg.Quantity(Fraction(1), text).units
    except Exception as exc:  # noqa: BLE001 - pint raises many types
        raise UnitError(f"pint cannot read unit {unit!r}: {exc}") from None
    items = list(units._units.items())

    def symbol(name: str) -> str:
        sym = reg.get_symbol(name)
        for bad, good in _NON_ASCII_OK.items():
            if bad in sym:
                return sym.replace(bad, "}" + good + r"\mathrm{")
        return sym

    def power(name: str, exp: Any) -> str:
        frac = Fraction(exp).limit_denominator(1000)
        shown = str(frac.numerator) if frac.denominator == 1 else f"{frac.numerator}/{frac.denominator}"
        return symbol(name) + ("" if frac == 1 else "^{" + shown + "}")

    num = [(n, e) for n, e in items if e > 0]
    den = [(n, -Fraction(e)) for n, e in items if e < 0]
    if len(den) == 1 and num:
        body = r"\,".join(power(n, e) for n, e in num) + "/" + power(*den[0])
    else:
        body = r"\,".join([power(n, e) for n, e in num] + [power(n, -e) for n, e in den])
    out = r"\mathrm{" + body + "}"
    return out.replace(r"\mathrm{}", "")
