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
from fractions import Fraction
from functools import lru_cache
from math import gcd, isfinite
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
    if isinstance(expr, (sympy.Function, sympy.Max, sympy.Min)):  # Max and Min: a function of their arguments
        return f"function_{expr.func.__name__}"
    raise _UnsupportedNode(f"unsupported SymPy node {type(expr).__name__}: {expr}")


def _is_inner(expr: Any) -> bool:
    import sympy

    return isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function, sympy.Max, sympy.Min))


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
    return _Tree(tuple(labels), tuple(lmd), _keyroots(lmd), tuple(sizes), tuple(parents))


def _keyroots(lmd: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The keyroots of a postorder tree: for each leftmost leaf, the highest node that has it."""
    keyroot_of: dict[int, int] = {}
    for i, leftmost in enumerate(lmd):
        keyroot_of[leftmost] = i
    return tuple(sorted(keyroot_of.values()))


def subtree_cost(size: int, scoring: EEDScoring = PUBLISHED) -> float:
    """Cost of inserting or deleting a whole subtree of ``size`` nodes: min(s, 0.6 (s - 5) + 5)."""
    if size <= 1:
        return 1.0
    if not scoring.subtree_discount:
        return float(size)
    return min(float(size), scoring.discount_slope * (size - scoring.bar_size) + scoring.bar_size)


def _distance(a: _Tree, b: _Tree, scoring: EEDScoring = PUBLISHED) -> float:
    """Extended Zhang-Shasha distance (single-node and whole-subtree insert/delete).

    Computed exactly, in integer units of the scoring constants where they are short decimals
    (the published ones are: a node costs 5 fifths, a subtree of s nodes ``min(5 s, 3 s + 10)``),
    on the trees or on both mirrored, whichever needs fewer cells: an ordered edit distance is the
    same when both trees' children are reversed, and exact sums make the two orders agree to the
    last bit. Zhang-Shasha's cost depends on the orientation: SymPy puts numbers and symbols
    first, so the left paths are often the short ones and the right-path DP the cheaper (2.6 times
    fewer cells on PHYBench's largest reference). Other constants keep the float DP on the trees
    as given.
    """
    units = _cost_units(scoring)
    if units is None:
        return float(_forest_dp(a, b, [subtree_cost(s, scoring) for s in a.sizes],
                                [subtree_cost(s, scoring) for s in b.sizes], 1.0))
    if a.size * b.size >= _MIRROR_FROM:
        ma, mb = _mirrored(a), _mirrored(b)
        if _work(ma) * _work(mb) < _work(a) * _work(b):
            a, b = ma, mb
    q, per_node, fixed, discount = units
    dels = [_subtree_units(size, q, per_node, fixed, discount) for size in a.sizes]
    inss = [_subtree_units(size, q, per_node, fixed, discount) for size in b.sizes]
    return _forest_dp(a, b, dels, inss, q) / q


_MIRROR_FROM = 400
"""Trees whose sizes multiply to less than this take a few hundred cells: not worth mirroring."""


@lru_cache(maxsize=64)
def _cost_units(scoring: EEDScoring) -> tuple[int, int, int, bool] | None:
    """``(q, a, b, discount)``: every cost in units of ``1/q`` is an integer, a subtree of s nodes
    costing ``min(q s, a s + b)`` (with ``discount``); ``None`` keeps the float DP on the trees as
    given.

    ``None`` when the slope or the bar size is not a short decimal (their shortest ``repr``), and
    outside the constants where the DP is the definition in either orientation: a finite slope
    in [0, 1] and a bar size of at least 1, so that a whole subtree costs at least 1 and at most
    its nodes, concave in its size (the published 0.6 and 5, and PHYBench C.2's 0.4, 0.8 and no
    discount). A slope above 1 makes the discount convex, and the keyroot DP then gives
    different distances on a pair and on its mirror (``a(a)`` against ``a(a(b), b(b(b)))`` at
    1.2: 3.4 and 3.6); there the distance stays the one the trees as given give, as before.
    """
    if not scoring.subtree_discount:
        return 1, 1, 0, False
    slope_value, bar_value = float(scoring.discount_slope), float(scoring.bar_size)
    if not (isfinite(slope_value) and isfinite(bar_value) and 0.0 <= slope_value <= 1.0 and bar_value >= 1.0):
        return None
    slope, bar = Fraction(repr(slope_value)), Fraction(repr(bar_value))
    q = 1
    for part in (slope, bar, slope * bar):
        if part.denominator > 10_000:
            return None
        q = q * part.denominator // gcd(q, part.denominator)
    per_node, fixed = slope * q, (bar - slope * bar) * q
    return q, int(per_node), int(fixed), True


def _subtree_units(size: int, q: int, per_node: int, fixed: int, discount: bool) -> int:
    """:func:`subtree_cost` in units of ``1/q``, exactly."""
    if size <= 1:
        return q
    return min(q * size, per_node * size + fixed) if discount else q * size


def _work(tree: _Tree) -> int:
    """Zhang-Shasha's cost factor of one tree: the sizes of its keyroots' forests, summed."""
    lmd = tree.lmd
    return sum(x - lmd[x] + 1 for x in tree.keyroots)


def _mirrored(tree: _Tree) -> _Tree:
    """``tree`` with every node's children in reverse order, in its own postorder."""
    children: list[list[int]] = [[] for _ in tree.labels]
    root = len(tree.labels) - 1
    for node, parent in enumerate(tree.parents):
        if parent >= 0:
            children[parent].append(node)
    order: list[int] = []
    stack = [root]
    while stack:  # a preorder taking children left to right, reversed, is the mirror's postorder
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children[node]))
    order.reverse()
    index = {node: i for i, node in enumerate(order)}
    sizes = tuple(tree.sizes[node] for node in order)
    lmd = tuple(i + 1 - size for i, size in enumerate(sizes))
    parents = tuple(index[tree.parents[node]] if tree.parents[node] >= 0 else -1 for node in order)
    return _Tree(tuple(tree.labels[node] for node in order), lmd, _keyroots(lmd), sizes, parents)


def _forest_dp(a: _Tree, b: _Tree, dels: list[Any], inss: list[Any], one: Any) -> Any:
    """Zhang-Shasha's keyroot DP with whole-subtree deletes (``dels``) and inserts (``inss``); a
    node costs ``one``. Each keyroot of ``b`` has its columns' constants built once (with the
    whole-tree flag off for rows off a subtree's leftmost path, so one loop serves every row)."""
    codes: dict[str, int] = {}
    alab = [codes.setdefault(x, len(codes)) for x in a.labels]
    blab = [codes.setdefault(x, len(codes)) for x in b.labels]
    al, bl = a.lmd, b.lmd
    zero = one - one
    treedists = [[zero] * b.size for _ in range(a.size)]
    columns = []
    for y in b.keyroots:
        by = bl[y]
        cols = [(jj, bl[j] - by, inss[j], bl[j] == by, blab[j], j) for jj, j in enumerate(range(by, y + 1), start=1)]
        first = [zero] * (len(cols) + 1)
        for jj, p, ins, _whole, _label, _j in cols:
            first[jj] = first[p] + ins
        # rows inside a subtree (not on its leftmost path) treat no column as a whole tree
        inner = [(jj, p, ins, False, label, j) for jj, p, ins, _whole, label, j in cols]
        columns.append((cols, inner, first))
    for x in a.keyroots:
        ax = al[x]
        for cols, inner, first in columns:
            fd = [first]
            for i in range(ax, x + 1):
                prev = fd[-1]
                left = fd[al[i] - ax]
                dcost = dels[i]
                cost = left[0] + dcost
                row = [cost]
                append = row.append
                td = treedists[i]
                lab = alab[i]
                for jj, p, ins, whole, label, j in cols if al[i] == ax else inner:
                    c = prev[jj] + one
                    t = cost + one
                    if t < c:
                        c = t
                    t = left[jj] + dcost
                    if t < c:
                        c = t
                    t = row[p] + ins
                    if t < c:
                        c = t
                    if whole:  # both subtrees whole trees: match their roots, record the tree distance
                        t = prev[jj - 1] if lab == label else prev[jj - 1] + one
                        if t < c:
                            c = t
                        td[j] = c
                    else:
                        t = left[p] + td[j]
                        if t < c:
                            c = t
                    append(c)
                    cost = c
                fd.append(row)
    return treedists[-1][-1]


def tree_distance(reference: Any, answer: Any) -> float:
    """The EED tree edit distance between two SymPy expressions (as given, not simplified)."""
    return _distance(_build_tree(answer), _build_tree(reference))

