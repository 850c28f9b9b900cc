"""Units and dimensions for templates: exact SI factors from ``pint`` and a dimension checker.

Why: a template states each quantity in the unit the question uses (km/h, MeV, degrees, degC)
while its solution is written in SI. The engine therefore needs, for every unit, the *exact*
affine map to SI (scale and offset as SymPy numbers, ``pi/180`` for a degree, ``5/18`` for km/h),
and a way to prove at load time that a solution has the dimension of its answer. ``pint`` is
the source of truth; it runs with ``Fraction`` magnitudes so no binary float rounding leaks in.
"""

from __future__ import annotations

import re
import threading
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

import sympy

__all__ = [
    "Dimension",
    "UnitError",
    "DIMENSIONLESS",
    "unit_to_si",
    "unit_dimension",
    "parse_dimension",
    "format_dimension",
    "expression_dimension",
    "default_unit_latex",
]

Dimension = tuple[tuple[str, Fraction], ...]
"""A dimension as sorted (base name, exponent) pairs, e.g. (("length", 1), ("time", -2))."""

DIMENSIONLESS: Dimension = ()

_BASE_NAMES = ("length", "mass", "time", "current", "temperature", "substance", "luminosity")


class UnitError(ValueError):
    """A unit or dimension that pint cannot read, or a dimensionally inconsistent expression."""


_REGISTRY = None
_REGISTRY_LOCK = threading.Lock()


def _registry():  # pint import is slow-ish; do it once, lazily, under a lock (one registry per process)
    global _REGISTRY
    if _REGISTRY is None:
        with _REGISTRY_LOCK:
            if _REGISTRY is None:
                import pint

                _REGISTRY = pint.UnitRegistry(non_int_type=Fraction)
    return _REGISTRY


def _pi_fraction() -> Fraction:
    reg = _registry()
    return Fraction(reg.Quantity(Fraction(1), "pi").to_base_units().magnitude)


def _exact(value: Fraction) -> sympy.Expr:
    """A pint Fraction as an exact SymPy number; multiples of pint's 50-digit pi become pi."""
    value = Fraction(value)
    if value == 0:
        return sympy.Integer(0)
    ratio = value / _pi_fraction()
    simple = ratio.limit_denominator(10**7)
    if simple != 0 and abs(ratio - simple) <= abs(simple) * Fraction(1, 10**40):
        if value.limit_denominator(10**12) != value:  # not itself a plain decimal
            return sympy.Rational(simple.numerator, simple.denominator) * sympy.pi
    return sympy.Rational(value.numerator, value.denominator)


def _clean_unit(unit: str) -> str:
    return unit.strip().replace("^", "**")


@lru_cache(maxsize=4096)
def unit_to_si(unit: str) -> tuple[sympy.Expr, sympy.Expr]:
    """Exact ``(scale, offset)`` with ``value_SI = scale * value + offset`` for a pint unit string.

    ``""`` and ``"1"`` mean dimensionless (scale 1). Raises :class:`UnitError` when pint
    cannot read the unit.
    """
    text = _clean_unit(unit)
    if text in ("", "1", "dimensionless"):
        return sympy.Integer(1), sympy.Integer(0)
    reg = _registry()
    try:
        zero = reg.Quantity(Fraction(0), text).to_base_units().magnitude
        one = reg.Quantity(Fraction(1), text).to_base_units().magnitude
    except Exception as exc:  # pint raises many types; all mean "cannot read this unit"
        raise UnitError(f"pint cannot read unit {unit!r}: {exc}") from None
    return _exact(Fraction(one) - Fraction(zero)), _exact(Fraction(zero))


def _to_dimension(container: Mapping[str, object]) -> Dimension:
    items: list[tuple[str, Fraction]] = []
    for key, exponent in dict(container).items():
        name = str(key).strip("[]")
        frac = Fraction(exponent).limit_denominator(1000)
        if frac != 0:
            items.append((name, frac))
    return tuple(sorted(items))


@lru_cache(maxsize=4096)
def unit_dimension(unit: str) -> Dimension:
    """The dimension of a pint unit string (angles are dimensionless, as in SI)."""
    text = _clean_unit(unit)
    if text in ("", "1", "dimensionless"):
        return DIMENSIONLESS
    try:
        return _to_dimension(_registry().Quantity(Fraction(1), text).dimensionality)
    except Exception as exc:
        raise UnitError(f"pint cannot read unit {unit!r}: {exc}") from None


_DIM_WORD = re.compile(r"\[?([A-Za-z_][A-Za-z_]*)\]?")


@lru_cache(maxsize=1024)
def parse_dimension(text: str) -> Dimension:
    """Read a dimension such as ``"length/time**2"``, ``"[energy]"`` or ``"dimensionless"``.

    Base and pint-derived names (energy, force, charge, velocity, ...) are accepted, with or
    without brackets. Raises :class:`UnitError` naming the text when pint cannot read it.
    """
    raw = text.strip().replace("^", "**")
    if raw in ("", "1", "dimensionless", "[]"):
        return DIMENSIONLESS

    def bracket(match: re.Match[str]) -> str:
        word = match.group(1)
        return "[]" if word == "dimensionless" else f"[{word}]"

    expr = _DIM_WORD.sub(bracket, raw)
    try:
        return _to_dimension(_registry().get_dimensionality(expr))
    except Exception as exc:
        raise UnitError(f"cannot read dimension {text!r}: {exc}") from None


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


def _mul(a: Dimension, b: Dimension, power_b: Fraction = Fraction(1)) -> Dimension:
    out: dict[str, Fraction] = dict(a)
    for name, exp in b:
        out[name] = out.get(name, Fraction(0)) + exp * power_b
    return tuple(sorted((n, e) for n, e in out.items() if e != 0))


def _pow(a: Dimension, exponent: Fraction) -> Dimension:
    return tuple(sorted((n, e * exponent) for n, e in a if e * exponent != 0))


_DIMENSIONLESS_FUNCS = (
    sympy.sin, sympy.cos, sympy.tan, sympy.cot, sympy.sec, sympy.csc,
    sympy.asin, sympy.acos, sympy.atan, sympy.acot, sympy.sinh, sympy.cosh, sympy.tanh,
    sympy.asinh, sympy.acosh, sympy.atanh, sympy.exp, sympy.log, sympy.erf,
)


def expression_dimension(expr: sympy.Expr, dims: Mapping[str, Dimension]) -> Dimension:
    """The dimension of a SymPy expression whose free symbols have the given dimensions.

    Rules: sums need equal dimensions; powers of a dimensioned base need a rational exponent;
    trigonometric, hyperbolic, exponential and logarithm functions need a dimensionless
    argument and return one; ``Abs``, ``Min`` and ``Max`` keep their argument's dimension.
    Raises :class:`UnitError` with the offending sub-expression.
    """
    if expr.is_Symbol:
        if expr.name not in dims:
            raise UnitError(f"symbol {expr.name!r} has no declared unit or dimension")
        return dims[expr.name]
    if expr.is_Number or expr.is_NumberSymbol or expr is sympy.S.ImaginaryUnit:
        return DIMENSIONLESS
    if expr.is_Add:
        parts = [expression_dimension(arg, dims) for arg in expr.args]
        first = parts[0]
        for arg, dim in zip(expr.args[1:], parts[1:]):
            if dim != first:
                raise UnitError(
                    f"cannot add {format_dimension(first)} and {format_dimension(dim)} "
                    f"(in {expr.args[0]} + {arg})"
                )
        return first
    if expr.is_Mul:
        out = DIMENSIONLESS
        for arg in expr.args:
            out = _mul(out, expression_dimension(arg, dims))
        return out
    if expr.is_Pow:
        base, exponent = expr.args
        base_dim = expression_dimension(base, dims)
        if expression_dimension(exponent, dims) != DIMENSIONLESS:
            raise UnitError(f"exponent {exponent} is not dimensionless")
        if not base_dim:
            return DIMENSIONLESS
        if not exponent.is_Rational:
            raise UnitError(f"{base} has dimension {format_dimension(base_dim)} but exponent {exponent} is not a number")
        return _pow(base_dim, Fraction(int(exponent.p), int(exponent.q)))
    if isinstance(expr, (sympy.Abs, sympy.Min, sympy.Max, sympy.sign)):
        parts = [expression_dimension(arg, dims) for arg in expr.args]
        if any(p != parts[0] for p in parts):
            raise UnitError(f"arguments of {expr.func.__name__} have different dimensions")
        return DIMENSIONLESS if isinstance(expr, sympy.sign) else parts[0]
    if isinstance(expr, sympy.atan2):
        a, b = (expression_dimension(arg, dims) for arg in expr.args)
        if a != b:
            raise UnitError(f"atan2 arguments have different dimensions in {expr}")
        return DIMENSIONLESS
    if isinstance(expr, _DIMENSIONLESS_FUNCS):
        for arg in expr.args:
            dim = expression_dimension(arg, dims)
            if dim != DIMENSIONLESS:
                raise UnitError(
                    f"{expr.func.__name__} needs a dimensionless argument, got {format_dimension(dim)} in {expr}"
                )
        return DIMENSIONLESS
    raise UnitError(f"unsupported function {expr.func.__name__} in {expr}")


_NON_ASCII_OK = {"µ": r"\mu ", "Ω": r"\Omega", "°": r"^{\circ}", "Å": r"\AA"}


def default_unit_latex(unit: str) -> str:
    """A LaTeX rendering of a pint unit string in the style of ABench questions.

    ``"m/s**2"`` -> ``\\mathrm{m/s^{2}}``; ``"J/(kg*K)"`` -> ``\\mathrm{J\\,kg^{-1}\\,K^{-1}}``.
    Symbols pint writes in Unicode (µ, Ω, °) are mapped to LaTeX commands.
    """
    text = _clean_unit(unit)
    if text in ("", "1", "dimensionless"):
        return ""
    reg = _registry()
    try:
        units = reg.Quantity(Fraction(1), text).units
    except Exception as exc:
        raise UnitError(f"pint cannot read unit {unit!r}: {exc}") from None
    items = list(units._units.items())

    def symbol(name: str) -> str:
        sym = reg.get_symbol(name)
        for bad, good in _NON_ASCII_OK.items():
            if bad in sym:
                return sym.replace(bad, "}" + good + r"\mathrm{")
        return sym

    def power(name: str, exp: object) -> str:
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
