"""Unit parsing (LaTeX and plain), conversions, and a question's format demands."""

from __future__ import annotations

from fractions import Fraction

import pytest

from physeval.answers.units import required_format
from physeval.units import conversion, parse_unit


@pytest.mark.parametrize(
    ("text", "pint_name"),
    [
        ("\\mathrm{m\\,s^{-1}}", "meter / second"),
        ("\\mu\\mathrm{A}", "microampere"),
        ("\\Omega", "ohm"),
        ("^\\circ\\mathrm{C}", "degree_Celsius"),
        ("{}^{\\circ}C", "degree_Celsius"),
        ("℃", "degree_Celsius"),
        ("^\\circ", "degree"),
        ("km/h", "kilometer / hour"),
        ("eV", "electron_volt"),
        ("\\mathrm{{MeV}}", "megaelectron_volt"),
        ("atm", "standard_atmosphere"),
        ("\\mathrm{J/(kg\\cdot K)}", "joule / kelvin / kilogram"),
        ("J/kg K", "joule / kelvin / kilogram"),
        ("m²", "meter ** 2"),
        ("\\text{ m/s}", "meter / second"),
        ("\\AA", "angstrom"),
        ("\\mathrm{\\;{cm}}", "centimeter"),
        ("{\\mathrm{\\;m}}^{3} \\cdot {\\mathrm{s}}^{-1}", "meter ** 3 / second"),
        ("\\%", "percent"),
        ("Gs", "gauss"),
        ("千米每小时", "kilometer / hour"),
        ("mmHg", "millimeter_Hg"),
    ],
)
def test_parse_unit(text: str, pint_name: str) -> None:
    assert str(parse_unit(text)) == pint_name


@pytest.mark.parametrize("text", ["", "x", "fringes", "42", "\\frac{1}{2}"])
def test_not_a_unit(text: str) -> None:
    assert parse_unit(text) is None


def test_conversions_are_exact_where_the_factor_is() -> None:
    km_to_m = conversion(parse_unit("km"), parse_unit("m"))
    assert km_to_m is not None and km_to_m.apply(Fraction(3)) == 3000
    assert conversion(parse_unit("m"), parse_unit("s")) is None


def test_temperature_offsets() -> None:
    to_c = conversion(parse_unit("K"), parse_unit("degC"))
    assert to_c is not None and to_c.apply(Fraction(300)) == Fraction("26.85")
    to_k = conversion(parse_unit("^\\circ C"), parse_unit("K"))
    assert to_k is not None and to_k.apply(Fraction(0)) == Fraction("273.15")


@pytest.mark.parametrize(
    ("question", "unit", "sig_figs", "scientific"),
    [
        ("求电流。 (结果以$ \\mu \\mathrm{A} $为单位，保留3位有效数字)", "\\mu \\mathrm{A}", 3, False),
        ("求比值。 (结果使用科学计数法，保留2位有效数字)", None, 2, True),
        ("求长度。 (结果使用科学计数法，以$ \\mathrm{\\;m}  $为单位，保留4位有效数字)", "\\mathrm{\\;m}", 4, True),
        ("Find x. (Results should be expressed in scientific notation, with units of $ {\\mathrm{m}} $,and rounded to 3 significant figures)", "{\\mathrm{m}}", 3, True),
        ("Find x. (Results should be expressed with units of $ \\mathrm{\\;{km}}/\\mathrm{s} $,and rounded to 2 significant figures)", "\\mathrm{\\;{km}}/\\mathrm{s}", 2, False),
        ("Find x. (Results should be expressed and rounded to 1 significant figures)", None, 1, False),
        ("Find x. (Results should be expressed in scientific notation, and rounded to 2 significant figures)", None, 2, True),
        ("温度 (结果以$ { \\circ  }\\mathrm{C} $为单位，保留3位有效数字)", "{ \\circ }\\mathrm{C}", 3, False),
        ("No instruction here.", None, None, False),
        ("", None, None, False),
    ],
)
def test_required_format(question: str, unit: str | None, sig_figs: int | None, scientific: bool) -> None:
    fmt = required_format(question)
    assert (fmt.unit, fmt.sig_figs, fmt.scientific) == (unit, sig_figs, scientific)


@pytest.mark.parametrize(
    ("question", "pint_name"),
    [
        ("q (结果以$ \\mathrm{\\;{cm}} $为单位，保留2位有效数字)", "centimeter"),
        ("q (结果以$ { \\circ  }\\mathrm{C} $为单位，保留2位有效数字)", "degree_Celsius"),
        ("q (结果以$ { \\circ $为单位，保留2位有效数字)", "degree"),
        ("q (结果以$ \\mathrm{C} $为单位，保留2位有效数字)", "coulomb"),
        ("q (结果以$ \\left\\lbrack  \\mathrm{\\;T}\\right $为单位，保留2位有效数字)", "tesla"),
        ("q (结果使用科学计数法，以$ \\mathrm{N}}{\\mathrm{N}}  $为单位，保留2位有效数字)", "newton"),
        # source-text leftovers stated as "units" are kept as text but never converted
        ("q (结果以$ {\\prime $为单位，保留2位有效数字)", "None"),
        ("q (结果以$ {\\mathrm{e}} $为单位，保留2位有效数字)", "None"),
    ],
)
def test_required_unit_as_pint(question: str, pint_name: str) -> None:
    assert str(required_format(question).pint_unit) == pint_name
