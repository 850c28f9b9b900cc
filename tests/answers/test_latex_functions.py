"""Function names latex2sympy2 misreads are read as the functions they name, in the default mode.

latex2sympy2 (and with it the PHYBench pipeline, whose reading ``compat="phybench"`` keeps) lexes
``\\coth x`` as ``\\cot`` times ``h x``, cannot parse ``\\operatorname{erf}(x)`` and reads
``\\mathrm{sin}\\theta`` as the product of the letters ``s``, ``i``, ``n``. Each case below shows
both readings; the graders then find the equivalences those misreadings hid and still reject the
near misses.
"""

from __future__ import annotations

import pytest
import sympy

from physeval.answers.latex import latex_to_sympy
from physeval.answers.latex_functions import function_standins, roman_function_names
from physeval.grading.eed import eed

x, h, theta, D, R = sympy.symbols("x h theta D R")

# (text, physeval's reading, the pipeline's reading or None when the pipeline cannot parse it)
READINGS = [
    (r"\coth x", sympy.coth(x), sympy.cot(h * x)),
    (r"\operatorname{sech}(x)", sympy.sech(x), sympy.sec(sympy.Function("h")(x))),
    (r"\operatorname{csch}(x)", sympy.csch(x), None),
    (r"\coth^{-1}(x)", sympy.acoth(x), sympy.cot(1 / sympy.Function("h")(x))),
    (r"\operatorname{arcoth}(x)", sympy.acoth(x), None),
    (r"\coth^2 x + \cot x", sympy.coth(x) ** 2 + sympy.cot(x), sympy.cot(h**2 * x) + sympy.cot(x)),
    (r"\mathrm{sin}\theta", sympy.sin(theta), sympy.Symbol("i") * sympy.Symbol("n") * sympy.Symbol("s") * theta),
    (r"\text{tanh}(x)", sympy.tanh(x), None),
    (r"\mathrm{arccosh}(D/R)", sympy.acosh(D / R), None),
    (r"\operatorname{erf}(x)", sympy.erf(x), None),
    (r"\mathrm{erf}(x)", sympy.erf(x), sympy.E * sympy.Symbol("r") * sympy.Function("f")(x)),
    (r"\operatorname{erfc}\frac{x}{2}", sympy.erfc(x / 2), None),
    (r"\operatorname{erf}^{-1}(x)", sympy.erfinv(x), None),
]



@pytest.mark.parametrize(("text", "physeval", "pipeline"), READINGS, ids=[r[0] for r in READINGS])
def test_a_function_name_is_read_as_the_function(text: str, physeval: sympy.Expr, pipeline: sympy.Expr | None) -> None:
    default = latex_to_sympy(text)
    assert default.ok, default.reason
    assert sympy.simplify(default.expr - physeval) == 0 and str(default.expr) == str(physeval)
    compat = latex_to_sympy(text, compat="phybench")  # the pipeline's reading, misreading included
    if pipeline is None:
        assert not compat.ok or str(compat.expr) != str(physeval)
    else:
        assert compat.ok and str(compat.expr) == str(pipeline)


def test_the_fast_reader_and_latex2sympy2_read_them_alike() -> None:
    # an integral is outside the fast reader's subset: latex2sympy2 reads it, with the same stand-ins
    expr = latex_to_sympy(r"\int_0^1 \coth x dx").expr
    assert expr == sympy.Integral(sympy.coth(x), (x, 0, 1))
    assert sympy.srepr(expr) == sympy.srepr(sympy.Integral(sympy.coth(x), (x, 0, 1)))


def test_a_stand_in_the_text_uses_is_not_taken() -> None:
    text, renames = function_standins(r"\coth x \cot x \operatorname{arccot} x")
    assert text == r"\sec x \cot x \operatorname{arccot} x"  # \cot is taken: the next free one
    assert renames == {"sec": "coth", "asec": "acoth"}
    expr = latex_to_sympy(r"\coth x \cdot \cot x \cdot \sec x \cdot \csc x").expr
    assert expr.has(sympy.coth) and expr.has(sympy.cot) and expr.has(sympy.sec) and expr.has(sympy.csc)


def test_without_a_free_stand_in_the_text_is_read_as_latex2sympy2_reads_it() -> None:
    crowded = r"\coth x \sin x \cos x \tan x \cot x \sec x \csc x"
    assert function_standins(crowded) == (crowded, {})


@pytest.mark.parametrize("label", [r"v_{\mathrm{sin}}", r"E^{\text{cos}}", r"v_\mathrm{exp}", r"v_{a\mathrm{sin}}",
                                   r"v_{x^{\mathrm{sin}}}"])
def test_a_name_in_a_subscript_is_a_label(label: str) -> None:
    assert roman_function_names(label) == label
    assert latex_to_sympy(label).outcome == latex_to_sympy(label, compat="phybench").outcome


def test_a_name_in_an_exponent_with_an_argument_is_the_function() -> None:
    assert latex_to_sympy(r"e^{\mathrm{sin}\theta}").expr == sympy.exp(sympy.sin(theta))
    assert latex_to_sympy(r"x^{\mathrm{ln} 2}").expr == latex_to_sympy(r"x^{\ln 2}").expr


def test_a_longer_command_that_starts_with_a_stand_in_keeps_it_taken() -> None:
    # \cotan is lexed as \cot followed by letters: \cot is not free for \coth
    expr = latex_to_sympy(r"\cotan x+\coth y").expr
    assert expr.has(sympy.cot) and expr.has(sympy.coth) and expr.count(sympy.coth) == 1, expr


@pytest.mark.parametrize(("a", "b"), [(r"\eta_k(0)", r"\eta_{k}(0)"), (r"v_x(t)", r"v_{x}(t)"), (r"\rho(r)", r"\rho (r)")])
def test_an_undefined_function_is_named_as_its_symbol_would_be(a: str, b: str) -> None:
    assert latex_to_sympy(a).expr == latex_to_sympy(b).expr  # as the symbols \eta_k and \eta_{k} are one
    assert latex_to_sympy(a, compat="phybench").expr != latex_to_sympy(b, compat="phybench").expr or " " in b


# (reference, answer, equivalent?)
PAIRS = [
    (r"\frac{\cosh x}{\sinh x}", r"\coth x", True),
    (r"\frac{\sinh x}{\cosh x}", r"\coth x", False),
    (r"\frac{1}{\cosh x}", r"\operatorname{sech}(x)", True),
    (r"\frac{1}{\sinh x}", r"\operatorname{sech}(x)", False),
    (r"\frac{1}{2\sinh x\cosh x}", r"\operatorname{csch}(2x)", True),
    (r"\frac{1}{2\sinh x\cosh x}", r"\operatorname{csch}(x)", False),
    (r"\frac{\hbar\omega}{2}+\frac{\hbar\omega}{e^{\hbar\omega/kT}-1}", r"\frac{\hbar\omega}{2}\coth\frac{\hbar\omega}{2kT}",
     True),
    (r"\frac{\hbar\omega}{2}+\frac{\hbar\omega}{e^{\hbar\omega/kT}+1}", r"\frac{\hbar\omega}{2}\coth\frac{\hbar\omega}{2kT}",
     False),
    (r"\frac{\hbar\omega}{2}+\frac{\hbar\omega}{e^{\hbar\omega/kT}-1}", r"\frac{\hbar\omega}{2}\coth\frac{\hbar\omega}{kT}",
     False),
    (r"mg\sin\theta", r"mg\mathrm{sin}\theta", True),
    (r"mg\cos\theta", r"mg\mathrm{sin}\theta", False),
    (r"\sqrt{1-\tanh^2 x}", r"\text{sech}(x)", True),
    (r"T_0-T_0\mathrm{erf}\left(\frac{x}{2\sqrt{\alpha t}}\right)", r"T_0\operatorname{erfc}\frac{x}{2\sqrt{\alpha t}}", True),
    (r"T_0-T_0\mathrm{erf}\left(\frac{x}{2\sqrt{\alpha t}}\right)", r"T_0\operatorname{erf}\frac{x}{2\sqrt{\alpha t}}", False),
    (r"T_0\operatorname{erf}\frac{x}{2\sqrt{\alpha t}}", r"T_0\operatorname{erf}\frac{x}{\sqrt{\alpha t}}", False),
    (r"\operatorname{erf}(x)", r"1+\operatorname{erfc}(x)", False),
]


@pytest.mark.parametrize(("reference", "answer", "equivalent"), PAIRS, ids=[f"{p[1]}~{p[0]}" for p in PAIRS])
def test_the_equivalence_a_misreading_hid_is_found_and_near_misses_stay_wrong(
        reference: str, answer: str, equivalent: bool) -> None:
    result = eed(reference, answer)
    assert (result.score == 100) is equivalent, result
    if not equivalent:
        assert result.outcome == "wrong", result


# \max and \min: a label in a subscript, the function with its arguments elsewhere (both misread before)
LABELS = [
    (r"v_{\max}", r"v_{\text{max}}"),
    (r"\theta_\min", r"\theta_{\mathrm{min}}"),
    (r"v_{\rm max}", r"v_{max}"),
    (r"\frac12 m v_{\max}^2", r"\frac{m v_{\rm max}^{2}}{2}"),
    (r"E_{\max}-E_{\min}", r"E_{\rm max}-E_{\rm min}"),
]


@pytest.mark.parametrize(("a", "b"), LABELS)
def test_max_and_min_in_a_subscript_are_labels(a: str, b: str) -> None:
    # latex2sympy2 cannot parse \max in a subscript, nor \rm: a reference naming x_{\max} was unparseable
    assert latex_to_sympy(a, compat="phybench").ok is False  # the pipeline's reading: unparseable
    read, other = latex_to_sympy(a), latex_to_sympy(b)
    assert read.ok and sympy.simplify(read.expr - other.expr) == 0
    assert eed(a, b).outcome == "correct"
    assert eed(r"v_{\max}", r"v_{\min}").outcome == "wrong"


def test_max_and_min_keep_their_arguments() -> None:
    # the normal form deletes commas (thousands separators), so \max(a,b) was read as a b, and equal to
    # \min(a,b); the pipeline (compat) still reads it so
    a, b = sympy.symbols("a b")
    assert latex_to_sympy(r"\max(a,b)").expr == sympy.Max(a, b)
    assert latex_to_sympy(r"\min\left(a, b\right)").expr == sympy.Min(a, b)
    assert latex_to_sympy(r"\max(a,b)", compat="phybench").expr == a * b
    assert latex_to_sympy(r"1,000 x").expr == 1000 * sympy.Symbol("x")  # a thousands separator still goes
    friction = r"\min(\mu m g, F)"
    assert eed(friction, r"\min(F, \mu mg)").outcome == "correct"
    for near_miss in (r"\max(\mu m g, F)", r"\mu m g F", r"\mu m g"):
        result = eed(friction, near_miss)
        assert result.outcome == "wrong" and 0 < result.score < 100, (near_miss, result)  # a tree with Min in it


def test_a_function_of_several_arguments_keeps_them_apart() -> None:
    # \phi(x,t) was \phi x t (commas deleted): 'correct' against \phi(t,x), a false accept
    x, t = sympy.symbols("x t")
    assert latex_to_sympy(r"\phi(x,t)").expr == sympy.Function("phi")(x, t)
    assert latex_to_sympy(r"\eta_{k}(x, t)").expr == sympy.Function("eta_k")(x, t)
    assert latex_to_sympy(r"f(1,000)").expr == sympy.Function("f")(1000)  # a thousands separator
    assert eed(r"\phi(x,t)", r"\phi(t,x)").equivalent is not True
    assert eed(r"\phi(x,t)", r"\phi x t").equivalent is not True
    assert eed(r"\eta_k(x,t)", r"\eta_k(t,x)").outcome == "wrong"  # a subscripted function is probed
    assert eed(r"\eta_k(x,t)+1", r"1+\eta_{k}(x, t)").outcome == "correct"
