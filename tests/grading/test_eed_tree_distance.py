"""EED's tree distance is the published definition, whichever way the DP runs.

The distance is computed by Zhang-Shasha's keyroot DP, exactly (integer units of the scoring
constants) and on the trees or on both mirrored, whichever needs fewer cells. Each of those
choices is held here to the definition written out directly: the recursive forest distance
(delete or insert the rightmost root, delete or insert the rightmost whole tree at its discounted
cost, or match the two rightmost trees), in exact fractions, memoised, on small generated trees.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physeval.grading.eed_tree import PUBLISHED, EEDScoring, _distance, _mirrored, _Tree, _work

Node = tuple[str, tuple["Node", ...]]

_NODES: st.SearchStrategy[Node] = st.recursive(
    st.tuples(st.sampled_from("abc"), st.just(())),
    lambda children: st.tuples(st.sampled_from("abc"), st.lists(children, min_size=1, max_size=3).map(tuple)),
    max_leaves=7,
)


def _tree(root: Node) -> _Tree:
    """The postorder :class:`_Tree` of a nested ``(label, children)`` node."""
    labels: list[str] = []
    sizes: list[int] = []
    parents: list[int] = []

    def visit(node: Node) -> int:
        kids = [visit(child) for child in node[1]]
        index = len(labels)
        labels.append(node[0])
        sizes.append(1 + sum(sizes[k] for k in kids))
        parents.append(-1)
        for k in kids:
            parents[k] = index
        return index

    visit(root)
    lmd = tuple(i + 1 - size for i, size in enumerate(sizes))
    keyroots = tuple(sorted({leftmost: i for i, leftmost in enumerate(lmd)}.values()))
    return _Tree(tuple(labels), lmd, keyroots, tuple(sizes), tuple(parents))


def _size(node: Node) -> int:
    return 1 + sum(_size(child) for child in node[1])


def _whole(size: int, scoring: EEDScoring) -> Fraction:
    """A whole subtree's cost: min(s, slope (s - bar) + bar), the constants read as the decimals they print as."""
    if size <= 1 or not scoring.subtree_discount:
        return Fraction(size)
    slope, bar = Fraction(repr(scoring.discount_slope)), Fraction(repr(scoring.bar_size))
    return min(Fraction(size), slope * (size - bar) + bar)


def _by_definition(a: Node, b: Node, scoring: EEDScoring = PUBLISHED) -> Fraction:
    """The extended tree edit distance, by its recursive definition over forests."""

    @cache
    def forest(f: tuple[Node, ...], g: tuple[Node, ...]) -> Fraction:
        if not f and not g:
            return Fraction(0)
        options = []
        if f:
            v = f[-1]
            options.append(forest(f[:-1] + v[1], g) + 1)  # delete the rightmost root
            options.append(forest(f[:-1], g) + _whole(_size(v), scoring))  # delete its whole tree
        if g:
            w = g[-1]
            options.append(forest(f, g[:-1] + w[1]) + 1)
            options.append(forest(f, g[:-1]) + _whole(_size(w), scoring))
        if f and g:
            v, w = f[-1], g[-1]
            options.append(forest(f[:-1], g[:-1]) + forest(v[1], w[1]) + (v[0] != w[0]))
        return min(options)

    return forest((a,), (b,))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_NODES, _NODES)
def test_the_distance_is_the_definition_and_the_same_on_the_mirrored_trees(a: Node, b: Node) -> None:
    exact = _by_definition(a, b)
    assert _distance(_tree(a), _tree(b)) == float(exact)
    assert _distance(_mirrored(_tree(a)), _mirrored(_tree(b))) == float(exact)


@pytest.mark.parametrize("scoring", [EEDScoring(discount_slope=0.55, bar_size=4.0), EEDScoring(subtree_discount=False),
                                     EEDScoring(discount_slope=0.1 * 3, bar_size=1 / 3)], ids=str)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(a=_NODES, b=_NODES)
def test_other_scoring_constants_follow_the_definition_too(scoring: EEDScoring, a: Node, b: Node) -> None:
    exact = _by_definition(a, b, scoring)
    assert _distance(_tree(a), _tree(b), scoring) == pytest.approx(float(exact), abs=1e-9)


def test_the_mirror_of_the_mirror_is_the_tree() -> None:
    tree = _tree(("+", (("x", ()), ("*", (("2", ()), ("y", ()), ("^", (("z", ()), ("3", ()))))), ("f", (("w", ()),)))))
    assert _mirrored(tree).labels == ("w", "f", "3", "z", "^", "y", "2", "*", "x", "+")
    assert _mirrored(_mirrored(tree)) == tree


def test_a_sympy_sum_is_cheaper_mirrored() -> None:
    """SymPy writes numbers and symbols first: the right-path decomposition of a typical answer has
    fewer cells, which is why the DP may run on the mirrored trees."""
    import sympy

    from physeval.grading.eed_tree import _build_tree

    x, y, z = sympy.symbols("x y z")
    tree = _build_tree(3 * x + 2 * y**2 * sympy.sin(x + z) / (1 + x**2 * y) + sympy.exp(-z * y))
    assert _work(_mirrored(tree)) < _work(tree)


_LARGER: st.SearchStrategy[Node] = st.recursive(
    st.tuples(st.sampled_from("abc"), st.just(())),
    lambda children: st.tuples(st.sampled_from("abc"), st.lists(children, min_size=1, max_size=4).map(tuple)),
    max_leaves=16,
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_LARGER, _LARGER)
def test_trees_large_enough_to_choose_an_orientation_keep_the_definition(a: Node, b: Node) -> None:
    assert _distance(_tree(a), _tree(b)) == float(_by_definition(a, b))


def test_a_convex_discount_keeps_the_trees_as_given() -> None:
    """A slope above 1 makes the keyroot DP depend on the orientation (3.4 on these trees, 3.6 on
    their mirrors): such constants are never mirrored, so a pair keeps the distance it had."""
    a, b = ("a", (("a", ()),)), ("a", (("a", (("b", ()),)), ("b", (("b", (("b", ()),)),))))
    convex = EEDScoring(discount_slope=1.2)
    assert _distance(_tree(a), _tree(b), convex) == pytest.approx(3.4)
    assert _distance(_mirrored(_tree(a)), _mirrored(_tree(b)), convex) == pytest.approx(3.6)
    from physeval.grading.eed import eed

    reference = r"P_0 \frac{(1+\alpha)(5+10\alpha+2\alpha \frac{\lambda}{R T_0})}{5+8\alpha}"
    assert eed(reference, reference + "+1", scoring=convex).distance == pytest.approx(11.6)  # 12.0 if mirrored


@pytest.mark.parametrize("scoring", [EEDScoring(bar_size=float("inf")), EEDScoring(bar_size=float("nan")),
                                     EEDScoring(discount_slope=float("nan"))], ids=str)
def test_constants_that_are_not_numbers_still_score(scoring: EEDScoring) -> None:
    """min(s, nan) is s: a constant that is not a finite number means no discount, not an error."""
    from physeval.grading.eed import eed

    reference = r"P_0 \frac{(1+\alpha)(5+10\alpha+2\alpha \frac{\lambda}{R T_0})}{5+8\alpha}"
    result = eed(reference, reference + "+1", scoring=scoring)
    assert (result.outcome, result.distance) == ("wrong", 12.0)
