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
reference's. Unknown symbols make the verdict ``None`` rather than a guess. Parsing and the
dimension algebra are :mod:`physeval.units.dimension`, shared with the template engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from physeval.units.dimension import (
    Dimension,
    InconsistentDimension,
    UnknownDimension,
    expression_dimension,
    format_dimension,
    parse_dimension,
)

__all__ = ["DimensionCheck", "check_dimensions", "dimension_of"]


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
        return expression_dimension(expr, _table(dimensions, compat))
    except (InconsistentDimension, UnknownDimension) as exc:
        raise ValueError(str(exc)) from exc


def _assess(latex: str, table: Mapping[str, Dimension],
            compat: str | None) -> tuple[bool | None, Dimension | None, str]:
    from physeval.answers.latex import latex_to_sympy

    conv = latex_to_sympy(latex, compat=compat)
    if not conv.ok:
        return None, None, conv.reason
    try:
        return True, expression_dimension(conv.expr, table), ""
    except InconsistentDimension as exc:
        return False, None, str(exc)
    except UnknownDimension as exc:
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
        return DimensionCheck(consistent, None if consistent is None else False, None, ref_text,
                              f"answer: {answer_why}")
    if ref_ok is not True:
        return DimensionCheck(True, None, answer_text, None, f"reference: {ref_why}")
    matches = answer_dim == ref_dim
    why = "dimensions match" if matches else f"answer is {answer_text}, reference is {ref_text}"
    return DimensionCheck(True, matches, answer_text, ref_text, why)
