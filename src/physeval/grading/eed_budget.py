"""How much simplification one side's EED tree may cost: operation budgets, never seconds.

:class:`TreeBudget` measures a parsed expression before it is simplified (counts that are the
same on every machine, in every process and under any load); over a limit, that side's tree is
scored on its form simplified by parts (:mod:`physeval.grading.eed_partial`: every
subexpression within the budget simplified in full). :func:`simplify_budgeted` is the one entry point EED
uses for a side's simplified form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from physeval.answers.bounds import expanded_terms

__all__ = ["TreeBudget", "DEFAULT_BUDGET", "UNBOUNDED", "TREE_EXPAND_BUDGET", "TREE_SIMPLIFY_BUDGET",
           "HYPERBOLIC_BUDGET", "held_whole", "simplify_budgeted"]

# Expressions with more operations than this, or whose expansion would have more terms than
# TREE_EXPAND_BUDGET, are not simplified before building a tree; the pipeline's analogue is
# a 30 s wall-clock timeout that returns the unsimplified form.
TREE_SIMPLIFY_BUDGET = 250
TREE_EXPAND_BUDGET = 300
# The note of a side simplified with its hyperbolic functions held whole (``TreeBudget.simplify``):
# a complete simplification of a form equal to the side, not a partial one.
HYPERBOLIC_BUDGET = "hyperbolic budget"


def held_whole(note: str) -> bool:
    """Whether a side's budget ``note`` says it was simplified with its hyperbolic functions held
    whole (a complete simplification), not by parts."""
    return note.startswith(HYPERBOLIC_BUDGET)



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
        or, over the hyperbolic counts (:meth:`hyperbolic_exceeded`), its form simplified with every hyperbolic
        function held as one symbol (its argument simplified on its own) and that count in words.
        The held form is equal to ``positive``; it misses only hyperbolic identities."""
        import sympy
        from sympy.functions.elementary.hyperbolic import HyperbolicFunction

        over = self.hyperbolic_exceeded(positive)
        if over:
            hyperbolic = sorted(positive.atoms(HyperbolicFunction), key=sympy.default_sort_key)
            # a plain symbol: sinh(3a - b) may be negative, and sqrt(sinh(3a - b)**2) must not become it
            held = {f: sympy.Dummy(f"held{i}") for i, f in enumerate(hyperbolic)}
            back = {d: f.func(*(sympy.simplify(a) for a in f.args)) for f, d in held.items()}
            return sympy.simplify(positive.xreplace(held)).xreplace(back), f"{over} (held whole)"
        return sympy.simplify(positive), ""

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
