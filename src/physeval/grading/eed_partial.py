"""The simplified form EED scores when a whole side is over its budget: ``simplify`` on the parts.

The published EED compares the trees of the fully simplified reference and answer. When a side
is over :class:`~physeval.grading.eed_budget.TreeBudget` (``simplify`` could run for minutes),
scoring its *raw* tree moves a near miss far from the definition: the side within budget is
simplified, the other is not, and a single changed coefficient costs as much as a rewritten
expression (a score of ~55 becomes 0-14). Here the side is simplified *by parts*, bottom up:

* a subexpression within the budget (with the tighter :data:`PART_LIMITS`) is simplified in
  full, exactly as an unbounded run would;
* a subexpression over it is rebuilt from its simplified arguments and measured again: its
  arguments are now simpler, so it is often within the budget and simplified in full after all;
* a subexpression still over it keeps the rebuilt form (its arguments simplified).

Every decision is a count of :meth:`TreeBudget.exceeded` (the same in every process and under
any load), never a clock; the work is bounded because ``simplify`` only ever runs on an
expression within the budget, on at most one such expression per node of the original tree
that is over the budget or a child of one.
"""

from __future__ import annotations

from typing import Any, Protocol, cast


class TreeBudget(Protocol):
    """What this module needs of :class:`physeval.grading.eed_budget.TreeBudget` (which calls it)."""

    def exceeded(self, expr: Any) -> str: ...

    def simplify(self, positive: Any) -> tuple[Any, str]: ...

__all__ = ["simplify_by_parts"]

# How many nodes over the budget are rebuilt at most; beyond it the rest is kept as it is.
MAX_REBUILT_NODES = 64

# The parts of an expression over the budget are measured by tighter limits than whole answers:
# the default limits were calibrated on whole texts (the degree counts up to 32 and 340), and a
# 17-degree rational subexpression of a radical-laden answer within them took 12 s. These are the
# limits the parts were measured by when no part of a PHYBench pair took over 2 s.
PART_LIMITS = {"max_function_load": 39, "max_degree": 13, "max_degree_generators": 119}


def simplify_by_parts(positive: Any, budget: TreeBudget) -> Any:
    """``positive`` (an expression whose symbols are positive, as :func:`sympy.posify` leaves
    them) with every maximal part within ``budget`` simplified, bottom up.

    The caller has found ``positive`` over ``budget``; the result is equal to it as a function.
    """
    import dataclasses

    rebuilt = [0]
    tighter = {name: min(getattr(budget, name), limit) for name, limit in PART_LIMITS.items()}
    parts: TreeBudget = dataclasses.replace(cast(Any, budget), **tighter)
    return _by_parts(positive, parts, rebuilt, top=True)


def _by_parts(expr: Any, budget: TreeBudget, rebuilt: list[int], top: bool = False) -> Any:
    import sympy

    if not expr.args or isinstance(expr, sympy.Number):
        return expr
    if not top and not budget.exceeded(expr):
        return budget.simplify(expr)[0]
    if rebuilt[0] >= MAX_REBUILT_NODES:
        return expr
    rebuilt[0] += 1
    args = [_by_parts(arg, budget, rebuilt) for arg in expr.args]
    if all(new is old for new, old in zip(args, expr.args)):
        return expr
    form = expr.func(*args)
    if form.args and not budget.exceeded(form):
        return budget.simplify(form)[0]
    return form
