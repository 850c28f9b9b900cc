"""The probe's normal form of LaTeX math: one spelling per symbol, so an edit is found in an answer
however the answer spells it."""

from __future__ import annotations

import pytest

from physeval.probes.normal_form import find, in_name, normal_tokens, render


@pytest.mark.parametrize(("one", "other"), [
    (r"z_{0}^{2}", r"z_0^2"),
    (r"\varepsilon_{0}", r"\epsilon_0"),
    (r"\dfrac{a}{b}", r"\frac{a}{b}"),
    (r"\left( a + b \right)", r"(a+b)"),
    (r"\hslash \, \omega", r"\hbar\omega"),
    (r"k_{B} T", r"k_B T"),
])
def test_two_spellings_have_one_normal_form(one: str, other: str) -> None:
    assert normal_tokens(one) == normal_tokens(other)


def test_scripts_of_more_than_one_token_keep_their_braces() -> None:
    assert render(normal_tokens(r"x^{10} y_{\mathrm{B}}")) == r"x^{10}y_{\mathrm{B}}"
    assert render(normal_tokens(r"a^{-3/2}")) == r"a^{-3/2}"


def test_rendering_keeps_symbols_apart() -> None:
    assert render(normal_tokens(r"N e q_0")) == r"N e q_0"  # not the three-letter name "Neq"
    assert render(normal_tokens(r"\pi R^2")) == r"\pi R^2"
    assert render(normal_tokens(r"2 \cdot 3")) == r"2\cdot3"  # a command ends before a digit


def test_find_and_names() -> None:
    tokens = normal_tokens(r"x_{r} + r^2 e^{k r_0^2} + \text{r}")
    assert find(tokens, normal_tokens("r^2")) == 4
    hidden = in_name(tokens)
    assert hidden[2] is True  # the r of x_r names x
    assert hidden[4] is False  # r^2 is a symbol
    assert hidden[tokens.index("k")] is False  # an exponent holds mathematics
    assert hidden[len(tokens) - 2] is True  # \text{r}
