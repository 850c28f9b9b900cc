"""Dimension checks of symbolic answers."""

from fractions import Fraction

import pytest

from physeval.grading.dimensions import check_dimensions, dimension_of
from physeval.units import format_dimension, parse_dimension

DIMS = {"m": "mass", "v_0": "length/time", "g": "length/time**2", "l": "length", r"\omega_{0}": "1/time"}


def test_parse_base_names_and_pint_units_alike() -> None:
    assert parse_dimension("length/time**2") == parse_dimension("m/s^2")
    assert parse_dimension("N") == parse_dimension("[mass]*[length]/[time]^2")
    assert parse_dimension("dimensionless") == () == parse_dimension("1")
    assert dict(parse_dimension("length**(1/2)"))["length"] == Fraction(1, 2)
    with pytest.raises(ValueError):
        parse_dimension("not a unit at all")


def test_consistent_answer_with_matching_dimension() -> None:
    check = check_dimensions(r"2mg+2\frac{mv_0^2}{l}", r"T = 2mg+4\frac{mv_0^2}{l}", DIMS)
    assert check.consistent is True and check.matches is True
    assert check.answer_dimension == format_dimension(parse_dimension("N"))


def test_inconsistent_sum_and_function_arguments() -> None:
    assert check_dimensions(r"mg + m v_0", r"mg", DIMS).consistent is False
    assert check_dimensions(r"g \sin(l)", r"g", DIMS).consistent is False
    assert check_dimensions(r"g \sin(\omega_0 \frac{l}{v_0})", r"g", DIMS).consistent is True


def test_mismatch_and_unknown_symbols() -> None:
    check = check_dimensions(r"\sqrt{g l}", r"\sqrt{g}", DIMS)
    assert check.consistent is True and check.matches is False
    unknown = check_dimensions(r"k m", r"m", DIMS)
    assert unknown.consistent is None and unknown.matches is None and "k" in unknown.reason


def test_latex_keys_match_converted_symbols() -> None:
    assert dimension_of(r"\omega_0 l", DIMS) == parse_dimension("length/time")
    assert dimension_of("E_0", {"E_0": "V/m"}) == parse_dimension("V/m")
    with pytest.raises(ValueError):
        dimension_of("m + l", DIMS)
