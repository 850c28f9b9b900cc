"""Dimension check of a symbolic answer, given the dimensions of its symbols.

PHYBench names dimensional analysis as future work; physeval does it when the dimensions of
the symbols are known (a symbolic template or a problem file declares them). Dimensions are
written either with base-dimension names -- ``"mass"``, ``"length/time"``,
``"length/time**2"``, ``"[mass]*[length]^2"`` -- or as units understood by pint --
``"kg*m/s^2"``, ``"N"``, ``"J*s"``; ``"1"`` or ``"dimensionless"`` for pure numbers. Symbol keys
may be plain names (``"v_0"``) or LaTeX (``"\\omega_{0}"``, ``"E_0"``); they go through the
same normal form as answers so they match the converted symbols.

The check reports whether the answer is dimensionally consistent (sums of like terms,
dimensionless arguments of functions and exponents) and whether its dimension equals the
reference's. Unknown symbols make the verdict ``None`` rather than a guess.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

__all__ = ["Dimension", "DimensionCheck", "parse_dimension", "dimension_of", "check_dimensions", "format_dimension"]

Dimension = tuple[tuple[str, Fraction], ...]
"""A dimension as sorted (base, exponent) pairs; ``()`` is dimensionless."""

_BASES = {
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
_DIMENSIONLESS = {"", "1", "dimensionless", "none", "[]"}
_WORD = re.compile(r"\[?([A-Za-z_]+)\]?")


class _Inconsistent(Exception):
    pass


class _Unknown(Exception):
    pass


@dataclass(frozen=True)
class DimensionCheck:
    """The result of a dimension check.

    Attributes:
        consistent: True/False for the answer's internal consistency; ``None`` if unknown.
        matches: Whether the answer's dimension equals the reference's; ``None`` if unknown.
        answer_dimension: The answer's dimension as text (``None`` if unknown).
        reference_dimension: The reference's dimension as text (``None`` if unknown).
        reason: Why, in words.
    """

    consistent: bool | None
    matches: bool | None
    answer_dimension: str | None
    reference_dimension: str | None
    reason: str


def _normalize(exponents: Mapping[str, Fraction]) -> Dimension:
    return tuple(sorted((k, v) for k, v in exponents.items() if v != 0))


def format_dimension(dim: Dimension) -> str:
    """``(("length", 1), ("time", -2))`` -> ``"length*time**-2"``; ``"1"`` when dimensionless."""
    if not dim:
        return "1"
    return "*".join(name if exp == 1 else f"{name}**{exp}" for name, exp in dim)


_REGISTRY: Any = None
_REGISTRY_LOCK = threading.Lock()


def _registry() -> Any:
    """The module's pint registry, built once under a lock (concurrent first calls share it)."""
    global _REGISTRY
    if _REGISTRY is None:
        with _REGISTRY_LOCK:
            if _REGISTRY is None:
                import pint

                _REGISTRY = pint.UnitRegistry()
    return _REGISTRY


@lru_cache(maxsize=1024)
def parse_dimension(text: str) -> Dimension:
    """Parse a dimension (base names or pint units); raises ``ValueError`` when unreadable."""
    raw = str(text).strip()
    if raw.lower() in _DIMENSIONLESS:
        return ()
    words = {w.lower() for w in _WORD.findall(raw)}
    if words and words <= set(_BASES):
        expression = _WORD.sub(lambda m: f"[{_BASES[m.group(1).lower()]}]", raw).replace("^", "**")
    else:
        expression = raw.replace("^", "**")
    try:
        registry = _registry()
        if words and words <= set(_BASES):
            dimensionality = registry.get_dimensionality(expression)
        else:
            dimensionality = registry.parse_expression(expression).dimensionality
    except Exception as exc:
        raise ValueError(f"cannot read dimension {text!r}: {exc}") from exc
    exps: dict[str, Fraction] = {}
    for base, exponent in dict(dimensionality).items():
        exps[base.strip("[]")] = Fraction(exponent).limit_denominator(1000)
    return _normalize(exps)


def _combine(a: Dimension, b: Dimension, factor: Fraction = Fraction(1)) -> Dimension:
    exps = dict(a)
    for name, exp in b:
        exps[name] = exps.get(name, Fraction(0)) + factor * exp
    return _normalize(exps)


def _scale(a: Dimension, factor: Fraction) -> Dimension:
    return _normalize({name: exp * factor for name, exp in a})


def _dimension(expr: Any, table: Mapping[str, Dimension]) -> Dimension:
    import sympy

    if expr.is_number:
        return ()
    if isinstance(expr, sympy.Symbol):
        if expr.name in table:
            return table[expr.name]
        raise _Unknown(f"no dimension given for symbol {expr.name}")
    if isinstance(expr, sympy.Add):
        dims = [_dimension(arg, table) for arg in expr.args]
        if any(d != dims[0] for d in dims[1:]):
            shown = sorted({format_dimension(d) for d in dims})
            raise _Inconsistent(f"adds terms of different dimensions: {', '.join(shown)}")
        return dims[0]
    if isinstance(expr, sympy.Mul):
        total: Dimension = ()
        for arg in expr.args:
            total = _combine(total, _dimension(arg, table))
        return total
    if isinstance(expr, sympy.Pow):
        base = _dimension(expr.base, table)
        if _dimension(expr.exp, table):
            raise _Inconsistent(f"exponent {expr.exp} is not dimensionless")
        if not base:
            return ()
        if not expr.exp.is_Rational:
            raise _Inconsistent(f"dimensional base {expr.base} raised to a non-rational power {expr.exp}")
        return _scale(base, Fraction(int(expr.exp.p), int(expr.exp.q)))
    if isinstance(expr, sympy.Abs):
        return _dimension(expr.args[0], table)
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return _dimension(sympy.Add(*expr.args, evaluate=False), table) if len(expr.args) > 1 else _dimension(
            expr.args[0], table
        )
    if isinstance(expr, sympy.Function):
        for arg in expr.args:
            if _dimension(arg, table):
                raise _Inconsistent(f"{expr.func.__name__} of a dimensional argument {arg}")
        return ()
    raise _Unknown(f"cannot take the dimension of {type(expr).__name__}")


def _table(dimensions: Mapping[str, str], compat: str | None) -> dict[str, Dimension]:
    """Map converted symbol names (and the raw keys) to parsed dimensions."""
    from physeval.answers.latex import latex_to_sympy

    table: dict[str, Dimension] = {}
    for key, value in dimensions.items():
        dim = parse_dimension(value)
        table[str(key)] = dim
        conv = latex_to_sympy(str(key), compat=compat)
        if conv.ok and len(conv.expr.free_symbols) == 1 and conv.expr.is_Symbol:
            table[conv.expr.name] = dim
    return table


def dimension_of(expr: Any, dimensions: Mapping[str, str], *, compat: str | None = None) -> Dimension:
    """The dimension of a SymPy expression or LaTeX string.

    Raises ``ValueError`` when the expression is inconsistent, a symbol's dimension is
    unknown, or the input does not convert.
    """
    from physeval.answers.latex import latex_to_sympy

    if isinstance(expr, str):
        conv = latex_to_sympy(expr, compat=compat)
        if not conv.ok:
            raise ValueError(conv.reason)
        expr = conv.expr
    try:
        return _dimension(expr, _table(dimensions, compat))
    except (_Inconsistent, _Unknown) as exc:
        raise ValueError(str(exc)) from exc


def _assess(latex: str, table: Mapping[str, Dimension], compat: str | None) -> tuple[bool | None, Dimension | None, str]:
    from physeval.answers.latex import latex_to_sympy

    conv = latex_to_sympy(latex, compat=compat)
    if not conv.ok:
        return None, None, conv.reason
    try:
        return True, _dimension(conv.expr, table), ""
    except _Inconsistent as exc:
        return False, None, str(exc)
    except _Unknown as exc:
        return None, None, str(exc)
    except Exception as exc:  # SymPy oddities: unknown, never a crash
        return None, None, f"{type(exc).__name__}: {exc}"


def check_dimensions(
    answer: str, reference: str, dimensions: Mapping[str, str], *, compat: str | None = None
) -> DimensionCheck:
    """Is the LaTeX ``answer`` dimensionally consistent, and does it match ``reference``? Never raises."""
    try:
        table = _table(dimensions, compat)
    except ValueError as exc:
        return DimensionCheck(None, None, None, None, f"dimension table: {exc}")
    consistent, answer_dim, answer_why = _assess(answer, table, compat)
    ref_ok, ref_dim, ref_why = _assess(reference, table, compat)
    answer_text = None if answer_dim is None else format_dimension(answer_dim)
    ref_text = None if ref_dim is None else format_dimension(ref_dim)
    if consistent is not True:
        return DimensionCheck(consistent, None if consistent is None else False, None, ref_text, f"answer: {answer_why}")
    if ref_ok is not True:
        return DimensionCheck(True, None, answer_text, None, f"reference: {ref_why}")
    matches = answer_dim == ref_dim
    why = "dimensions match" if matches else f"answer is {answer_text}, reference is {ref_text}"
    return DimensionCheck(True, matches, answer_text, ref_text, why)
