"""The one units package: one registry for every reader, exact conversions, one reader and table, one algebra."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest
import sympy

from physeval.units import (
    CJK_UNITS,
    CJK_UNITS_AFTER_NUMBERS,
    InconsistentDimension,
    UnitError,
    UnknownDimension,
    conversion,
    expression_dimension,
    format_dimension,
    format_unit,
    parse_dimension,
    parse_unit,
    pint_unit_string,
    registry,
    unit_dimension,
    unit_to_si,
)


def test_every_reader_uses_the_one_registry() -> None:
    from physeval.grading import dimensions
    from physeval.variation import solution

    answer_unit = parse_unit(r"\mathrm{km/h}")
    assert answer_unit._REGISTRY is registry()
    # what the numeric grader reads converts with what the template engine reads
    assert registry().Quantity(1, answer_unit).to(pint_unit_string("m/s")).magnitude == Fraction(5, 18)
    assert dimensions.parse_dimension is parse_dimension and solution.unit_dimension is unit_dimension


def test_conversions_are_exact_and_handle_offsets() -> None:
    km_h, m_s = parse_unit("km/h"), parse_unit(r"\mathrm{m\,s^{-1}}")
    assert conversion(km_h, m_s).scale == Fraction(5, 18)
    f_to_c = conversion(parse_unit(r"^{\circ}\mathrm{F}"), parse_unit("℃"))
    assert (f_to_c.scale, f_to_c.offset) == (Fraction(5, 9), Fraction(-160, 9))
    assert f_to_c.apply(Fraction("80.33")) == Fraction("26.85")  # exactly: no binary rounding
    assert conversion(parse_unit("m"), parse_unit("s")) is None
    assert unit_to_si("km/h") == (sympy.Rational(5, 18), 0)
    assert unit_to_si("degree")[0] == sympy.pi / 180
    assert unit_to_si("degC") == (1, sympy.Rational(5463, 20))


def test_units_with_powers_can_be_shown() -> None:
    # pint cannot format the registry's Fraction exponents on Python 3.11; format_unit can
    assert format_unit(parse_unit(r"\mathrm{A}/{\mathrm{cm}}^{2}{\mathrm{K}}^{2}")) == "A / cm ** 2 / K ** 2"
    assert format_unit(parse_unit("km/h")) == "km / h"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"\mathrm{\;m}/{\mathrm{s}}^{2}", "m/s**2"),
        (r"\mu \mathrm{A}", "uA"),
        (r"{ \circ  }\mathrm{C}", "degC"),
        (r"k\Omega", "kohm"),
        ("千克/立方米", "kg/m**3"),  # the Chinese area and volume names were unreadable before
        ("平方厘米", "cm**2"),
        (r"/\mathrm{cm^{3}}", "1/cm**3"),  # per cubic centimetre, not cubic centimetres
        (r"/^\circ C", "1/degC"),  # per degree: no offset
        (r"\mathrm{bananas}", None),
        (r"{\alpha", None),  # a LaTeX command that is not unit markup
        (r"\mat", None),  # a cut-off \mathrm is not the metre
        ("^{1", None),
    ],
)
def test_pint_unit_string_reads_latex_and_chinese(text: str, expected: str | None) -> None:
    assert pint_unit_string(text) == expected


def test_one_chinese_table_with_a_prose_subset() -> None:
    table = dict(CJK_UNITS)
    assert all(table[zh] == en for zh, en in CJK_UNITS_AFTER_NUMBERS)
    assert "开" in table and "开" not in dict(CJK_UNITS_AFTER_NUMBERS)  # kelvin in a unit slot, "open" in prose
    lengths = [len(zh) for zh, _ in CJK_UNITS]
    assert lengths == sorted(lengths, reverse=True)
    assert parse_unit("开") == parse_unit("K") and parse_unit("千米每小时") == parse_unit("km/h")


def test_dimensions_from_names_derived_names_and_units() -> None:
    accel = parse_dimension("length/time**2")
    assert accel == parse_dimension("m/s^2") == parse_dimension("[length]/[time]^2") == unit_dimension("m/s**2")
    assert parse_dimension("[energy]") == parse_dimension("J") == parse_dimension("force*length")
    assert parse_dimension("amount") == parse_dimension("mol")
    assert parse_dimension("1") == parse_dimension("dimensionless") == ()
    assert format_dimension(parse_dimension("N")) == "length*mass/time**2"
    with pytest.raises(UnitError):
        parse_dimension("not a unit at all")


def test_expression_dimension_tells_inconsistent_from_unknown() -> None:
    m, v, t, k = sympy.symbols("m v t k")
    dims = {"m": parse_dimension("mass"), "v": parse_dimension("length/time"), "t": parse_dimension("time")}
    assert expression_dimension(m * v**2 / 2, dims) == parse_dimension("J")
    assert expression_dimension(sympy.atan2(v * t, v * t), dims) == ()
    with pytest.raises(InconsistentDimension, match="cannot add"):
        expression_dimension(m + v, dims)
    with pytest.raises(InconsistentDimension, match="dimensionless argument"):
        expression_dimension(sympy.sin(t), dims)
    with pytest.raises(UnknownDimension):
        expression_dimension(k * m, dims)
    assert issubclass(InconsistentDimension, ValueError) and issubclass(UnknownDimension, UnitError)


def test_importing_the_package_loads_neither_pint_nor_sympy() -> None:
    code = "import sys, physeval.units; print('pint' in sys.modules, 'sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
