"""Symbolic grading: equivalence that never depends on machine speed, plus EED and dimensions.

Equivalence is decided by a seeded numeric probe first: every free symbol gets a random
positive rational value (the same values on both sides), both expressions are evaluated to
40 significant digits at several points and compared with a relative tolerance of 1e-9. A
difference at any point settles "not equivalent". Agreement everywhere is confirmed
symbolically -- ``expand`` and then ``simplify`` of the difference under positive
assumptions -- but only for expressions within operation budgets (``count_ops`` and the
estimated number of terms of the expansion, :func:`physeval.answers.bounds.expanded_terms`);
when a budget is exceeded or simplification cannot reach zero the verdict is an explicit
``undecided`` that names the budget. What an answer can become (``10^{10^{10}}``,
``9999999!``) is bounded before any of this, when it is read (``too_large``). The
maintained PHYBench pipeline bounds the same work by 30 s / 10 s wall-clock timeouts, so
its verdicts change with machine load; these do not.

:func:`grade_symbolic` extracts the final answer of a response (first ``\\boxed{}`` by
default, as PHYBench publishes), scores it with :func:`physeval.grading.eed.eed` and, when
symbol dimensions are known, checks dimensions. :func:`grade_symbolic_many` does the same
for many pairs in the shared worker pool (:mod:`physeval.grading.pool`) with results
identical to serial grading.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from physeval.answers.extract import extract_final_answer
from physeval.answers.latex import check_compat
from physeval.grading._never_raise import check_box, error_grade, never_raises
from physeval.problems import Grade, Outcome

__all__ = [
    "Equivalence",
    "SymbolicGrade",
    "check_equivalence",
    "pipeline_equivalence",
    "grade_symbolic",
    "grade_symbolic_many",
    "PROBE_POINTS",
    "PROBE_DIGITS",
    "REL_TOL",
    "SYMBOLIC_OPS_BUDGET",
    "SYMBOLIC_EXPAND_BUDGET",
]

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


@dataclass(frozen=True)
class SymbolicGrade(Grade):
    """A symbolic-track grade: equivalence, EED and (when known) dimension checks.

    Attributes (beyond :class:`physeval.problems.Grade`; ``score`` is ``eed_score / 100``):
        equivalent: True/False, or ``None`` when undecided or not comparable.
        eed_score: The EED score, 0-100.
        eed_distance: Tree edit distance (0 for equivalent answers; ``None`` if not computed).
        eed_size: Node count of the reference tree (``None`` if no tree was needed).
        eed_rel_distance: ``eed_distance / eed_size``.
        extraction_rule: How the answer was found (``boxed_first``, ``final_line``, ...).
        dimension_consistent: Whether the answer is dimensionally consistent (``None``: unknown).
        dimension_matches: Whether its dimension equals the reference's (``None``: unknown).
        dimension_reason: Explanation of the dimension check.
        budget: Which operation budget ran out while building the EED trees (``""``: none).
    """

    equivalent: bool | None = None
    eed_score: float = 0.0
    eed_distance: float | None = None
    eed_size: int | None = None
    eed_rel_distance: float | None = None
    extraction_rule: str = "none"
    dimension_consistent: bool | None = None
    dimension_matches: bool | None = None
    dimension_reason: str = ""
    budget: str = ""


@never_raises(error_grade(SymbolicGrade, score=0.0), options={"compat": check_compat, "box": check_box})
def grade_symbolic(
    response: str,
    reference: str,
    *,
    box: str = "first",
    compat: str | None = None,
    dimensions: Mapping[str, str] | None = None,
) -> SymbolicGrade:
    """Grade one response against a LaTeX reference: extraction, equivalence, EED, dimensions.

    ``box`` picks the first (PHYBench's published rule) or last ``\\boxed{}``;
    ``compat="phybench"`` reproduces the maintained pipeline; ``dimensions`` maps symbols
    (LaTeX or plain names) to dimensions such as ``"length/time"`` or ``"kg*m/s**2"``.
    Never raises on bad input.
    """
    from physeval.answers.latex import check_compat
    from physeval.grading.eed import eed

    check_compat(compat)
    extraction = extract_final_answer(response or "", box=box)  # type: ignore[arg-type]
    if extraction.text is None:
        return SymbolicGrade(
            correct=False,
            outcome=Outcome.NO_ANSWER,
            reason="no final answer found",
            score=0.0,
            extracted=None,
            extraction_rule=extraction.rule,
        )
    result = eed(reference, extraction.text, compat=compat)
    consistent = matches = None
    dimension_reason = ""
    if dimensions:
        from physeval.grading.dimensions import check_dimensions

        check = check_dimensions(extraction.text, reference, dimensions, compat=compat)
        consistent, matches, dimension_reason = check.consistent, check.matches, check.reason
    outcome = result.outcome
    if outcome == Outcome.WRONG and matches is False:
        outcome = Outcome.DIMENSION_MISMATCH
    return SymbolicGrade(
        correct=result.equivalent is True,
        outcome=outcome,
        reason=result.reason,
        score=result.score / 100.0,
        extracted=extraction.text,
        equivalent=result.equivalent,
        eed_score=result.score,
        eed_distance=result.distance,
        eed_size=result.size,
        eed_rel_distance=result.rel_distance,
        extraction_rule=extraction.rule,
        dimension_consistent=consistent,
        dimension_matches=matches,
        dimension_reason=dimension_reason,
        budget=result.budget,
    )


def _grade_item(item: tuple[str, str, str, str | None, Mapping[str, str] | None]) -> SymbolicGrade:
    response, reference, box, compat, dimensions = item
    try:
        return grade_symbolic(response, reference, box=box, compat=compat, dimensions=dimensions)
    except Exception as exc:  # defensive: a worker must always answer
        return SymbolicGrade(correct=False, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}", score=0.0)


def _timed_out(item: tuple[str, str, str, str | None, Mapping[str, str] | None]) -> SymbolicGrade:
    return SymbolicGrade(correct=False, outcome=Outcome.TIMEOUT, score=0.0,
                         reason="grading outlived the last-resort guard: its worker was killed")


def grade_symbolic_many(
    pairs: Iterable[tuple[str, str]],
    *,
    processes: int | None = None,
    box: str = "first",
    compat: str | None = None,
    dimensions: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None,
    timeout: float | None = None,
) -> list[SymbolicGrade]:
    """Grade ``(response, reference)`` pairs in the shared worker pool; results identical to serial.

    SymPy holds the GIL, so parallelism needs processes: :func:`physeval.grading.pool.grade_many`
    (one pool per process, started once, warm caches kept). Pairs sharing a reference are
    submitted together so its cached simplification is reused, and results come back in input
    order, identical to serial grading. ``processes=None`` uses the shared pool
    (``PHYSEVAL_GRADING_PROCESSES`` or the CPU count); 0 or 1 grades in this process; another
    number starts a pool of that size for this call. ``dimensions`` is one mapping for all
    pairs or one (or ``None``) per pair. ``timeout`` (seconds per pair, off by default) is the
    last-resort guard: a pair still running then gets the outcome ``timeout``.
    """
    from physeval.answers.latex import check_compat
    from physeval.grading.pool import grade_many

    check_compat(compat)
    pairs = list(pairs)
    if dimensions is None or isinstance(dimensions, Mapping):
        per_pair: list[Mapping[str, str] | None] = [dimensions] * len(pairs)  # type: ignore[list-item]
    else:
        per_pair = list(dimensions)
        if len(per_pair) != len(pairs):
            raise ValueError("dimensions must be one mapping or one entry per pair")
    items = [(str(r or ""), str(ref or ""), box, compat, d) for (r, ref), d in zip(pairs, per_pair)]
    return grade_many(_grade_item, items, processes=processes, group=lambda item: item[1], timeout=timeout,
                      on_timeout=_timed_out if timeout is not None else None)
