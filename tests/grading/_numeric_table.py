"""A large generated table of numeric-grading inputs: values x spellings x units x wrappers x questions.

Used by tests/grading/test_numeric_fast_paths.py to hold verdicts fixed: every row must get the
same grade (every field) from the fast paths (the regex number reader, the shipped unit table)
and from the general path behind them (SymPy, pint). Deterministic: no randomness, no timing.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import islice

QUESTIONS = {
    "none": "求比值。 (结果保留3位有效数字)",
    "sci": "求概率比。 (结果使用科学计数法，保留2位有效数字)",
    "m": "求距离。 (结果以$ \\mathrm{\\;m} $为单位，保留3位有效数字)",
    "cm": "求距离。 (结果以$ \\mathrm{\\;{cm}} $为单位，保留2位有效数字)",
    "kms": "Find the speed. (Results should be expressed with units of $ \\mathrm{\\;{km}}/\\mathrm{s} $,and rounded to "
           "2 significant figures)",
    "ms": "求速度。 (结果以$ \\mathrm{\\;m}/\\mathrm{s} $为单位，保留3位有效数字)",
    "J": "求能量。 (结果使用科学计数法，以$ \\mathrm{\\;J} $为单位，保留3位有效数字)",
    "eV": "求能量。 (结果以$ \\mathrm{{eV}} $为单位，保留3位有效数字)",
    "MeV": "Find Q. (Results should be expressed with units of $ \\mathrm{{MeV}} $,and rounded to 4 significant figures)",
    "K": "求温度。 (结果以$ \\mathrm{\\;K} $为单位，保留5位有效数字)",
    "C": "At what temperature? (Results should be expressed with units of $ { \\circ  }\\mathrm{C} $,and rounded to 2 "
         "significant figures)",
    "uA": "求电流。 (结果以$ \\mu \\mathrm{A} $为单位，保留3位有效数字)",
    "Pa": "求压强。 (结果使用科学计数法，以$ \\mathrm{\\;{Pa}} $为单位，保留2位有效数字)",
    "ms2": "求加速度。 (结果以$ \\mathrm{\\;m}/{\\mathrm{s}}^{2} $为单位，保留2位有效数字)",
    "s-1": "求频率。 (结果以$ \\mathrm{\\;s}^{-1} $为单位，保留2位有效数字)",
    "deg": "求仰角。 (结果以$ { \\circ $为单位，保留1位有效数字)",
    "pct": "Find the efficiency. Give the answer in %.",
    "prose": "A block slides down. Find the speed in km/s.",
    "kgm3": "求密度。 (结果以$ \\mathrm{\\;{kg}}/{\\mathrm{m}}^{3} $为单位，保留2位有效数字)",
}

# value, and the unit the value is in (the reference is written in the question's unit)
VALUES = [
    "0", "1", "2.97", "-50", "0.00052", "3.14159", "123456", "6.02 \\times 10^{23}", "1.4 \\times 10^{-2}",
    "6.6 \\times 10^{-34}", "1.0 \\times 10^{-34}", "9.81", "-273.15", "100", "1.5", "4.2 \\times 10^{5}", "0.99",
]

UNITS = [
    "", "\\,\\mathrm{m}", " m", "\\ \\mathrm{km/s}", "\\,\\mathrm{m/s}", "\\,\\mathrm{m\\,s^{-1}}", "\\text{ J}",
    "\\,\\mathrm{MeV}", " eV", "\\,\\mathrm{keV}", "\\,^{\\circ}\\mathrm{C}", " ℃", "\\,\\mathrm{K}", "\\%", " %",
    "\\,\\mu\\mathrm{A}", "\\,\\mathrm{mA}", "\\,\\mathrm{cm}", "\\,\\mathrm{mm}", "\\,\\mathrm{nm}", "\\,\\text{\\AA}",
    "\\,\\mathrm{Pa}", "\\,\\mathrm{atm}", "\\,\\mathrm{kPa}", "\\,\\mathrm{mmHg}", "\\,\\mathrm{m/s^2}",
    "\\,\\mathrm{s^{-1}}", "\\,\\mathrm{Hz}", "\\,\\mathrm{kHz}", "\\,\\mathrm{rad}", "^{\\circ}", "°",
    "\\,\\mathrm{kg/m^3}", "\\,\\mathrm{g/cm^{3}}", "\\,\\mathrm{kg\\cdot m/s}", "\\,\\mathrm{J/(kg\\,K)}",
    "\\,\\mathrm{min}", "\\,\\mathrm{h}", " fringes", " 条", "\\,\\mathrm{dB}", "\\,\\mathrm{J/^{\\circ}C}",
    "\\,\\mathrm{km\\,h^{-1}}", "\\,\\Omega", "\\,\\mathrm{k\\Omega}", " N", "\\,\\mathrm{N\\cdot m}", " kWh",
]


def _spellings(value: str) -> list[str]:
    """The ways a model writes one number."""
    if "\\times" in value:
        mant, exp = value.split("\\times 10^{")
        mant, exp = mant.strip(), exp.rstrip("}")
        return [value, f"{mant}\\times10^{{{exp}}}", f"{mant} \\cdot 10^{{{exp}}}", f"{mant}e{exp}",
                f"{mant}E{int(exp):+03d}", f"{mant} × 10^{exp}" if len(exp.lstrip('-')) == 1 else f"{mant} × 10^{{{exp}}}",
                f"{mant}*10^{exp}", f"{{{mant}}} \\times {{10}}^{{{exp}}}", f"{mant}\\mathrm{{e}}{{{exp}}}"]
    out = [value, f" {value} ", f"{value}.", f"+{value}" if not value.startswith("-") else f"- {value[1:]}"]
    number = Fraction(value)
    if abs(number) >= 1000 and number.denominator == 1:
        text = f"{int(number):,}"
        out += [text, text.replace(",", "{,}"), text.replace(",", "\\,")]
    if "." in value:
        out.append(value + "0")
    return out


def _wrappers(answer: str) -> list[str]:
    return [
        f"Therefore $$\\boxed{{{answer}}}$$",
        f"So $v = \\boxed{{v = {answer}}}$.",
        f"**Final answer:** {answer}",
        f"<think>try \\boxed{{7}}</think> The result is \\boxed{{{answer}}}",
        f"\\boxed{{\\approx {answer}}}",
    ]


def rows(limit: int | None = None) -> list[tuple[str, str, str]]:
    """``(response, reference, question)`` rows: every value in every spelling, unit, wrapper and question.

    Crossing everything would be about a million rows; the table walks the product with strides
    that keep every spelling, unit, wrapper and question represented many times over.
    """
    out: list[tuple[str, str, str]] = []
    questions = list(QUESTIONS.values())
    i = 0
    for value in VALUES:
        for spelling in _spellings(value):
            for u, unit in enumerate(UNITS):
                wrapper = _wrappers(spelling + unit)[(i + u) % 5]
                for q in range(3):
                    question = questions[(i * 7 + u * 3 + q * 5) % len(questions)]
                    reference = VALUES[(i + q) % len(VALUES)] if q == 2 else value
                    out.append((wrapper, reference, question))
                i += 1
    # special forms the fast paths must pass on to the general path untouched
    specials = [
        "\\frac{1}{2}", "\\sqrt{2}", "2\\pi", "3 + 4", "2^{10}", "10^{-3}", "\\pm 3", "(1, 2)", "5 \\text{ or } 5.0",
        "5 \\text{ or } 7", "x = 3", "v_0", "2x", "10^{10^{10}}", "1e400", "\\text{approximately } 12", "\\text{4}",
        "1.4 \\times 10^{-2} \\mathrm{kg}", "3 \\times 10^8 m/s", "1,000", "12{,}345.6", "3{,}14", "\\mathrm{e}^{2}",
        "e^{2}", "- 50", "−1.2×10⁻³", "2.0\u2009×\u200910^{4}", "1\u00a0000", "0.5 rad", "30^\\circ", "5\\%",
        "\\dfrac{\\sqrt{3}}{2}\\,\\mathrm{m/s}", "1.5 \\times 10^{3}\\,\\mathrm{J/(kg\\cdot K)}", "3.0E+08",
    ]
    for s, special in enumerate(specials):
        for q, question in enumerate(questions):
            if (s + q) % 3 == 0:
                out.append((f"\\boxed{{{special}}}", VALUES[(s + q) % len(VALUES)], question))
    return list(islice(out, limit)) if limit else out
