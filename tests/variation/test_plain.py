"""From plain problems: constants with units are found (and non-constants skipped); a supplied
solution must reproduce the original answer within 1 % before any variant is made."""

from __future__ import annotations

from decimal import Decimal

import pytest

from physeval.variation import find_constants, template_from_plain
from physeval.variation.plain import latex_unit_to_pint, parse_written_number, read_instruction, recompute

EN_SUFFIX = r" (Results should be expressed with units of $ \mathrm{\;s} $,and rounded to 3 significant figures)"


def _by_name(question: str) -> dict[str, tuple[Decimal, str, str]]:
    return {c.name: (c.value, c.unit, c.role) for c in find_constants(question)}


def test_assigned_quantities_get_symbol_names_and_units() -> None:
    q = (r"A cart of mass \( m_{1} = 2.50\,\mathrm{kg} \) moves at \( v_{\mathrm{0}} = 36\,\mathrm{km/h} \) "
         r"on a track of length \( L = 1.2 \times 10^{3}\,\mathrm{m} \)." + EN_SUFFIX)
    found = _by_name(q)
    assert found["m_1"] == (Decimal("2.50"), "kg", "quantity")
    assert found["v_0"] == (Decimal("36"), "km/h", "quantity")
    assert found["L"][0] == Decimal("1.2E+3") and found["L"][1] == "m"
    assert [c.alias for c in find_constants(q)] == ["c1", "c2", "c3"]


@pytest.mark.parametrize(
    "question,values",
    [
        # subscripts and unit exponents are not constants
        (r"Charges \( q_1 = 3\,\mu\mathrm{C} \) and \( q_2 = 5\,\mu\mathrm{C} \) sit \( 0.20\,\mathrm{m} \) apart.", ["3", "5", "0.20"]),
        (r"A plate of area \( 4.0\,\mathrm{cm}^{2} \) and a flux of \( 2\,\mathrm{W\,m^{-2}} \).", ["4.0", "2"]),
        # years, ordinals and enumerations are not constants
        (r"In 1998 a probe of mass 250 kg was launched. (1) Find its 3rd orbit period at 7.5 km/s.", ["250", "7.5"]),
        (r"Figure 2 shows a spring of constant \( k = 120\,\mathrm{N/m} \).", ["120"]),
        # indices such as n = 3 are not constants, but the wavelength is
        (r"An electron drops to level \( n = 3 \), emitting light of \( 656\,\mathrm{nm} \).", ["656"]),
        # a bare power of ten and a scientific number
        (r"There are \( 10^{6} \) ions, each carrying \( 1.6 \times 10^{-19}\,\mathrm{C} \).", ["1E+6", "1.6E-19"]),
    ],
)
def test_what_counts_as_a_constant(question: str, values: list[str]) -> None:
    assert [c.value for c in find_constants(question + EN_SUFFIX)] == [Decimal(v) for v in values]


def test_coefficients_are_found_but_not_perturbable() -> None:
    consts = find_constants(r"The force is \( F = 6t + 2\,\mathrm{N} \) with \( t \) in seconds, acting on \( 3\,\mathrm{kg} \).")
    roles = {c.text: c.role for c in consts}
    assert roles == {"6": "coefficient", "2": "quantity", "3": "quantity"}
    assert [c.perturbable for c in consts] == [False, True, True]


def test_units_in_chinese_text_and_latex_forms() -> None:
    consts = find_constants("小球以 3 米/秒 的速度运动了 \\( 2.0 \\) 秒，质量为 \\( 40\\,\\mathrm{g} \\)。")
    assert [(c.value, c.unit) for c in consts] == [(Decimal("3"), "m/s"), (Decimal("2.0"), "s"), (Decimal("40"), "g")]
    assert latex_unit_to_pint(r"\mathrm{\;m}/{\mathrm{s}}^{2}") == "m/s**2"
    assert latex_unit_to_pint(r"\mu \mathrm{A}") == "uA"
    assert latex_unit_to_pint(r"{ \circ  }\mathrm{C}") == "degC"
    assert latex_unit_to_pint(r"k\Omega") == "kohm"
    assert latex_unit_to_pint(r"\mathrm{bananas}") is None


def test_instruction_is_read_in_both_languages() -> None:
    en = read_instruction("Find it. (Results should be expressed in scientific notation, with units of $ \\mathrm{J} $,and rounded to 2 significant figures)")
    assert (en.unit, en.sig_figs, en.scientific) == ("J", 2, True)
    zh = read_instruction("求之。 (结果以$ \\mathrm{\\;{cm}} $为单位，保留3位有效数字)")
    assert (zh.unit, zh.sig_figs, zh.scientific) == ("cm", 3, False)
    assert read_instruction("No instruction here.") is None


def test_written_numbers_parse() -> None:
    assert parse_written_number(r"2.9 \times 10^{-11}") == Decimal("2.9E-11")
    assert parse_written_number("  500") == Decimal(500)
    assert parse_written_number("- 5") == Decimal(-5)
    assert parse_written_number("3.0e5") == Decimal("3.0E5")
    assert parse_written_number("about five") is None


RUNNER = (r"A sprinter runs a \( 100\,\mathrm{m} \) race. Starting from rest with constant acceleration, "
          r"she reaches \( 10\,\mathrm{m/s} \) after \( 20\,\mathrm{m} \) and keeps that speed to the finish. "
          r"Find her total time." + EN_SUFFIX)


def test_solution_reproducing_the_answer_gives_a_template_that_varies() -> None:
    conv = template_from_plain(RUNNER, "12.0", ["t1 = 2*c3/c2", "t1 + (c1 - c3)/c2"], template_id="runner")
    assert conv.ok, conv.reason
    assert conv.recomputed == pytest.approx(12.0)
    variants = conv.vary(5, seed=1)
    assert variants[0].question == RUNNER and variants[0].answer == "12.0"
    for v in variants[1:]:
        c1, c2, c3 = (float(v.params[n]) for n in ("c1", "c2", "c3"))
        assert float(v.value) == pytest.approx(2 * c3 / c2 + (c1 - c3) / c2)
        assert v.question.endswith(EN_SUFFIX.strip())


def test_latex_chain_solution() -> None:
    conv = template_from_plain(RUNNER, "12.0", [r"t_1 = \frac{2 c_3}{c_2}", r"t = t_1 + \frac{c_1 - c_3}{c_2}"])
    assert conv.ok, conv.reason


def test_wrong_solution_or_answer_is_flagged_and_refuses_to_vary() -> None:
    conv = template_from_plain(RUNNER, "12.0", "c1/c2")  # forgets the acceleration phase: 10 s
    assert not conv.ok and "relative error" in conv.reason and conv.recomputed == pytest.approx(10.0)
    with pytest.raises(ValueError, match="flagged"):
        conv.vary(2)
    assert not template_from_plain(RUNNER, "about twelve", "c1/c2").ok
    assert "unknown name" in template_from_plain(RUNNER, "12.0", "c1/speed").reason


def test_units_are_converted_before_comparison() -> None:
    q = (r"A car covers \( 1.5\,\mathrm{km} \) at \( 54\,\mathrm{km/h} \). How long does it take?"
         r" (Results should be expressed with units of $ \mathrm{min} $,and rounded to 2 significant figures)")
    value, reason = recompute(q, "c1/c2")
    assert reason == "" and float(value) == pytest.approx(1.6666667, rel=1e-6)
    # 1.6667 min written to 2 figures is 1.7 (2 % away): the written precision widens the 1 % tolerance
    assert template_from_plain(q, "1.7", "c1/c2").ok
    assert not template_from_plain(q, "1.8", "c1/c2").ok
