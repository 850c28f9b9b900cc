"""The held counts of EED's budget: trigonometric and hyperbolic functions held whole.

SymPy's ``trigsimp`` can run for minutes on a ten-operation answer: a function of a sum with
large integer multiples (``sin(9a + 24b + 16c)/2``) or a handful of trigonometric functions over
sums of letters. Two counts, both made of the expression alone (never a clock), find those sides;
they are then simplified with every such function held as one symbol, which keeps the score of
a near miss where the full simplification puts it.
"""

from __future__ import annotations

import pytest

from physeval.answers.latex import latex_to_sympy
from physeval.grading.eed import DEFAULT_BUDGET, UNBOUNDED, eed
from physeval.grading.eed_budget import _trig_multiples


@pytest.mark.parametrize(
    ("latex", "multiples"),
    [
        (r"\frac{\sin(a+b+c)}{2}", 2),  # three terms, coefficients 1
        (r"\frac{\sin(9a+24b+16c)}{2}", 48),  # (3 - 1) x 24
        (r"\frac{\sin(16x+y)}{1+\cos^2 z}", 16),
        (r"\frac{\sin(\frac{(3y-4)^2}{M})}{2}", 48),  # expanded: 9y^2/M - 24y/M + 16/M
        (r"\sin(\omega t + \phi)", 1),
        (r"\sin\theta \cos\theta", 0),  # no sums under the functions
        (r"\cosh(2a - 3b)", 3),  # hyperbolic functions count alike
    ],
)
def test_multiple_angles_are_counted_on_the_expanded_arguments(latex: str, multiples: int) -> None:
    assert _trig_multiples(latex_to_sympy(latex).expr, cap=400)[0] == multiples


def test_a_function_of_a_sum_with_large_multiples_is_held_whole() -> None:
    # unbounded, simplify ran for minutes on the reference (trigsimp expands sin of the sum, then sin(24b))
    result = eed(r"\frac{\sin(9a+24b+16c)}{2}", r"\frac{\sin(9a+24b+16c)}{3}")
    assert result.outcome == "wrong" and result.equivalent is False
    assert result.budget.startswith("reference trigonometric-function budget: multiple angles under trigonometric "
                                    "functions 48 > 20 (held whole)")
    assert "trigonometric or hyperbolic functions held whole" in result.reason
    assert result.score > 50  # one changed coefficient: most of the partial credit


_MULTIPLE = r"\sin\left(\frac{\pi(3y^2-4)^2}{M}\right)"  # expanded: 9 pi y^4/M - 24 pi y^2/M + 16 pi/M


def test_a_held_function_scores_as_unbounded() -> None:
    near_miss = r"\sin\left(\frac{\pi(3y^2-5)^2}{M}\right)"  # both sides within a second unbounded
    bounded, unbounded = eed(_MULTIPLE, near_miss), eed(_MULTIPLE, near_miss, budget=UNBOUNDED)
    assert "trigonometric-function budget" in bounded.budget and unbounded.budget == ""
    assert (bounded.distance, bounded.size, bounded.outcome) == (unbounded.distance, unbounded.size, "wrong")
    # unbounded, these took 31 s each (simplify of the sum and of the double); the scores are those
    assert round(eed(_MULTIPLE, _MULTIPLE + " + 1").score, 2) == 46.67
    assert round(eed(_MULTIPLE, "2" + _MULTIPLE).score, 2) == 46.67


def test_only_the_functions_of_sums_that_count_are_held() -> None:
    expr = latex_to_sympy(r"\frac{\sin(9a+24b+16c)}{1 + \cos^2 z} + \tan z").expr
    why, held = DEFAULT_BUDGET.held_functions(expr)
    assert why.startswith("trigonometric-function budget: multiple angles") and [str(f) for f in held] == [
        "sin(9*a + 24*b + 16*c)"]


def test_a_held_functions_argument_is_simplified_by_the_same_rules() -> None:
    # the outer sine's argument holds another function of a sum with large multiples
    nested = r"\frac{\sin(9a + 24\sin(9b+24c+16d) + 16e)}{2}"
    result = eed(nested, nested.replace("16e", "15e"))
    assert result.outcome == "wrong" and "multiple angles under trigonometric functions 96 > 20" in result.budget


def test_the_compat_mode_leaves_the_multiple_angles_out() -> None:
    # the pipeline simplifies such a side in full (64 s here), and its equivalence test runs on the result
    expr = latex_to_sympy(_MULTIPLE).expr
    assert DEFAULT_BUDGET.held_functions(expr)[0]
    assert DEFAULT_BUDGET.pipeline().held_functions(expr) == ("", set())


def test_equivalent_answers_stay_correct_whatever_is_held() -> None:
    reference = r"\frac{\sin(9a+24b+16c)}{2}"
    assert eed(reference, r"\frac{1}{2}\sin(16c+24b+9a)").outcome == "correct"
    assert eed(reference, r"0.5\sin(9a+24b+16c)").outcome == "correct"


def test_the_symbolic_check_skips_simplify_over_the_multiple_angles_and_still_proves_equality() -> None:
    # an outside review: simplify spent 85 s on this difference before the exponential form proved it 0
    import sympy

    from physeval.grading.equivalence import _symbolic_zero

    product, sum_form = r"\sin(14x+23y)\cos(8x+16y)", r"\frac{1}{2}\left(\sin(22x+39y)+\sin(6x+7y)\right)"
    difference = latex_to_sympy(product).expr - latex_to_sympy(sum_form).expr
    proven, why = _symbolic_zero(sympy.expand(difference))
    assert proven is None and why.startswith("symbolic check skipped: multiple angles under trigonometric functions")
    result = eed(product, sum_form)
    assert result.outcome == "correct" and "exponential form of the trigonometric functions" in result.reason
