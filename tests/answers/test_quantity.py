"""Reading a final answer's text as one number and its unit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from physeval.answers.quantity import parse_quantity, sig_fig_range


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("42", Fraction(42), None),
        ("-3.2", Fraction(-16, 5), None),
        ("- 50", Fraction(-50), None),
        ("+7", Fraction(7), None),
        (".5", Fraction(1, 2), None),
        ("1.5 \\times 10^{-3}", Fraction(3, 2000), None),
        ("1.5\\cdot10^{3}", Fraction(1500), None),
        ("10^{-3}", Fraction(1, 1000), None),
        ("5.7 \\times  {10}^{9}", Fraction(5_700_000_000), None),
        ("3.0e5", Fraction(300_000), None),
        ("3.0E+05", Fraction(300_000), None),
        ("3.0\\mathrm{e}{5}", Fraction(300_000), None),
        ("1e-3", Fraction(1, 1000), None),
        ("−1.2×10⁻³", Fraction(-3, 2500), None),
        ("2.0\u00a0×\u200910^{4}", Fraction(20_000), None),
        ("1,000", Fraction(1000), None),
        ("1{,}000", Fraction(1000), None),
        ("1\\,000", Fraction(1000), None),
        ("1 000 000", Fraction(1_000_000), None),
        ("3{,}14", Fraction(157, 50), None),
        ("10\\%", Fraction(10), "%"),
        ("\\frac{1}{2}", Fraction(1, 2), None),
        ("\\tfrac{3}{4}\\text{ J}", Fraction(3, 4), "\\text{ J}"),
        ("2^{10}", Fraction(1024), None),
        ("1/3", Fraction(1, 3), None),
        ("\\text{4}", Fraction(4), None),
        ("\\mathrm{-2.5}", Fraction(-5, 2), None),
        ("v = 5 m/s", Fraction(5), "m/s"),
        ("v \\approx 5.0\\,\\mathrm{m\\,s^{-1}}", Fraction(5), "\\mathrm{m s^{-1}}"),
        ("E = 2 + 3 = 5", Fraction(5), None),
        ("30000\\ \\mathrm{m/s}", Fraction(30000), "\\mathrm{m/s}"),
        ("2.97\\,\\mu\\mathrm{A}", Fraction(297, 100), "\\mu\\mathrm{A}"),
        ("44.83^\\circ", Fraction(4483, 100), "^\\circ"),
        ("25 ^\\circ\\mathrm{C}", Fraction(25), "^\\circ\\mathrm{C}"),
        ("7 \\, \\Omega", Fraction(7), "\\Omega"),
        ("approximately 12 km/h", Fraction(12), "km/h"),
        ("5 \\text{ or } 5.0", Fraction(5), None),
        ("0", Fraction(0), None),
    ],
)
def test_reads_a_number(text: str, value: Fraction, unit: str | None) -> None:
    q = parse_quantity(text)
    assert q.ok, q.reason
    assert q.value == value
    assert q.unit_text == unit


@pytest.mark.parametrize(
    ("text", "approx"),
    [("2\\pi", 6.283185307179586), ("\\dfrac{\\sqrt{3}}{2}", 0.8660254037844386), ("\\sqrt{2}\\,\\mathrm{m}", 1.4142135623730951)],
)
def test_symbolic_forms_evaluate(text: str, approx: float) -> None:
    q = parse_quantity(text)
    assert q.ok and q.form == "symbolic"
    assert float(q.value) == pytest.approx(approx, rel=1e-15)


@pytest.mark.parametrize(
    ("text", "status", "reason_part"),
    [
        (None, "no_answer", "no final answer"),
        ("", "no_answer", "empty"),
        ("  $ $ ", "no_answer", "empty"),
        ("5 \\text{ or } 7", "ambiguous", "different values"),
        ("3, 4", "ambiguous", "different values"),
        ("x = \\pm 3", "ambiguous", "pm"),
        ("x", "unparseable", "free symbol"),
        ("2x", "unparseable", "free symbol"),
        ("E = mc^2", "unparseable", "free symbol"),
        ("(1, 2, 3)", "unparseable", "tuple"),
        ("\\vec{v} = 3\\hat{i}", "unparseable", "vector"),
        ("v < 3", "unparseable", "inequality"),
        ("\\text{no solution}", "unparseable", "no number"),
        ("1.0 \\times 10^{999}", "too_large", "power of ten"),
    ],
)
def test_not_one_number(text: str | None, status: str, reason_part: str) -> None:
    q = parse_quantity(text)
    assert q.status == status
    assert q.value is None
    assert reason_part in q.reason


def test_scientific_form_and_mantissa_are_recorded() -> None:
    q = parse_quantity("1.40 \\times 10^{3}")
    assert q.scientific and q.mantissa == "1.40"
    assert not parse_quantity("1400").scientific


def test_words_after_a_number_are_a_label_not_a_unit() -> None:
    q = parse_quantity("4 fringes")
    assert q.ok and q.unit_text == "fringes" and not q.unit_known


@pytest.mark.parametrize(
    ("mantissa", "expected"),
    [("1.40", (3, 3)), ("0.0052", (2, 2)), ("500", (1, 3)), ("0", (1, 1)), ("2.0", (2, 2)), ("0.00", (2, 2)), ("7", (1, 1))],
)
def test_sig_fig_range(mantissa: str, expected: tuple[int, int]) -> None:
    assert sig_fig_range(mantissa) == expected


def test_long_symbolic_text_is_refused_by_budget() -> None:
    q = parse_quantity("\\frac{1}{2}+" * 40 + "1")
    assert q.status == "unparseable" and "longer than" in q.reason


@pytest.mark.parametrize("text", [
    r"\int_{0}^{1} \frac{\arctan(2x)}{x^{2}\sqrt{4-x^{2}}} dx",  # SymPy took 14.5 s to evaluate it
    r"\int_0^{\infty} \frac{\sin x}{x} dx",  # SymPy's value was -4 (it is pi/2)
])
def test_an_integral_is_not_a_value(text: str) -> None:
    parsed = parse_quantity(text)
    assert parsed.status == "unparseable" and "integral" in parsed.reason
