"""find_constants reads what ABench writes: counts named N, units outside the math, r/min, hPa, mmHg,
angstroms, braced scientific numbers, speeds as fractions of c, and a garbled instruction unit as none;
a template with nothing to vary and an integer answer loads."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from physeval.variation.plain import find_constants, read_instruction, template_from_plain


def _read(question: str) -> list[tuple[str, Decimal, str, str]]:
    return [(c.name, c.value, c.unit, c.role) for c in find_constants(question)]


@pytest.mark.parametrize("question,expected", [
    # a count is data; a small index is not
    (r"绕有 \( N = 200 \) 匝导线", [("N", Decimal(200), "", "number")]),
    (r"the level \( n = 2 \) decays", []),
    # r/min, in LaTeX and bare (and 2000 is no year once its unit is read)
    (r"由 \( {2000}\mathrm{r}/\mathrm{{min}} \) 增至", [("c1", Decimal(2000), "revolution/min", "quantity")]),
    ("turning at 2000 r/min for", [("c1", Decimal(2000), "revolution/min", "quantity")]),
    # Latin units after the closing \)
    (r"\( P_0 = 1 \) atm and", [("P_0", Decimal(1), "atm", "quantity")]),
    (r"\( R = 6.4 \times 10^{6} \) m.", [("R", Decimal("6.4E6"), "m", "quantity")]),
    (r"质量为 \( 2 \times 10^{33} \) g。", [("c1", Decimal("2E33"), "g", "quantity")]),
    (r"\( x = 3 \) and then", [("x", Decimal(3), "", "number")]),  # a word is no unit
    # bare mmHg, hPa; Chinese hectopascal and standard atmospheres
    ("vapour pressure 4.6 mmHg at", [("c1", Decimal("4.6"), "mmHg", "quantity")]),
    ("气压为 1500 百帕，", [("c1", Decimal(1500), "hPa", "quantity")]),
    ("压强为 2 标准大气压", [("c1", Decimal(2), "atm", "quantity")]),
    # angstroms
    (r"$\lambda = 6328 \AA$", [("lam", Decimal(6328), "angstrom", "quantity")]),
    (r"\( 5000 \mathring{A} \)", [("c1", Decimal(5000), "angstrom", "quantity")]),
    # a unit alone in the next inline math; a symbol there is no unit
    (r"在6328\(\AA\)波长", [("c1", Decimal(6328), "angstrom", "quantity")]),
    (r"长 3\(\mathrm{cm}\) 的", [("c1", Decimal(3), "cm", "quantity")]),
    (r"质量为2\( m \)的", [("c1", Decimal(2), "", "coefficient")]),
    ("压强为1个标准大气压，", [("c1", Decimal(1), "atm", "quantity")]),
    # braced scientific numbers are one number
    (r"\( {\varepsilon }_{0} = {8.854} \times  {10}^{-{12}}\mathrm{\;F} \cdot  {\mathrm{m}}^{-1} \)",
     [("c1", Decimal("8.854E-12"), "F*m**-1", "quantity")]),
    (r"\( {6.66} \times {10}^{8}\mathrm{\;{km}} \)", [("c1", Decimal("6.66E8"), "km", "quantity")]),
    # a speed written as a fraction of c is the datum
    (r"以 \( 0.8c \) 的速率", [("c1", Decimal("0.8"), "c", "quantity")]),
    (r"\( v = {0.99 c} \)", [("v", Decimal("0.99"), "c", "quantity")]),
    (r"\( 0.5c_1 \)", [("c1", Decimal("0.5"), "", "coefficient")]),  # a coefficient of a symbol c_1 stays one
    # "at the end of the 2nd second" is a time of 2 s; "problem 3" stays an index
    ("求其在第2秒末的瞬时速度。", [("c1", Decimal(2), "s", "quantity")]),
    ("如第3题所示，", []),
])
def test_find_constants_reads(question: str, expected: list[tuple[str, Decimal, str, str]]) -> None:
    assert _read(question) == expected


def test_a_braced_number_is_replaced_whole_in_a_variant() -> None:
    question = (r"光速 \( c = {3.00} \times {10}^{8}\mathrm{\;m}/\mathrm{s} \)，求 1 s 内光走的路程。"
                r" (结果使用科学计数法，以$ \mathrm{\;m} $为单位，保留3位有效数字)")
    conv = template_from_plain(question, "3.00 \\times 10^{8}", "c*c2", template_id="braced")
    assert conv.ok, conv.reason
    for v in conv.vary(3, 1)[1:]:
        text = v.question.split("(结果")[0]
        assert text.count("{") == text.count("}"), v.question
        assert "{10}" not in text


@pytest.mark.parametrize("unit_latex,unit", [("{\\prime", ""), ("{ \\circ", "degree"), ("\\mathrm{\\;m}", "m"),
                                           ("{\\mathrm{B}}", "")])
def test_a_garbled_instruction_unit_is_none_not_an_arcminute(unit_latex: str, unit: str) -> None:
    instruction = read_instruction(f"Q? (结果以$ {unit_latex} $为单位，保留3位有效数字)")
    assert instruction is not None and instruction.unit == unit


def test_a_volume_unit_for_a_number_per_volume_means_per_volume() -> None:
    asked = read_instruction(r"求每立方毫米体积内的电子数目。 (结果以$ {\mathrm{{mm}}}^{3} $为单位，保留2位有效数字)")
    plain = read_instruction(r"求球的体积。 (结果以$ {\mathrm{{mm}}}^{3} $为单位，保留2位有效数字)")
    assert asked is not None and asked.unit == "1/(mm**3)"
    assert plain is not None and plain.unit == "mm**3"


def test_a_template_with_nothing_to_vary_and_an_integer_answer_loads() -> None:
    question = "How many legs has a cat? (Results should be expressed and rounded to 1 significant figures)"
    conv = template_from_plain(question, "4", "4")
    assert conv.ok, conv.reason
    assert [v.answer for v in conv.vary(1)] == ["4"]


def test_counts_use_ceiling_and_finite_sums_use_harmonic() -> None:
    # interference maxima inside the central diffraction maximum: orders |k| < d/a
    slits = (r"缝间距 \( d = 0.40  \text{mm} \)，缝宽 \( a = 0.08  \text{mm} \)，求亮纹数目。"
             r" (结果保留1位有效数字)")
    conv = template_from_plain(slits, "9", ["r = d/a", "2*ceiling(r) - 1"], ranges={"r": [1.01, 5.0]})
    assert conv.ok, conv.reason
    for v in conv.vary(6, 2):
        ratio = Decimal(v.params["d"]) / Decimal(v.params["a"])
        expected = 2 * math.ceil(ratio) - 1
        assert int(v.answer) == expected, (v.params, v.answer)
    # two harmonic stacks of N/2 blocks: span/height = H_(N/2-1) * 4/(N/2-1), N drawn even
    bridge = (r"有 20 个相同块体，长 \( l \)，截面边长 \( h = l/4 \)。求跨度与高度之比。 (结果保留4位有效数字)")
    conv = template_from_plain(bridge, "1.258", ["k = c1/2 - 1", "par = c1/2 - floor(c1/2)", "harmonic(k)*c2/k"],
                               integers=["c1"], ranges={"par": [-1, 0], "k": [2, None]})
    assert conv.ok, conv.reason
    for v in conv.vary(4, 1):
        n = int(v.params["c1"])
        k = n // 2 - 1
        assert n % 2 == 0
        assert float(v.answer) == pytest.approx(sum(1 / i for i in range(1, k + 1)) * 4 / k, rel=1e-3)


def test_a_concentration_in_a_volume_unit_is_per_volume() -> None:
    question = "计算锑的掺杂浓度。 (结果使用科学计数法，以$ {\\mathrm{{cm}}}^{3} $为单位，保留3位有效数字)"
    instruction = read_instruction(question)
    assert instruction is not None and instruction.unit == "1/(cm**3)"
