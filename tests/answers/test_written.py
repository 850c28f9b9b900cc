"""Written numbers: reference answers as datasets write them, and their rounding allowance."""

from __future__ import annotations

from decimal import Decimal

import pytest

from physeval.answers.written import TIMES_TEN_BRACED, parse_written_number, written_precision


@pytest.mark.parametrize("text,value", [
    (r"2.9 \times 10^{-11}", Decimal("2.9E-11")),
    (" 500", Decimal(500)),
    ("3.0e5", Decimal("3.0E5")),
    (r"-\, 1.5", Decimal("-1.5")),
    ("10^{3}", Decimal("1E3")),
    ("about 5", None),
])
def test_parse_written_number(text: str, value: Decimal | None) -> None:
    assert parse_written_number(text) == value


def test_written_precision_is_half_the_last_digit() -> None:
    assert written_precision("1.7", Decimal("1.7")) == pytest.approx(0.05 / 1.7, rel=1e-5)
    assert written_precision("1.70", Decimal("1.70")) == pytest.approx(0.005 / 1.7, rel=1e-5)
    assert written_precision("x", Decimal(1)) == 0.0


def test_the_braced_exponent_is_read_with_its_sign() -> None:
    match = TIMES_TEN_BRACED.match(r"{8.854} \times {10}^{-{12}}", len("{8.854"))
    assert match is not None and (match.group("sign"), match.group("e")) == ("-", "12")
