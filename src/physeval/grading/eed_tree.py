"""EED's trees and their edit distance: the published labels, costs and extended Zhang-Shasha.

Trees are built from SymPy expressions: ``number_<value>`` for Integer, Float, Rational, pi,
E, oo, -oo and I; ``symbol_<name>``; ``operator_Add``/``operator_Mul``/``operator_Pow`` with
SymPy's canonical argument order; ``function_<name>``. Inserting, deleting and relabelling a
node costs 1 (relabelling to an equal label 0); inserting or deleting a whole subtree of ``s``
nodes costs ``min(s, 0.6 (s - 5) + 5)`` (:class:`EEDScoring` holds the constants). Everything
here is iterative, so a deep expression never reaches the recursion limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["EEDScoring", "PUBLISHED", "expression_tree", "tree_distance", "subtree_cost"]

_INITIAL_SCORE = 60.0
_SCORING_SLOPE = 100.0
_BAR_SIZE = 5.0
_DISCOUNT_SLOPE = 0.6


@dataclass(frozen=True)
class EEDScoring:
    """The constants of EED's scoring, for checking the metric's robustness (PHYBench C.2).

    The defaults are the published ones: score = max(0, ``initial_score`` - ``scoring_slope`` d /
    size) for a wrong answer, and a whole subtree of s nodes costs min(s, ``discount_slope`` (s -
    ``bar_size``) + ``bar_size``) to insert or delete; ``subtree_discount=False`` makes it s (every
    node paid for).
    """

    initial_score: float = _INITIAL_SCORE
    scoring_slope: float = _SCORING_SLOPE
    bar_size: float = _BAR_SIZE
    discount_slope: float = _DISCOUNT_SLOPE
    subtree_discount: bool = True


PUBLISHED = EEDScoring()
"""The published EED scoring (what :func:`eed` uses unless told otherwise)."""




# --------------------------------------------------------------------------------------
# Trees
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tree:
    """A tree in postorder: labels, leftmost-leaf descendants, keyroots, subtree sizes, parents."""

    labels: tuple[str, ...]
    lmd: tuple[int, ...]
    keyroots: tuple[int, ...]
    sizes: tuple[int, ...]
    parents: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.labels)


class _UnsupportedNode(ValueError):
    pass


def _label(expr: Any) -> str:
    import sympy

    if isinstance(expr, (sympy.Integer, sympy.Float, sympy.Rational)) or expr in (
        sympy.pi,
        sympy.E,
        sympy.oo,
        -sympy.oo,
        sympy.I,
    ):
        return f"number_{expr}"
    if isinstance(expr, sympy.Symbol):
        return f"symbol_{expr}"
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow)):
        return f"operator_{type(expr).__name__}"
    if isinstance(expr, sympy.Function):
        return f"function_{expr.func.__name__}"
    raise _UnsupportedNode(f"unsupported SymPy node {type(expr).__name__}: {expr}")


def _is_inner(expr: Any) -> bool:
    import sympy

    return isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function))


def expression_tree(expr: Any) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The postorder labels and parent indices (-1 for the root) of ``expr``'s EED tree.

    Raises ``ValueError`` for a node type the published tree does not define (e.g. ``zoo``).
    """
    tree = _build_tree(expr)
    return tree.labels, tree.parents


def _build_tree(expr: Any) -> _Tree:
    """Postorder enumeration, iteratively (deep expressions must not hit the recursion limit)."""
    labels: list[str] = []
    lmd: list[int] = []
    sizes: list[int] = []
    parents: list[int] = []
    # frames: [expr, label, next child, first postorder index, children's postorder indices]
    stack: list[list[Any]] = [[expr, _label(expr), 0, 0, []]]
    while stack:
        frame = stack[-1]
        node = frame[0]
        args = node.args if _is_inner(node) else ()
        if frame[2] == 0:
            frame[3] = len(labels)
        if frame[2] < len(args):
            child = args[frame[2]]
            frame[2] += 1
            stack.append([child, _label(child), 0, 0, []])
            continue
        stack.pop()
        index = len(labels)
        for c in frame[4]:
            parents[c] = index
        labels.append(frame[1])
        lmd.append(frame[3])
        sizes.append(index + 1 - frame[3])
        parents.append(-1)
        if stack:
            stack[-1][4].append(index)
    keyroot_of: dict[int, int] = {}
    for i, leftmost in enumerate(lmd):
        keyroot_of[leftmost] = i  # the highest node with this leftmost leaf
    return _Tree(tuple(labels), tuple(lmd), tuple(sorted(keyroot_of.values())), tuple(sizes), tuple(parents))


def subtree_cost(size: int, scoring: EEDScoring = PUBLISHED) -> float:
    """Cost of inserting or deleting a whole subtree of ``size`` nodes: min(s, 0.6 (s - 5) + 5)."""
    if size <= 1:
        return 1.0
    if not scoring.subtree_discount:
        return float(size)
    return min(float(size), scoring.discount_slope * (size - scoring.bar_size) + scoring.bar_size)


def _distance(a: _Tree, b: _Tree, scoring: EEDScoring = PUBLISHED) -> float:
    """Extended Zhang-Shasha distance (single-node and whole-subtree insert/delete)."""
    codes: dict[str, int] = {}
    alab = [codes.setdefault(x, len(codes)) for x in a.labels]
    blab = [codes.setdefault(x, len(codes)) for x in b.labels]
    al, bl = a.lmd, b.lmd
    adel = [subtree_cost(s, scoring) for s in a.sizes]
    bins = [subtree_cost(s, scoring) for s in b.sizes]
    treedists = [[0.0] * b.size for _ in range(a.size)]
    for x in a.keyroots:
        ax = al[x]
        rows = x - ax + 2
        for y in b.keyroots:
            by = bl[y]
            cols = y - by + 2
            fd = [[0.0] * cols for _ in range(rows)]
            first = fd[0]
            for j in range(by, y + 1):
                first[j - by + 1] = first[bl[j] - by] + bins[j]
            for i in range(ax, x + 1):
                ii = i - ax + 1
                ali = al[i]
                prev = fd[ii - 1]
                row = fd[ii]
                left = fd[ali - ax]
                row[0] = left[0] + adel[i]
                dcost = adel[i]
                lab = alab[i]
                is_tree_i = ali == ax
                td = treedists[i]
                for j in range(by, y + 1):
                    jj = j - by + 1
                    blj = bl[j]
                    cost = prev[jj] + 1.0
                    t = row[jj - 1] + 1.0
                    if t < cost:
                        cost = t
                    t = left[jj] + dcost
                    if t < cost:
                        cost = t
                    t = row[blj - by] + bins[j]
                    if t < cost:
                        cost = t
                    if is_tree_i and blj == by:
                        t = prev[jj - 1] + (0.0 if lab == blab[j] else 1.0)
                        if t < cost:
                            cost = t
                        td[j] = cost
                    else:
                        t = left[blj - by] + td[j]
                        if t < cost:
                            cost = t
                    row[jj] = cost
    return treedists[-1][-1]


def tree_distance(reference: Any, answer: Any) -> float:
    """The EED tree edit distance between two SymPy expressions (as given, not simplified)."""
    return _distance(_build_tree(answer), _build_tree(reference))

