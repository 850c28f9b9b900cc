"""The instruction that ends an ABench question: the unit and significant figures it asks for.

``(Results should be expressed in scientific notation, with units of $ m/s $,and rounded to 3
significant figures)`` and its Chinese forms (``(结果保留3位有效数字)``) are read by
:func:`read_instruction`; a fresh variant's answer is written as it says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from physeval.units import UnitError, unit_dimension
from physeval.units.reader import BARE_UNITS_AFTER_NUMBERS, CJK_UNITS_AFTER_NUMBERS, pint_unit_string

__all__ = ["Instruction", "latex_unit_to_pint", "read_instruction"]

_EN_INSTR = re.compile(
    r"\(\s*Results should be expressed(?P<sci>\s*in scientific notation\s*,)?"
    r"(?:\s*with units of\s*\$(?P<unit>[^$]*)\$\s*,)?\s*and rounded to\s*(?P<n>\d+)\s*significant figures?\s*\)\s*$",
    re.I,
)


_ZH_INSTR = re.compile(
    r"\(\s*结果(?P<sci>使用科学计数法\s*[，,])?(?:\s*以\s*\$(?P<unit>[^$]*)\$\s*为单位\s*[，,])?\s*保留\s*(?P<n>\d+)\s*位有效数字\s*\)\s*$"
)


_PER_VOLUME = re.compile(r"每立方|每单位体积|单位体积内|浓度|per (?:cubic|unit volume)|number density|concentration",
                         re.I)


@dataclass(frozen=True)
class Instruction:
    """The ``(Results should be ...)`` / ``(结果...)`` instruction at the end of a question."""

    start: int
    text: str
    unit_latex: str = ""
    unit: str = ""
    sig_figs: int | None = None
    scientific: bool = False


def _is_volume(unit: str) -> bool:
    try:
        return dict(unit_dimension(unit)) == {"length": 3}
    except (UnitError, ValueError, TypeError):
        return False


def read_instruction(question: str) -> Instruction | None:
    """The final ABench instruction (English or Chinese) with its unit and figures, or None."""
    for pattern in (_EN_INSTR, _ZH_INSTR):
        match = pattern.search(question)
        if match:
            unit_latex = (match.group("unit") or "").strip()
            unit = latex_unit_to_pint(unit_latex) or "" if unit_latex else ""
            if unit in ("arcminute", "arcsecond") and unit_latex.count("{") != unit_latex.count("}"):
                unit = ""  # a garbled "{\prime" (unbalanced) is unreadable, not an arcminute ("{ \circ" stays degrees)
            if unit == "B":
                unit = ""  # "\mathrm{B}" renders 倍 ("times", a ratio): no byte is asked for in physics
            if unit and _PER_VOLUME.search(question[: match.start()]) and _is_volume(unit):
                unit = f"1/({unit})"  # "the number per cubic millimetre ... in units of mm^3" means per mm^3
            return Instruction(
                start=match.start(), text=match.group(0).strip(), unit_latex=unit_latex, unit=unit,
                sig_figs=int(match.group("n")), scientific=bool(match.group("sci")),
            )
    return None


_ZH_UNITS = CJK_UNITS_AFTER_NUMBERS  # the shared table's Chinese unit names read after a number, longest first


_BARE_UNITS = BARE_UNITS_AFTER_NUMBERS  # English unit words read bare in prose after a number


latex_unit_to_pint = pint_unit_string
"""A LaTeX unit (``\\mathrm{\\;m}/{\\mathrm{s}}^{2}``, ``\\mu \\mathrm{A}``, ``^{\\circ}C``) as a pint string, or None.

The shared reader :func:`physeval.units.pint_unit_string`, under this module's historical name."""
