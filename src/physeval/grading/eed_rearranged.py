"""Whether an answer's relation is the reference's rearranged: the one check that turns a miss into a match.

PHYBench compares right sides, so ``2T = mg`` against ``T = mg/2`` and ``v^2 < 2gh`` against
``v < \\sqrt{2gh}`` are misses there. :func:`same_equation` reads both relations as differences
``L - R`` (every symbol a positive quantity) and accepts a factor that is never zero (keeping or
mirroring an order by its sign) or both sides raised to one power. Also the relation tokens
and :func:`unquoted`, shared with :mod:`physeval.grading.eed_relations`.
"""

from __future__ import annotations

import re
from typing import Any

from physeval.answers.latex import latex_to_sympy
from physeval.answers.latex_normalize import top_level_relations

__all__ = ["MAX_EQUATION_OPS", "same_equation", "unquoted"]

_EQUALITY = frozenset({"=", "approx", "simeq", "equiv", "cong", "doteq", "triangleq", "approxeq", "sim"})
_KINDS = {"<": "<", "lt": "<", ">": ">", "gt": ">", "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥",
          "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠", "propto": "∝", "lesssim": "≲", "gtrsim": "≳"}
_QUOTES = re.compile(r"^\s*(?:\$+|\\\[|\\\()|(?:\$+|\\\]|\\\))\s*$")
_NEGATION = re.compile(r"\\not\s*$")


def unquoted(text: str) -> str:
    """``text`` without its math delimiters (``$...$``, ``\\[...\\]``, ``\\(...\\)``)."""
    previous = None
    while previous != text:
        previous, text = text, _QUOTES.sub("", text)
    return text.strip()


MAX_EQUATION_OPS = 60
"""Operation budget of :func:`same_equation`: each relation, written as one difference, holds at most this many."""


_ORDERS = {"<": ">", ">": "<", "≤": "≥", "≥": "≤"}  # each order and its mirror image
_IMAGINARY_NAMES = frozenset({"i", "j"})  # letters a model may mean as the imaginary unit


def _one_relation(text: str) -> tuple[int, int, str] | None:
    """The span and kind (``=`` for every equality, else ``<`` ``>`` ``≤`` ``≥``) of ``text``'s one
    top-level relation; ``None`` for none, several, a negated one or another kind."""
    relations = top_level_relations(text)
    if len(relations) != 1 or _NEGATION.search(text, 0, relations[0][0]):
        return None
    start, end = relations[0]
    token = text[start:end].lstrip("\\")
    kind = "=" if token in _EQUALITY else _KINDS.get(token)
    return (start, end, kind) if kind == "=" or kind in _ORDERS else None


def same_equation(reference: str, answer: str) -> str:
    """Why the answer's relation is the reference's equation (or inequality) rearranged, or ``""``.

    Both state one ``=``, the answer's left side holding the reference's (``2T`` for ``T``; ``mg = 2T``
    is read turned round; ``m = T/g`` does not give ``T``); written as differences ``L - R``, the
    answer's is the reference's times a nonzero number or a product of powers of symbols and of
    positive numbers (``2T - mg`` is ``2 (T - mg/2)``;
    ``v^2/r - g`` is ``(v^2 - g r) / r``). Every symbol is a positive quantity, so such a factor is
    never 0 and the two equations hold for the same values. Or both sides are raised to one power
    (:func:`_raised`: ``\\omega^2 = k/m`` for ``\\omega = \\sqrt{k/m}``).

    An inequality is rearranged the same way when the factor is positive and the order the same
    (``v - \\sqrt{2gh} < 0``, ``v^2 < 2gh`` for ``v < \\sqrt{2gh}``), or the factor negative and the
    order mirrored (``-v > -\\sqrt{2gh}``, ``v^{-2} > 1/(2gh)``); multiplying by a positive quantity
    or raising positive sides to a positive power keeps an order, a negative one reverses it.
    Not when a side holds ``i`` or ``j`` (the imaginary unit would flip the order).
    Bounded: each difference holds at most :data:`MAX_EQUATION_OPS` operations."""
    import sympy

    sides, kinds = [], []
    for text in (unquoted(reference), unquoted(answer)):
        relation = _one_relation(text)
        if relation is None:
            return ""
        start, end, kind = relation
        kinds.append(kind)
        left, right = latex_to_sympy(text[:start]), latex_to_sympy(text[end:])
        if not (left.ok and right.ok):
            return ""
        if sympy.count_ops(left.expr - right.expr) > MAX_EQUATION_OPS:
            return ""
        sides.append((left.expr, right.expr))
    symbols = set().union(*(side.free_symbols for pair in sides for side in pair))
    if kinds[0] != "=" and any(symbol.name in _IMAGINARY_NAMES for symbol in symbols):
        return ""  # e^{i\\pi} v < e^{i\\pi}\\sqrt{2gh}: i may be the imaginary unit, and then the order flips
    positive: dict[Any, Any] = {symbol: sympy.Symbol(symbol.name, positive=True) for symbol in symbols}
    for side in (side for pair in sides for side in pair):  # decimals exact: 0.1 + 0.2 - 0.3 is 0
        positive.update({number: sympy.Rational(str(number)) for number in side.atoms(sympy.Float)})
    sides = [(left.xreplace(positive), right.xreplace(positive)) for left, right in sides]
    ref_names, ans_left_names, ans_right_names = ({s.name for s in side.free_symbols}
                                                  for side in (sides[0][0], *sides[1]))
    solved_for_another = isinstance(sides[1][0], sympy.Symbol)  # m = T/g gives m, not T
    if not (ref_names <= ans_left_names or solved_for_another) and ref_names <= ans_right_names:
        sides[1] = sides[1][::-1]  # mg = 2T is 2T = mg
        kinds[1] = _ORDERS.get(kinds[1], kinds[1])  # 2gh > v^2 is v^2 < 2gh
        ans_left_names = ans_right_names
    if (kinds[0] == "=") != (kinds[1] == "="):
        return ""
    (ref_left, ref_right), (ans_left, ans_right) = sides
    ref_difference, ans_difference = ref_left - ref_right, ans_left - ans_right
    if ref_difference == 0 or not ref_difference.free_symbols or not ref_names <= ans_left_names:
        return ""  # m = T/g is the equation of T = mg solved for m: it does not give T
    factor = sympy.cancel(ans_difference / ref_difference)
    if not _never_zero(factor, sympy) and factor.has(sympy.Pow):
        factor = sympy.radsimp(factor)  # cancel leaves radicals: v/\sqrt{2gh} - 1 over v - \sqrt{2gh}
    what = "equation" if kinds[0] == "=" else "inequality"
    if _never_zero(factor, sympy) and _kept_order(kinds, factor.as_coeff_Mul()[0] > 0):
        return f"the same {what} as the reference's, times {sympy.sstr(factor)}"
    power = _raised(sides[0], sides[1], sympy)
    if power is not None and _kept_order(kinds, power > 0):
        return f"the reference's {what} with both sides to the power {sympy.sstr(power)}"
    return ""


def _kept_order(kinds: list[str], positive: bool) -> bool:
    """Whether the answer's kind is the reference's after a positive (same order) or negative
    (mirrored order) factor or power; an equation stays an equation either way."""
    reference, answer = kinds
    return reference == "=" or answer == (reference if positive else _ORDERS[reference])


def _raised(reference: tuple[Any, Any], answer: tuple[Any, Any], sympy: Any) -> Any:
    """The power ``n`` when the answer's equation is the reference's ``L = R`` with both sides raised
    to it (``L^n = R^n``), or ``None``. The sides' symbols are positive.

    With every symbol a positive quantity, ``L^n = R^n`` holds exactly when ``L = R`` if ``L`` and ``R``
    are positive: ``L`` a power of a symbol, ``R`` shown positive (``\\sqrt{k/m}``). ``v^2 = (a - b)^2``
    against ``v = a - b`` and ``\\sin^2\\theta = 4/9`` against ``\\sin\\theta = 2/3`` (either side may
    be negative) stay misses."""
    ref_left, ref_right = reference
    ans_left, ans_right = answer
    base, ref_exponent = ref_left.as_base_exp()
    ans_base, ans_exponent = ans_left.as_base_exp()
    if not (isinstance(base, sympy.Symbol) and ans_base == base):
        return None
    if not (ref_exponent.is_Rational and ans_exponent.is_Rational) or ans_exponent == ref_exponent:
        return None
    power = ans_exponent / ref_exponent
    if ref_right.is_positive is not True or ans_right.is_positive is not True:
        return None
    root = sympy.powdenest(sympy.expand_power_base(ans_right ** (1 / power), force=True), force=True)
    if sympy.count_ops(root - ref_right) > 2 * MAX_EQUATION_OPS:
        return None
    return power if sympy.simplify(root - ref_right) == 0 else None


def _never_zero(factor: Any, sympy: Any) -> bool:
    """Whether ``factor`` is a nonzero finite number times powers of positive symbols and of
    positive numbers (``\\sqrt{2}``, ``e^{x}``: a positive number to a real power)."""
    coefficient, rest = factor.as_coeff_Mul()
    if not coefficient.is_finite or coefficient == 0 or not coefficient.is_number:
        return False
    for base, exponent in rest.as_powers_dict().items():
        if base == 1:
            continue
        if isinstance(base, sympy.Symbol) and base.is_positive and exponent.is_number and exponent.is_finite:
            continue
        if base.is_number and base.is_positive and base.is_finite and exponent.is_real and exponent.is_finite:
            continue
        return False
    return True
