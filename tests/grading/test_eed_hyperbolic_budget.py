"""Hyperbolic functions in a large fraction are measured before ``simplify`` sees them (issue 34).

``trigsimp`` writes ``tanh x`` as ``-i tan(i x)`` and factors over the Gaussian rationals; on a
fraction with two ``tanh`` of degree 9 in 11 generators (the PHYBench pipeline's regression pair
698) that took 4.5 s a side for the trees and 22 s for the default mode's symbolic check of the
difference, none of which any budget count saw. Now the hyperbolic load (functions x degree x
generators of the ``together`` form) is one of the counts, measured by the trees, by the parts of a
side simplified by parts, and by both equivalence tests. Every assertion is on counts and reasons,
never on a clock: before the change each ``budget`` below was empty and the check's reason was
"simplification did not reduce the difference to 0".
"""

from __future__ import annotations

import pytest

from physeval.answers.latex import latex_to_sympy
from physeval.grading.eed import eed
from physeval.grading.eed_budget import DEFAULT_BUDGET, hyperbolic_budget

# A water-wave-like dispersion fraction: two tanh, one of them of a square root; f(0) is an
# unknown function's value, which leaves the numeric probe without a point to decide on.
REFERENCE = (r"\frac{(m+3 w c^2) f(0) + v}{(m+2 w c^2)^2 + (g + \frac{s}{r}c^2) c \tanh(c L)"
             r" - 2 w c^3 \frac{\sqrt{m + w c^2}\tanh(c L)}{\tanh(L \sqrt{\frac{m + w c^2}{w}})}}")
ANSWER = r"\frac{(m+2 w c^2) f(0) + v}{(m+2 w c^2)^2 + (g + \frac{s}{r}c^2) c \tanh(c L)}"


def test_the_hyperbolic_load_is_functions_times_degree_times_generators() -> None:
    reference = latex_to_sympy(REFERENCE).expr
    assert hyperbolic_budget(reference) == ("hyperbolic budget: 2 hyperbolic functions x degree 8 x 11 generators"
                                            " = 176 > 60")
    assert DEFAULT_BUDGET.exceeded(reference) == hyperbolic_budget(reference)
    assert hyperbolic_budget(latex_to_sympy(r"\frac{a}{b + \tanh(c)}").expr) == ""  # small: within
    assert hyperbolic_budget(latex_to_sympy(r"\frac{(a+b)^9 c d e f g h k}{m + n + p}").expr) == ""  # no hyperbolic


@pytest.mark.parametrize("compat", [None, "phybench"])
def test_a_side_over_the_hyperbolic_load_is_simplified_by_parts(compat: str | None) -> None:
    result = eed(REFERENCE, ANSWER, compat=compat)
    assert result.budget.startswith("reference hyperbolic budget: 2 hyperbolic functions x degree 8 x 11")
    assert "answer hyperbolic budget: 1 hyperbolic function x degree 7 x 9 generators = 63 > 60" in result.budget
    assert result.equivalent is not True and 0 < result.score < 60  # a near miss keeps partial credit


def test_the_default_symbolic_check_skips_a_difference_over_the_hyperbolic_load() -> None:
    result = eed(REFERENCE, ANSWER)
    assert result.outcome == "undecided"  # the probe has no point to decide on, nor has simplify
    assert "symbolic check skipped: hyperbolic budget: 2 hyperbolic functions x degree 15 x 11" in result.reason


def test_the_compat_equivalence_test_counts_the_expanded_difference() -> None:
    result = eed(REFERENCE, ANSWER, compat="phybench")
    assert result.equivalent is False
    assert "expanded difference: hyperbolic budget: 2 hyperbolic functions x degree 15 x 11" in result.reason


def test_an_equivalent_hyperbolic_answer_within_the_load_is_still_proven() -> None:
    result = eed(r"\frac{a}{1 + \tanh(b)}", r"\frac{a \cosh(b)}{\cosh(b) + \sinh(b)}")
    assert result.equivalent is True and result.score == 100
