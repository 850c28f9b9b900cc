"""Whether two SymPy expressions are equal, decided the same way on every machine.

A seeded numeric probe first: every free symbol gets a random positive rational value (the same
values on both sides), both expressions are evaluated to 40 significant digits at several points
and compared with a relative tolerance of 1e-9. A difference at any point settles "not
equivalent". Agreement everywhere is confirmed symbolically -- ``expand`` and then ``simplify``
of the difference under positive assumptions -- but only within operation budgets
(``count_ops`` and the estimated number of terms of the expansion,
:func:`physeval.answers.bounds.expanded_terms`); when a budget is exceeded or simplification
cannot reach zero the verdict is an explicit ``undecided`` that names the budget. Used by the
symbolic grader and by EED (an equivalent answer never needs a tree).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Equivalence", "check_equivalence", "pipeline_equivalence", "PROBE_POINTS", "PROBE_DIGITS", "REL_TOL",
           "SYMBOLIC_OPS_BUDGET", "SYMBOLIC_EXPAND_BUDGET"]

PROBE_POINTS = 5
PROBE_DIGITS = 40
REL_TOL = 1e-9
SYMBOLIC_OPS_BUDGET = 300  # count_ops of the difference; above it no simplification is tried
SYMBOLIC_EXPAND_BUDGET = 300  # estimated terms of expand(difference); above it neither expand nor simplify
_EXPAND_MAX_EXPONENT = 12  # expand only when no (sum)**n has |n| above this
_ZERO_FLOOR = 1e-30
_SEED = "physeval-symbolic-probe-v1"


@dataclass(frozen=True)
class Equivalence:
    """An equivalence verdict: True, False or ``None`` (undecided), how and why."""

    equivalent: bool | None
    method: str
    reason: str


# --------------------------------------------------------------------------------------
# Numeric probe
# --------------------------------------------------------------------------------------


def _probe_points(symbols: Sequence[Any], count: int) -> list[dict[Any, Any]]:
    """Deterministic random positive rationals in [0.5, 3], seeded by the symbol names."""
    import sympy

    names = ",".join(str(s) for s in symbols)
    rng = random.Random(f"{_SEED}:{names}")
    return [
        {s: sympy.Rational(rng.randint(50_000, 300_000), 100_000) for s in symbols} for _ in range(count)
    ]


def _evaluate(expr: Any, point: dict[Any, Any]) -> complex | None:
    """``expr`` at ``point`` to PROBE_DIGITS digits as a complex number, or ``None``."""
    import sympy

    try:
        value = expr.evalf(PROBE_DIGITS, subs=point)
        if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return None
        result = complex(value)
    except Exception:  # evaluation can fail on odd functions; that point is inconclusive
        return None
    if result != result or abs(result) == float("inf"):
        return None
    return result


def _close(a: complex, b: complex) -> bool:
    scale = max(abs(a), abs(b))
    if scale < _ZERO_FLOOR:
        return True
    return abs(a - b) <= REL_TOL * scale


def _numeric_probe(a: Any, b: Any) -> tuple[bool | None, str]:
    """False at the first point where the values differ; True if all valid points agree."""
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: str(s))
    points = _probe_points(symbols, PROBE_POINTS)
    valid = 0
    for k, point in enumerate(points):
        va = _evaluate(a, point)
        if va is None:
            continue
        vb = _evaluate(b, point)
        if vb is None:
            continue
        valid += 1
        if not _close(va, vb):
            return False, f"numeric probe: values differ at point {k + 1} ({va:.6g} vs {vb:.6g})"
    if valid >= 3 or (valid >= 1 and not symbols):
        return True, f"numeric probe: equal at {valid} points"
    return None, f"numeric probe inconclusive ({valid} valid points)"


# --------------------------------------------------------------------------------------
# Symbolic confirmation under an operation budget
# --------------------------------------------------------------------------------------


def _expand_is_safe(expr: Any) -> bool:
    import sympy

    for power in expr.atoms(sympy.Pow):
        exponent = power.exp
        if isinstance(power.base, sympy.Add) and exponent.is_Rational and abs(exponent) > _EXPAND_MAX_EXPONENT:
            return False
    return True


def _symbolic_zero(diff: Any) -> tuple[bool | None, str]:
    """True when ``diff`` is proven zero; ``None`` when the budget or the rewrites ran out."""
    import sympy

    from physeval.answers.bounds import expanded_terms

    ops = sympy.count_ops(diff)
    if ops > SYMBOLIC_OPS_BUDGET:
        return None, f"symbolic check skipped: {ops} operations exceed the budget of {SYMBOLIC_OPS_BUDGET}"
    terms = expanded_terms(diff, cap=10 * SYMBOLIC_EXPAND_BUDGET)
    if terms > SYMBOLIC_EXPAND_BUDGET:
        return None, f"symbolic check skipped: expand budget (about {terms} terms > {SYMBOLIC_EXPAND_BUDGET})"
    positive, _ = sympy.posify(diff)
    if positive == 0:
        return True, "difference is 0"
    if _expand_is_safe(positive) and sympy.expand(positive) == 0:
        return True, "expand(difference) == 0"
    simplified = sympy.simplify(positive)
    if simplified == 0:
        return True, "simplify(difference) == 0"
    if _expand_is_safe(simplified) and sympy.expand(simplified) == 0:
        return True, "expand(simplify(difference)) == 0"
    return None, "simplification did not reduce the difference to 0"


def check_equivalence(reference: Any, answer: Any) -> Equivalence:
    """Are two SymPy expressions equal for positive symbol values? Deterministic; never raises."""
    try:
        if reference == answer:
            return Equivalence(True, "identical", "identical expressions")
        verdict, why = _numeric_probe(reference, answer)
        if verdict is False:
            return Equivalence(False, "numeric", why)
        proven, how = _symbolic_zero(reference - answer)
        if proven:
            return Equivalence(True, "symbolic", f"{why}; {how}")
        return Equivalence(None, "undecided", f"{why}; {how}")
    except Exception as exc:  # SymPy can raise on exotic input; that is undecided, not a crash
        return Equivalence(None, "undecided", f"equivalence check failed: {type(exc).__name__}: {exc}")


def pipeline_equivalence(reference_simplified: Any, answer_simplified: Any) -> Equivalence:
    """The maintained pipeline's test on simplified forms, with budgets in place of timeouts.

    Structural equality, then ``simplify(expand(a - b)) == 0``, then ``a.equals(b)``; a step
    over budget counts as "not shown equal", as the pipeline's timeout does.
    """
    import sympy
    from sympy.core import random as sympy_random

    from physeval.answers.bounds import expanded_terms

    a, b = reference_simplified, answer_simplified
    try:
        if a == b:
            return Equivalence(True, "identical", "identical simplified expressions")
        diff = a - b
        within = sympy.count_ops(diff) <= SYMBOLIC_OPS_BUDGET and _expand_is_safe(diff)
        if within and expanded_terms(diff, cap=10 * SYMBOLIC_EXPAND_BUDGET) <= SYMBOLIC_EXPAND_BUDGET:
            if sympy.simplify(sympy.expand(diff)) == 0:
                return Equivalence(True, "symbolic", "simplify(expand(a - b)) == 0")
            sympy_random.seed(0)  # Expr.equals samples random points; fix them
            if a.equals(b):
                return Equivalence(True, "symbolic", "a.equals(b)")
            return Equivalence(False, "symbolic", "not shown equal by simplify or equals")
        return Equivalence(False, "budget", "over the operation budget: not shown equal")
    except Exception as exc:
        return Equivalence(False, "error", f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------------------
# Grades
# --------------------------------------------------------------------------------------
