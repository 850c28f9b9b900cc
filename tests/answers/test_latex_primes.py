"""A prime is part of a symbol's name in the default mode: ``v'`` is not ``v``.

latex2sympy2 deletes every ``'`` before it parses, so the PHYBench pipeline (and
``compat="phybench"``, which keeps its reading) calls ``\\frac{m v'}{M}`` equal to
``\\frac{m v}{M}``: a false accept of the commonest notation in collision and frame problems.
"""

from __future__ import annotations

import pytest
import sympy

from physeval.answers.latex import latex_to_sympy
from physeval.answers.latex_primes import primes_as_names
from physeval.grading.eed import eed


@pytest.mark.parametrize(("text", "written"), [
    ("v'", r"\mathrm{v\prime}"),
    ("y''", r"\mathrm{y\prime\prime}"),
    (r"\omega'_1", r"\mathrm{\omega\prime}_1"),
    ("v_1'", r"\mathrm{v\prime}_1"),  # v_1' and v'_1 are one symbol
    ("v_{1}'", r"\mathrm{v\prime}_{1}"),
    (r"x^{\prime}", r"\mathrm{x\prime}"),
    (r"x^{\prime\prime}", r"\mathrm{x\prime\prime}"),
    (r"\vec{v}'", r"\vec{v\prime}"),
    (r"\frac{a'}{b}", r"\frac{\mathrm{a\prime}}{b}"),
    ("v", "v"),
])
def test_a_primed_letter_is_written_as_one_name(text: str, written: str) -> None:
    assert primes_as_names(text) == written


def test_the_primed_symbol_is_not_the_unprimed_one() -> None:
    primed, plain = latex_to_sympy("v'").expr, latex_to_sympy("v").expr
    assert isinstance(primed, sympy.Symbol) and primed != plain
    assert latex_to_sympy("v'", compat="phybench").expr == plain  # the pipeline's reading


# (reference, answer, equivalent?)
PAIRS = [
    (r"\frac{m v'}{M}", r"\frac{m v}{M}", False),
    (r"2y(t)", r"y'(t)+y(t)", False),
    (r"\frac{m_1 v_1'}{m_2}", r"\frac{m_1 v'_1}{m_2}", True),
    (r"\frac{m v'}{M}", r"\frac{v' m}{M}", True),
    (r"\frac{m_1 v_1 - m_2 v_2'}{m_1}", r"\frac{m_1 v_1 - m_2 v_2}{m_1}", False),
    (r"\omega'^2", r"\omega'\omega'", True),
]


@pytest.mark.parametrize(("reference", "answer", "equivalent"), PAIRS)
def test_a_dropped_prime_is_a_wrong_answer(reference: str, answer: str, equivalent: bool) -> None:
    result = eed(reference, answer)
    assert (result.score == 100) is equivalent, result
