"""Reading units as people write them: LaTeX, plain text and Chinese unit names -> pint.

Why one reader: the numeric grader reads the unit after an answer's number, the question's
required unit, and the plain-problem converter reads the unit after every number of a
question; one normaliser and one alias table serve all three, so a spelling fixed here is
fixed everywhere. ``\\mathrm{m\\,s^{-1}}`` -> ``m*s**-1``; ``\\mu\\mathrm{A}`` -> ``µA``;
``^\\circ\\mathrm{C}`` -> ``degC``; ``J/kg K`` -> ``J/(kg*K)``; ``千米每小时`` -> ``km/h``.

:func:`normalize_unit_text` gives the pint expression text, :func:`parse_unit` the pint unit
(from the shared registry, cached), and :func:`pint_unit_string` the same as a plain ASCII
string (``uA``, ``kohm``) for templates. :data:`CJK_UNITS` is the one table of Chinese unit
names; :data:`CJK_UNITS_AFTER_NUMBERS` is the part of it that is safe to read in running
prose right after a number (``开`` is kelvin in a unit slot but "open" in a sentence).
The bug-compatible unit stripping of the official ABench evaluator is not here: it lives in
:mod:`physeval.grading.compat.abench`, on purpose apart.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from physeval.units.convert import unit_to_si
from physeval.units.dimension import unit_dimension
from physeval.units.registry import registry
from physeval.units.table import read_table_unit
from physeval.units.unit import Unit

__all__ = [
    "BARE_UNITS_AFTER_NUMBERS",
    "CJK_UNITS",
    "CJK_UNITS_AFTER_NUMBERS",
    "TOKEN_ALIASES",
    "format_unit",
    "normalize_unit_text",
    "parse_unit",
    "pint_unit_string",
    "read_unit",
    "unit_expression",
]

TOKEN_ALIASES = {
    "Gs": "gauss",
    "degC": "degC",
    "degF": "degF",
    "ohm": "ohm",
    "Ohm": "ohm",
    "mho": "siemens",
    "hour": "hour",
    "hr": "hour",
    "hrs": "hour",
    "sec": "second",
    "secs": "second",
    "mins": "minute",
    "amu": "dalton",
    "Da": "dalton",
    "ly": "light_year",
    "AU": "astronomical_unit",
    "au": "astronomical_unit",
    "pc": "parsec",
    "Torr": "torr",
    "cc": "cm**3",
    "L": "liter",
    "mL": "milliliter",
    "ml": "milliliter",
    "rpm": "revolution/minute",
    "r": "revolution",  # "r/min", "\\mathrm{r}/\\mathrm{min}": revolutions (read only where pint finds no unit)
    "kmh": "km/hour",
    "kph": "km/hour",
    "mph": "mile/hour",
    "deg": "degree",
    "degrees": "degree",
    "arcmin": "arcminute",
    "arcsec": "arcsecond",
    "eV": "electron_volt",
}
"""Unit spellings that pint reads differently from physics usage, or that need a name."""

_CJK_TABLE = {
    "千米": "km", "公里": "km", "厘米": "cm", "毫米": "mm", "微米": "um", "纳米": "nm", "米": "m",
    "平方厘米": "cm**2", "立方厘米": "cm**3", "平方米": "m**2", "立方米": "m**3",
    "毫秒": "ms", "微秒": "us", "秒": "s", "分钟": "min", "小时": "h", "天": "day",
    "千克": "kg", "公斤": "kg", "毫克": "mg", "克": "g", "焦耳": "J", "千焦": "kJ", "焦": "J",
    "电子伏特": "eV", "电子伏": "eV", "兆电子伏": "MeV", "伏特": "V", "千伏": "kV", "伏": "V",
    "毫安": "mA", "安培": "A", "安": "A", "欧姆": "ohm", "欧": "ohm", "牛顿": "N", "牛": "N",
    "瓦特": "W", "瓦": "W", "千瓦": "kW", "开尔文": "K", "开": "K", "摄氏度": "degC", "度": "degree",
    "弧度": "rad", "赫兹": "Hz", "赫": "Hz", "帕斯卡": "Pa", "千帕": "kPa", "帕": "Pa", "特斯拉": "T",
    "毫特": "mT", "韦伯": "Wb", "库仑": "C", "库": "C", "法拉": "F", "亨利": "H", "升": "L", "毫升": "mL",
    "大气压": "atm", "标准大气压": "atm", "个标准大气压": "atm", "个大气压": "atm", "百帕": "hPa", "毫米汞柱": "mmHg",
    "摩尔": "mol", "米每秒": "m/s",
}
CJK_UNITS: tuple[tuple[str, str], ...] = tuple(sorted(_CJK_TABLE.items(), key=lambda kv: -len(kv[0])))
"""Chinese unit names -> pint spelling, longest first (so 千米 is not read as 千 + 米)."""

CJK_UNITS_AFTER_NUMBERS: tuple[tuple[str, str], ...] = tuple(
    (zh, en) for zh, en in CJK_UNITS
    if zh not in {"天", "毫克", "微秒", "兆电子伏", "开", "摄氏度", "弧度", "赫", "法拉", "亨利", "米每秒"}
)
"""The Chinese unit names read in prose right after a number (unambiguous there), longest first."""

BARE_UNITS_AFTER_NUMBERS = frozenset({
    "m", "cm", "mm", "km", "nm", "um", "pm", "s", "ms", "us", "ns", "min", "h", "kg", "g", "mg",
    "N", "kN", "J", "kJ", "MJ", "eV", "keV", "MeV", "GeV", "W", "kW", "MW", "V", "kV", "mV", "A",
    "mA", "uA", "C", "uC", "nC", "pC", "F", "uF", "nF", "pF", "H", "mH", "T", "mT", "Hz", "kHz",
    "MHz", "GHz", "Pa", "hPa", "kPa", "MPa", "atm", "mmHg", "K", "mol", "L", "mL", "rad", "ohm", "Wb", "dB", "r",
})
"""English unit symbols read bare (outside ``\\mathrm``) in prose right after a number; other words end the unit."""

_CJK = re.compile(r"[\u4e00-\u9fff]")

_LATEX_SPACES = re.compile(r"\\[,;:!> ]|\\quad|\\qquad|~|\\hspace\{[^}]*\}|[\u00a0\u2009\u202f\u2002-\u2008]")
_WRAPPERS = re.compile(r"\\(?:mathrm|text|textrm|operatorname|mathit|mathsf|rm|mbox|unit|si)\b\s*")
_DEG_C = re.compile(r"(?:\{\s*\}\s*)?(?:\^\s*)?\{?\s*\\circ\s*\}?\s*\{?\s*C\b\}?|°\s*C\b|℃|\\degree\s*C\b|\\celsius")
_DEG_F = re.compile(r"(?:\^\s*)?\{?\s*\\circ\s*\}?\s*\{?\s*F\b\}?|°\s*F\b|℉")
_DEG = re.compile(r"(?:\{\s*\}\s*)?\^?\s*\{?\s*\\circ\s*\}?|°|\\degree")
_PRIME2 = re.compile(r"(?:\^\s*\{?\s*)?(?:\\prime\s*\\prime|'')\}?|″|\\second\b")
_PRIME = re.compile(r"(?:\^\s*\{?\s*)?\\prime\s*\}?|′|'")
_EXPONENT = re.compile(r"\^\s*\{\s*([+\-−]?\s*\d+(?:\.\d+)?)\s*\}|\^\s*([+\-−]?\d+)|\*\*\s*\(?\s*([+\-−]?\d+)\s*\)?")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_JUXTAPOSE = re.compile(r"(?<=[A-Za-zµΩ_)\d])\s+(?=[A-Za-zµΩ(])|(?<=[A-Za-zµΩ_)])(?=\()")
_UNIT_CHARS = re.compile(r"^[A-Za-zµΩ_*/()\d.\-+ ]+$")
_WS = re.compile(r"\s+")
_BRACKETS = re.compile(r"\\[lr]brack(?:et)?\b|[\[\]|]")
_ANGSTROM = re.compile(r"\\(?:mathring\{\s*A\s*\}|AA|angstrom)|Å|\\mathring\s*A")
_OHM = re.compile(r"\\(?:Omega|ohm)\b|Ω|Ω")
_MICRO = re.compile(r"\\(?:mu|micro)\b\s*|μ|µ")
_FRACTION = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_PRODUCT = re.compile(r"\\(?:cdot|times|bullet|ast)\b|[·⋅×•]")
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_MICRO_SPACE = re.compile(r"µ\s+")
_POWER_OP = re.compile(r"\s*\*\*\s*")
_MUL_DIV = re.compile(r"\s*([*/])\s*")
_NAME = re.compile(r"[A-Za-zµΩ_]+")
_LETTER = re.compile(r"[A-Za-zµΩ]")


def _exponent(match: re.Match[str]) -> str:
    power = match.group(1) or match.group(2) or match.group(3)
    return "**" + _WS.sub("", power).replace("−", "-")


@lru_cache(maxsize=4096)
def normalize_unit_text(text: str) -> str:
    """LaTeX, plain or Chinese unit text -> a pint expression string (``""`` when nothing is left).

    ``\\mathrm{m\\,s^{-1}}`` -> ``m*s**-1``; ``\\mu\\mathrm{A}`` -> ``µA``; ``^\\circ\\mathrm{C}`` ->
    ``degC``; ``J/kg K`` -> ``J/(kg*K)`` (after a single ``/`` the rest is the denominator).
    """
    s = text.strip().strip("$").strip()
    if _CJK.search(s):
        for zh, en in CJK_UNITS:
            s = s.replace(zh, f" {en} ")
        s = s.replace("每", "/")
    s = s.replace("\\left", "").replace("\\right", "").replace("\\dfrac", "\\frac")
    s = _BRACKETS.sub(" ", s)
    s = _LATEX_SPACES.sub(" ", s)
    s = _WRAPPERS.sub("", s)
    s = s.replace("\\%", " percent ").replace("%", " percent ").replace("‰", " permille ")
    s = _DEG_C.sub(" degC ", s)
    s = _DEG_F.sub(" degF ", s)
    s = _DEG.sub(" degree ", s)
    s = _PRIME2.sub(" arcsecond ", s)
    s = _PRIME.sub(" arcminute ", s)
    s = _ANGSTROM.sub(" angstrom ", s)
    s = _OHM.sub("Ω", s)
    s = _MICRO.sub("µ", s)
    s = _FRACTION.sub(r"(\1)/(\2)", s)
    s = _PRODUCT.sub("*", s)
    s = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + m.group(0).translate(_SUPERSCRIPTS) + "}", s)
    s = _EXPONENT.sub(_exponent, s)
    s = s.replace("{", " ").replace("}", " ").replace("\\", " ")
    s = _MICRO_SPACE.sub("µ", s)
    s = _POWER_OP.sub("**", s)
    s = _MUL_DIV.sub(r"\1", s).strip()
    s = _WS.sub(" ", s)
    s = _JUXTAPOSE.sub("*", s)
    if s.count("/") == 1 and "(" not in s:
        num, den = s.split("/")
        if "*" in den.replace("**", ""):
            s = f"{num}/({den})"
    return s.strip("*").strip()


def _pint_tokens(expr: str) -> str:
    return _NAME.sub(lambda m: TOKEN_ALIASES.get(m.group(0), m.group(0)), expr)


@lru_cache(maxsize=4096)
def unit_expression(text: str) -> str | None:
    """The pint expression ``text`` is read as (normalised, aliases spelled out), or ``None`` if no unit can be.

    A bare number or an empty string is not a unit.
    """
    expr = normalize_unit_text(text)
    if not expr or not _UNIT_CHARS.match(expr) or not _LETTER.search(expr):
        return None
    return _pint_tokens(expr)


@lru_cache(maxsize=4096)
def parse_unit(text: str) -> Any | None:
    """The pint unit written in ``text`` (LaTeX, plain or Chinese), or ``None`` when it is not a unit.

    A bare number or an empty string is not a unit. Cached: answers repeat the same units.
    """
    expr = unit_expression(text)
    if expr is None:
        return None
    try:
        unit = registry().parse_units(expr)
    except Exception:  # noqa: BLE001 - pint raises many types (UndefinedUnitError, DefinitionSyntaxError, ...)
        return None
    return unit


@lru_cache(maxsize=4096)
def read_unit(text: str) -> Unit | None:
    """The unit written in ``text`` as a :class:`~physeval.units.unit.Unit`, or ``None`` when it is not a unit.

    The same reading as :func:`parse_unit` (a unit exactly when pint reads one, equal to pint's
    unit), without pint for the units of the shipped table (:mod:`physeval.units.table`).
    """
    expr = unit_expression(text)
    if expr is None:
        return None
    unit = read_table_unit(expr)
    if unit is not None:
        return unit
    pint_unit = parse_unit(text)
    return Unit.from_pint(pint_unit, expr) if pint_unit is not None else None


_UNIT_COMMANDS = re.compile(
    r"\\(?![,;:!> %]|(?:mathrm|text|textrm|rm|mathit|mathsf|operatorname|mbox|unit|si|left|right|[lr]brack(?:et)?"
    r"|quad|qquad|thinspace|hspace|cdot|times|bullet|ast|circ|degree|celsius|prime|second|mu|micro|Omega|ohm"
    r"|AA|angstrom|mathring|d?frac)(?![A-Za-z]))"
)


def format_unit(unit: Any) -> str:
    """A pint unit in pint's short form: ``km / h``, ``A / cm ** 2``, ``°C``."""
    return f"{unit:~}"


@lru_cache(maxsize=4096)
def pint_unit_string(text: str) -> str | None:
    """The unit written in ``text`` as a plain ASCII pint string (``m/s**2``, ``uA``, ``kohm``, ``degC``), or ``None``.

    The same reading as :func:`parse_unit`, spelled for templates and their YAML (``µ`` is
    written ``u``, ``Ω`` ``ohm``; aliases are spelled out only where pint needs them), and
    stricter, because it reads prose after a number: a LaTeX command that is not unit markup
    (``\\alpha``, a cut-off ``\\mat``) means "not a unit", ``/cm^{3}`` is per cubic centimetre,
    and the unit must convert to SI.
    """
    if _UNIT_COMMANDS.search(text):
        return None
    expr = normalize_unit_text(text)
    if not expr or not _UNIT_CHARS.match(expr) or not _LETTER.search(expr):
        return None
    expr = expr.replace("µ", "u").replace("Ω", "ohm")
    if expr.startswith("/"):
        expr = "1" + expr
    try:
        registry().parse_units(expr)
    except Exception:  # noqa: BLE001 - a spelling only the aliases make readable
        expr = _pint_tokens(expr)
    try:
        registry().parse_units(expr)
        unit_dimension(expr)
        unit_to_si(expr)
    except Exception:  # noqa: BLE001 - pint's errors and UnitError alike: not a unit
        return None
    return expr
