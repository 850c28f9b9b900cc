"""How much simplification one side's EED tree may cost: operation budgets, never seconds.

:class:`TreeBudget` measures a parsed expression before it is simplified (counts that are the
same on every machine, in every process and under any load); over a limit, that side's tree is
scored on its form simplified by parts (:mod:`physeval.grading.eed_partial`: every
subexpression within the budget simplified in full). :func:`simplify_budgeted` is the one entry point EED
uses for a side's simplified form.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from physeval.answers.bounds import expanded_terms

__all__ = ["TreeBudget", "DEFAULT_BUDGET", "UNBOUNDED", "TREE_EXPAND_BUDGET", "TREE_SIMPLIFY_BUDGET",
           "HYPERBOLIC_BUDGET", "TRIG_HELD_BUDGET", "MAX_TRIG_MULTIPLES", "held_whole", "multiple_angles_exceeded",
           "simplify_budgeted"]

# Expressions with more operations than this, or whose expansion would have more terms than
# TREE_EXPAND_BUDGET, are not simplified before building a tree; the pipeline's analogue is
# a 30 s wall-clock timeout that returns the unsimplified form.
TREE_SIMPLIFY_BUDGET = 250
TREE_EXPAND_BUDGET = 300
# The default limit of TreeBudget.max_trig_multiples, also the symbolic equivalence check's
# (:func:`multiple_angles_exceeded`): sin(18x + 10y) cos(16x - 20y) (38) took 5 s to simplify.
MAX_TRIG_MULTIPLES = 20

# The notes of a side simplified with some functions held whole (``TreeBudget.simplify``): a
# complete simplification of a form equal to the side, not a partial one. Each note starts with
# its count's name and ends with _HELD.
HYPERBOLIC_BUDGET = "hyperbolic budget"
TRIG_HELD_BUDGET = "trigonometric-function budget"
_HELD = "(held whole)"


def held_whole(note: str) -> bool:
    """Whether a side's budget ``note`` says it was simplified with some functions held whole (a
    complete simplification), not by parts."""
    return note.endswith(_HELD)



@dataclass(frozen=True)
class TreeBudget:
    """How much simplification one side's EED tree may cost, measured in counts, never in seconds.

    Before simplifying a side, EED measures its parsed form; above any limit that side is
    simplified by parts (every subexpression within the limits in full, bottom up), and the
    result's ``budget`` says which count ran out. It replaces the official pipeline's 30 s
    ``simplify_time_limit`` (after which the pipeline scores the raw tree), decided by counts
    that are the same on every machine, in every process and under any load (each is a sum or a
    maximum over sets of subexpressions, so no iteration order enters). Equivalence verdicts (and
    so accuracy) never depend on it in the default mode: it only decides which tree a wrong
    answer's partial credit is measured on. Hashable, so it keys the caches.

    The counts, each aimed at the step of ``simplify`` it makes expensive (calibrated on the 100
    PHYBench references and ``bench/eed.py``'s pairs so that no pair takes over 2 s on one core):

    * ``max_ops``: ``count_ops`` of the expression;
    * ``max_terms``: the estimated terms of its expansion
      (:func:`physeval.answers.bounds.expanded_terms`);
    * ``max_radical_terms``: the expanded terms of every base of a fractional power of a sum,
      added up (each radical is a generator of the polynomial ``cancel`` works on);
    * ``max_trig_sum_terms``: the terms of the arguments of trigonometric and hyperbolic
      functions that are sums, added up (``trigsimp`` expands functions of sums: three
      functions of a six-term sum take 26 s);
    * ``max_function_load``: the number of function nodes times the operations inside their
      arguments (``trigsimp`` and ``factor`` on trigonometric and exponential forms);
    * ``max_degree`` and ``max_degree_generators``: the total degree of the numerator and
      denominator of the ``together`` form, and that degree times their number of generators
      (the gcd in ``cancel``);
    * ``max_trig_multiples``: for every trigonometric or hyperbolic function of a sum, the terms
      of its expanded argument less one, times their largest integer coefficient, added up.
      ``trigsimp`` expands a function of a sum and then each multiple angle: ``sin(9a + 24b +
      16c)/2`` (48) and ``sin((3y - 4)^2/M)/2`` (48) ran for minutes, ``sin(a + b + c)/2`` (2)
      took 0.3 s, ``sin(16x + y)/(1 + cos(z)^2)`` (16) 1.6 s and ``sin(18x + 10y) cos(16x - 20y)``
      (38) 5 s; PHYBench's polygon of N rods (a sine of ``pi (9 - 5 tan^2(pi/N))^2/N``, 180)
      took 1.7-3.8 s. Over it the side is simplified with each of those functions held whole
      (the others are simplified as ever): on the polygon the form is the unbounded one, and its
      first pair took 1.6 s, not 6.0 s.
    * The compat mode leaves that count out: the pipeline simplifies those sides in full (or
      gives up after its 30 s), and its equivalence test runs on the forms it simplified.
    * ``max_hyperbolic_functions`` and ``max_hyperbolic_degree_generators``: the distinct
      hyperbolic functions, and the same product where they occur.
      ``trigsimp`` writes them as trigonometric functions of ``i x`` and factors over the
      Gaussian rationals, which costs far more: a PHYBench pipeline regression reference with two
      ``\tanh`` (degree 9 x 12 generators) took 5.8 s, against 0.14 s with the ``\tanh`` written
      as letters, and an outside review found three or four hyperbolic functions of degree 10 at
      over 15 s. Over either the side is not simplified by parts but with each hyperbolic
      function held whole (:meth:`simplify`).
    """

    max_ops: int = TREE_SIMPLIFY_BUDGET
    max_terms: int = TREE_EXPAND_BUDGET
    max_radical_terms: int = 6
    max_trig_sum_terms: int = 8
    max_function_load: int = 108
    max_degree: int = 32
    max_degree_generators: int = 340
    max_hyperbolic_degree_generators: int = 64
    max_hyperbolic_functions: int = 2
    max_trig_multiples: int | None = MAX_TRIG_MULTIPLES

    def exceeded(self, expr: Any) -> str:
        """``""`` when ``expr`` may be simplified, else which count ran out, in words."""
        import sympy

        ops = sympy.count_ops(expr)
        if ops > self.max_ops:
            return f"simplify budget: {ops} operations > {self.max_ops}"
        terms = expanded_terms(expr, cap=10 * self.max_terms)
        if terms > self.max_terms:
            return f"expand budget: about {terms} terms > {self.max_terms}"
        radicals = [p for p in expr.atoms(sympy.Pow) if not p.exp.is_Integer and isinstance(p.base, sympy.Add)]
        radical_terms = sum(expanded_terms(p.base, cap=10 * self.max_terms) for p in radicals)
        if radical_terms > self.max_radical_terms:
            return f"radical budget: {radical_terms} terms under fractional powers > {self.max_radical_terms}"
        functions = expr.atoms(sympy.Function)
        trigonometric = _trigonometric()
        trig_terms = 0
        for f in functions:
            argument: Any = f.args[0] if isinstance(f, trigonometric) and len(f.args) == 1 else None
            trig_terms += len(argument.args) if isinstance(argument, sympy.Add) else 0
        if trig_terms > self.max_trig_sum_terms:
            return f"trigonometric budget: {trig_terms} terms in sums under trigonometric functions " \
                   f"> {self.max_trig_sum_terms}"
        load = len(functions) * sum(sympy.count_ops(a) for f in functions for a in f.args)
        if load > self.max_function_load:
            return f"function budget: {len(functions)} functions x their arguments' operations = {load} " \
                   f"> {self.max_function_load}"
        degree, generators = _together_degree(expr, 10 * self.max_terms)
        if degree > self.max_degree:
            return f"degree budget: together form of total degree {degree} > {self.max_degree}"
        if degree * generators > self.max_degree_generators:
            return f"degree budget: together form of degree {degree} x {generators} generators " \
                   f"> {self.max_degree_generators}"
        return ""

    def simplify(self, positive: Any) -> tuple[Any, str]:
        """``simplify`` of ``positive`` (within the other counts; its symbols positive) and ``""``;
        or, over a held count (:meth:`held_functions`), its form simplified with the functions that
        count names each held as one symbol (its arguments simplified on their own) and that count
        in words. The held form is equal to ``positive``; it misses only the identities of the held
        functions."""
        import sympy

        over, functions = self.held_functions(positive)
        if not functions:
            return sympy.simplify(positive), ""
        # a plain symbol: sinh(3a - b) may be negative, and sqrt(sinh(3a - b)**2) must not become it
        held = {f: sympy.Dummy(f"held{i}") for i, f in enumerate(sorted(functions, key=sympy.default_sort_key))}
        # each argument by the same rules: a held function's argument may hold another one
        back = {d: f.func(*(self.simplify(a)[0] for a in f.args)) for f, d in held.items()}
        return sympy.simplify(positive.xreplace(held)).xreplace(back), f"{over} {_HELD}"

    def held_functions(self, expr: Any) -> tuple[str, set[Any]]:
        """Why ``simplify`` of ``expr`` holds some functions whole, and which; ``("", set())`` when
        it holds none. Over a hyperbolic count every hyperbolic function is held; over the
        multiple angles, the functions of sums that count."""
        from sympy.functions.elementary.hyperbolic import HyperbolicFunction

        reasons: list[str] = []
        held: set[Any] = set()
        hyperbolic = self.hyperbolic_exceeded(expr)
        if hyperbolic:
            reasons.append(hyperbolic)
            held |= expr.atoms(HyperbolicFunction)
        if self.max_trig_multiples is not None:
            multiples, functions = _multiple_angles(expr, self.max_trig_multiples)
            if multiples:
                reasons.append(f"{TRIG_HELD_BUDGET}: {multiples}")
                held |= functions
        return "; ".join(reasons), held

    def pipeline(self) -> TreeBudget:
        """This budget without the counts the compat mode leaves out (the pipeline has no such step)."""
        return dataclasses.replace(self, max_trig_multiples=None)

    def hyperbolic_exceeded(self, expr: Any) -> str:
        """``""``, or why ``simplify`` of ``expr`` would factor its hyperbolic functions over the
        Gaussian rationals at a cost no other count sees: more distinct hyperbolic functions than
        ``max_hyperbolic_functions``, or a ``together`` form of degree x generators over
        ``max_hyperbolic_degree_generators``."""
        from sympy.functions.elementary.hyperbolic import HyperbolicFunction

        hyperbolic = expr.atoms(HyperbolicFunction)
        if not hyperbolic:
            return ""
        if len(hyperbolic) > self.max_hyperbolic_functions:
            return f"{HYPERBOLIC_BUDGET}: {len(hyperbolic)} hyperbolic functions > {self.max_hyperbolic_functions}"
        degree, generators = _together_degree(expr, 10 * self.max_terms)
        if degree * generators > self.max_hyperbolic_degree_generators:
            return (f"{HYPERBOLIC_BUDGET}: together form of degree {degree} x {generators} generators "
                    f"> {self.max_hyperbolic_degree_generators} with hyperbolic functions")
        return ""


def _trigonometric() -> tuple[Any, ...]:
    """SymPy's trigonometric and hyperbolic function classes (imported on first use)."""
    from sympy.functions.elementary.hyperbolic import HyperbolicFunction
    from sympy.functions.elementary.trigonometric import TrigonometricFunction

    return (TrigonometricFunction, HyperbolicFunction)


def multiple_angles_exceeded(expr: Any, limit: int = MAX_TRIG_MULTIPLES) -> str:
    """``""``, or why ``simplify`` of ``expr`` would expand multiple angles for seconds or minutes
    (the count of :attr:`TreeBudget.max_trig_multiples` over ``limit``)."""
    return _multiple_angles(expr, limit)[0]


def _multiple_angles(expr: Any, limit: int) -> tuple[str, set[Any]]:
    """Why the multiple-angle count of ``expr`` is over ``limit`` and the functions it counted, or ``("", set())``."""
    multiples, counted = _trig_multiples(expr, cap=10 * limit)
    if multiples <= limit:
        return "", set()
    return f"multiple angles under trigonometric functions {multiples} > {limit}", counted


def _trig_multiples(expr: Any, cap: int) -> tuple[int, set[Any]]:
    """For every distinct trigonometric or hyperbolic function of ``expr``: the terms of its
    expanded argument less one, times their largest integer coefficient (a rational's numerator),
    added up, and the functions that added to it. The sum is ``cap`` once it reaches it, or once an
    argument would expand to ``cap`` terms or more."""
    import math

    import sympy

    total = 0
    counted: set[Any] = set()
    for function in sorted(expr.atoms(*_trigonometric()), key=sympy.default_sort_key):
        argument = function.args[0] if len(function.args) == 1 else None
        if argument is None or not argument.has(sympy.Add):
            continue
        if expanded_terms(argument, cap=cap) >= cap:
            return cap, counted | {function}
        terms = sympy.Add.make_args(sympy.expand(argument))
        if len(terms) < 2:
            continue
        counted.add(function)
        largest = 1
        for term in terms:
            coefficient = term.as_coeff_Mul()[0]
            size = abs(coefficient.p) if coefficient.is_Rational else math.ceil(min(abs(float(coefficient)), cap))
            largest = max(largest, size)
        total += (len(terms) - 1) * largest
        if total >= cap:
            return cap, counted
    return total, counted


def _together_degree(expr: Any, cap: int) -> tuple[int, int]:
    """Total degree and number of generators of the numerator and denominator of ``together(expr)``.

    (0, 0) when a part is not a polynomial SymPy can read; a part whose expansion would exceed
    ``cap`` terms counts as degree ``cap`` (over any budget), without expanding it.
    """
    import sympy

    numerator, denominator = sympy.fraction(sympy.together(expr))
    generators: set[Any] = set()
    degree = 0
    for part in (numerator, denominator):
        if expanded_terms(part, cap=cap) >= cap:
            return cap, 1
        try:
            poly = sympy.Poly(part)
        except Exception:  # a constant, or not a polynomial in any generators: nothing to cancel
            continue
        generators |= set(poly.gens)
        degree = max(degree, poly.total_degree())
    return degree, len(generators)


DEFAULT_BUDGET = TreeBudget()
"""The default budget: no PHYBench pair takes over 2 s on one core (see ``bench/eed.py``)."""

UNBOUNDED = None
"""``budget=UNBOUNDED``: always simplify, as the published definition does. Possibly unbounded in
time (SymPy's ``simplify`` has no bound of its own); for studies, not for graders in a loop."""


def _posify(expr: Any) -> tuple[Any, Callable[[Any], Any]]:
    """:func:`sympy.posify` of ``expr``, and the function that puts its symbols back.

    The same positive dummies, put in and taken out with ``xreplace`` where ``posify`` calls
    ``subs`` (which walks the tree once per symbol, sorted): a symbol-for-symbol replacement
    rebuilds the same nodes either way, and on the 725 texts of ``bench/eed.py``'s pairs and the
    2,455 PHYBench solution steps, in both modes, the simplified trees were identical
    (``tests/grading/test_eed_posify.py`` keeps a sample) but for one integral, whose simplified
    form varies from call to call with ``subs`` too (EED does not score ``\\int``). The two
    passes cost 0.77 s of the 5.4 s that 100 bench texts spend simplifying. An expression that
    binds a variable (an integral, sum, derivative...) takes ``posify`` and ``subs`` as before:
    ``subs`` leaves a bound variable alone, ``xreplace`` would not.
    """
    import sympy

    if expr.has(sympy.Integral, sympy.Sum, sympy.Product, sympy.Derivative, sympy.Subs, sympy.Lambda, sympy.Limit):
        positive, back = sympy.posify(expr)
        return positive, lambda e: e.subs(back)
    dummies = {s: sympy.Dummy(s.name, positive=True, **s.assumptions0)
               for s in expr.free_symbols if s.is_positive is None}
    symbols = {dummy: symbol for symbol, dummy in dummies.items()}
    return expr.xreplace(dummies), lambda e: e.xreplace(symbols)


def simplify_budgeted(expr: Any, budget: TreeBudget | None = DEFAULT_BUDGET) -> tuple[Any, str]:
    """``simplify`` under positive assumptions, as the pipeline does, when within ``budget``.

    Returns the expression and ``""``, or, over ``budget``, the expression simplified by parts
    (:func:`physeval.grading.eed_partial.simplify_by_parts`) and which budget ran out.
    ``budget=None`` (:data:`UNBOUNDED`) always simplifies.
    """
    import sympy

    over = ""
    try:
        if budget is not None:
            over = budget.exceeded(expr)
        positive, restore = _posify(expr)
        if over:
            from physeval.grading.eed_partial import simplify_by_parts

            return restore(simplify_by_parts(positive, budget)), over  # type: ignore[arg-type]
        if budget is None:
            return restore(sympy.simplify(positive)), ""
        simplified, held = budget.simplify(positive)
        return restore(simplified), held
    except Exception as exc:  # SymPy raising on an odd expression: keep it unsimplified
        return expr, f"{over}; " * bool(over) + f"simplify failed: {type(exc).__name__}"
