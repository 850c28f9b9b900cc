"""Grading cases for the fresh-process thread test (see tests/_fresh_threads.py).

A mixed list touching every lazily built object on the grader paths: the answers' pint
registry (unit conversions with prefixes, Chinese unit names, offset temperatures), the ABench
compat mode (latex2sympy2 evaluation), the LaTeX parser configs, symbolic equivalence, EED and
the dimension check (its own registry until the units package unifies them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

KJ_ZH = "气体吸收的热量 Q。 (结果以$ \\mathrm{\\;kJ}  $为单位，保留3位有效数字)"
DEG_C_ZH = "气体的温度 t。 (结果以$ {}^{\\circ}\\mathrm{C} $为单位，保留3位有效数字)"
SPEED_EN = "Find the speed. (Results should be expressed with units of $\\mathrm{m/s}$, and rounded to 3 significant figures)"
ENERGY_EN = (
    "Find the photon energy. (Results should be expressed in scientific notation, with units of $\\mathrm{J}$, "
    "and rounded to 3 significant figures)"
)
TIME_EN = "How long? (Results should be expressed with units of $\\mathrm{s}$, and rounded to 2 significant figures)"

NUMERIC = [
    (r"\boxed{7.000000e+05\ \mathrm{\mathrm{\;J}}}", "700", KJ_ZH),  # the reported case
    (r"\boxed{0.7\,\mathrm{MJ}}", "700", KJ_ZH),
    (r"The heat is \boxed{7 \times 10^{5}\,\mathrm{J}}.", "700", KJ_ZH),
    (r"\boxed{\SI{7e5}{\joule}}", "700", KJ_ZH),
    (r"\boxed{7\times10^{5}焦耳}", "700", KJ_ZH),
    (r"\boxed{700 千焦}", "700", KJ_ZH),
    (r"\boxed{5\ \mathrm{m}}", "700", KJ_ZH),
    (r"\boxed{300\,\mathrm{K}}", "26.85", DEG_C_ZH),
    (r"\boxed{80.33\,^{\circ}\mathrm{F}}", "26.85", DEG_C_ZH),
    (r"\boxed{26.9 ℃}", "26.85", DEG_C_ZH),
    (r"\boxed{36\ \mathrm{km/h}}", "10.0", SPEED_EN),
    (r"\boxed{1000\ \mathrm{cm\,s^{-1}}}", "10.0", SPEED_EN),
    (r"\boxed{3.0 \times 10^{-19}\ \mathrm{J}}", "3.00 \\times 10^{-19}", ENERGY_EN),
    (r"\boxed{1.87\ \mathrm{eV}}", "3.00 \\times 10^{-19}", ENERGY_EN),
    (r"\boxed{1.2\ \mathrm{ms}}", "0.0012", TIME_EN),
    (r"\boxed{2\ \mathrm{min}}", "120", TIME_EN),
    (r"\boxed{\frac{\sqrt{2}}{2}\ \mathrm{s}}", "0.71", TIME_EN),
    ("no box at all", "120", TIME_EN),
    (r"\boxed{12 \pm 1}", "12", TIME_EN),
]

SYMBOLIC = [
    (r"\boxed{\frac{1}{2} m v^{2}}", r"\frac{m v^{2}}{2}"),
    (r"\boxed{\sqrt{2 g h}}", r"\sqrt{2gh}"),
    (r"\boxed{m g h}", r"\frac{1}{2} m g h"),
    (r"\boxed{2 \pi \sqrt{\frac{L}{g}}}", r"2\pi\sqrt{L/g}"),
    (r"\boxed{\frac{q^{2}}{4 \pi \epsilon_{0} r}}", r"\frac{q^2}{4\pi\epsilon_0 r^2}"),
    (r"\boxed{v_{0} t + \frac{1}{2} a t^{2}}", r"v_0 t+\frac{a t^2}{2}"),
]
DIMENSIONS = {"m": "mass", "v": "length/time", "g": "length/time**2", "h": "length", "L": "length"}


def cases() -> list[tuple[str, Callable[[], Any]]]:
    """Every case as (name, zero-argument grading call)."""
    from physeval.grading.eed import eed
    from physeval.grading.numeric import grade_numeric
    from physeval.grading.symbolic import grade_symbolic

    out: list[tuple[str, Callable[[], Any]]] = []
    for i, (response, reference, question) in enumerate(NUMERIC):
        out.append((f"numeric-{i}", lambda r=response, ref=reference, q=question: grade_numeric(r, ref, q)))
        out.append((f"abench-{i}", lambda r=response, ref=reference, q=question: grade_numeric(r, ref, q, compat="abench")))
    for i, (response, reference) in enumerate(SYMBOLIC):
        out.append((f"symbolic-{i}", lambda r=response, ref=reference: grade_symbolic(r, ref, dimensions=DIMENSIONS)))
        answer = response[len("\\boxed{"):-1]
        out.append((f"eed-{i}", lambda a=answer, ref=reference: eed(ref, a)))
        out.append((f"eed-phybench-{i}", lambda a=answer, ref=reference: eed(ref, a, compat="phybench")))
    return out


def verdict(result: Any) -> Any:
    """Everything a grade says (outcome, reason, values), as JSON."""
    import dataclasses

    return dataclasses.asdict(result) if not hasattr(result, "to_dict") else result.to_dict()
