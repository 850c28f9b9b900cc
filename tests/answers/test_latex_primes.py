"""A prime is part of a symbol's name in the default mode: ``v'`` is not ``v``.

latex2sympy2 deletes every ``'`` before it parses, so the PHYBench pipeline (and
``compat="phybench"``, which keeps its reading) calls ``\\frac{m v'}{M}`` equal to
``\\frac{m v}{M}``: a false accept of the commonest notation in collision and frame problems.
"""

from __future__ import annotations

import pytest
import sympy

from physeval.answers.latex import latex_to_sympy
from physeval.answers.latex_normalize import normalize_latex
from physeval.grading.eed import eed


@pytest.mark.parametrize(("text", "written"), [
    ("v'", r"\mathrm{v\prime}"),
    ("y''", r"\mathrm{y\prime\prime}"),
    (r"\omega'_1", r"\mathrm{omega\prime}_1"),
    (r"\gamma'_1", r"\bar{gamma\prime}_1"),  # \gamma is \bar{gamma} in the normal form
    (r"E'_{k}", r"\bar{E\prime}_{k}"),  # E'_k and E_k' alike: E_ is \bar{E}_ in the normal form
    ("E_k'", r"\bar{E\prime}_k"),
    (r"\vec{v}_1'", r"\vec{v\prime}_1"),
    (r"\ell'", r"\mathrm{ell\prime}"),
    ("m v '", r"m \mathrm{v\prime}"),
    ("x^{'}", r"\mathrm{x\prime}"),
    ("v_1'", r"\mathrm{v\prime}_1"),  # v_1' and v'_1 are one symbol
    ("v_{1}'", r"\mathrm{v\prime}_{1}"),
    (r"x^{\prime}", r"\mathrm{x\prime}"),
    (r"x^{\prime\prime}", r"\mathrm{x\prime\prime}"),
    (r"\vec{v}'", r"\vec{v\prime}"),
    (r"\frac{a'}{b}", r"\frac{\mathrm{a\prime}}{b}"),
    ("v", "v"),
])
def test_a_primed_letter_is_written_as_one_name(text: str, written: str) -> None:
    assert normalize_latex(text) == written


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
    # an outside review's false accepts of the first version: a prime after a letter of a product,
    # after a subscript, on a Greek letter the normal form rewrites, on \ell and \hbar, spaced
    (r"\frac{1}{2}mv'^2", r"\frac12 m v^2", False),
    (r"\gamma_1' m c^2", r"\gamma_1 m c^2", False),
    (r"\frac{\ell'}{\ell}", "1", False),
    (r"\vec{v}_1'", r"\vec{v}_1", False),
    (r"I_1' R", r"I_1 R", False),
    (r"E_{k}^{\prime}", r"E_k", False),
    (r"\Gamma_{0}'", r"\Gamma_0", False),
    ("v '", "v", False),
    (r"\gamma'_1", r"\gamma_1'", True),
    (r"E'_{k}", r"E_k'", True),
    (r"\vec{v}'_1", r"\vec{v}_1'", True),
    ("x'", "x^{'}", True),
    (r"m_1 v_1' + m_2 v_2'", r"m_1 v'_1 + m_2 v'_2", True),
    (r"(x+ct)'", r"x+ct", False),  # a prime after a bracket is a mark of its own
    (r"\sin(\theta)'", r"\sin\theta", False),
    (r"\vec{v'}", r"\vec{v}", False),
    (r"\bar{v'}", r"\bar{v}'", True),
    ("v^{'}", "v'", True),
    # a third outside review: a prime with a power in one group, a prime after |...|, a subscript
    # holding a command
    (r"v^{\prime 2}", r"(v^2)'", False),  # (v')^2 is not (v^2)'
    (r"v^{'2}", "v^2", False),
    (r"v'^2", r"v^{\prime 2}", True),
    (r"v'^2", "v^{'2}", True),
    ("|x|'", "|x|", False),
    (r"v_\perp'", r"v_{\perp}'", True),
    (r"v_{\perp}'", r"v'_{\perp}", True),
    (r"v_{\perp}'", r"v_{\perp}", False),
]


@pytest.mark.parametrize(("reference", "answer", "equivalent"), PAIRS)
def test_a_dropped_prime_is_a_wrong_answer(reference: str, answer: str, equivalent: bool) -> None:
    result = eed(reference, answer)
    assert (result.score == 100) is equivalent, result
