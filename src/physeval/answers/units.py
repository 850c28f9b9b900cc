"""Physical units: LaTeX unit markup -> pint units, conversions, and a question's format demands.

Answers write units as LaTeX (``\\mathrm{m\\,s^{-1}}``, ``\\mu\\mathrm{A}``, ``^\\circ\\mathrm{C}``)
or plain text (``km/h``, ``eV``). :func:`parse_unit` turns either into a pint unit (cached);
:func:`conversion` gives the affine map between two units so temperatures with offsets
(degC <-> K) convert correctly. :func:`required_format` reads what an ABench question
asks for: the unit, the number of significant figures and whether scientific notation is
required, from the English or Chinese instruction at the end of the question.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

__all__ = [
    "RequiredFormat",
    "UnitConversion",
    "normalize_unit_text",
    "parse_unit",
    "conversion",
    "required_format",
    "registry",
]

# Unit spellings that pint reads differently from physics usage, or that need a name.
_ALIASES = {
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
    "kmh": "km/hour",
    "kph": "km/hour",
    "mph": "mile/hour",
    "deg": "degree",
    "degrees": "degree",
    "arcmin": "arcminute",
    "arcsec": "arcsecond",
    "eV": "electron_volt",
}

# Single symbols an ABench question sometimes states as a "unit" although they are a quantity's
# name left over from the source text (``{\prime``, ``\mathrm{E}``, ...). They are kept as text
# but never used to convert.
_UNTRUSTED_REQUIRED = frozenset(
    {"e", "E", "n", "p", "P", "B", "D", "fc", "kl", "arcminute", "arcsecond", "alpha"}
)

# Chinese unit names, longest first so that 千米 is not read as 千 + 米.
_CJK_UNITS = sorted(
    {
        "千米": "km", "公里": "km", "厘米": "cm", "毫米": "mm", "微米": "µm", "纳米": "nm", "米": "m",
        "毫秒": "ms", "微秒": "µs", "秒": "s", "分钟": "min", "小时": "hour", "天": "day",
        "千克": "kg", "公斤": "kg", "毫克": "mg", "克": "g", "焦耳": "J", "千焦": "kJ", "焦": "J",
        "电子伏特": "eV", "电子伏": "eV", "兆电子伏": "MeV", "伏特": "V", "伏": "V", "毫安": "mA",
        "安培": "A", "安": "A", "欧姆": "Ω", "欧": "Ω", "牛顿": "N", "牛": "N", "瓦特": "W", "瓦": "W",
        "千瓦": "kW", "开尔文": "K", "开": "K", "摄氏度": "degC", "度": "degree", "弧度": "rad",
        "赫兹": "Hz", "赫": "Hz", "帕斯卡": "Pa", "帕": "Pa", "特斯拉": "T", "库仑": "C", "库": "C",
        "法拉": "F", "亨利": "H", "升": "L", "毫升": "mL", "大气压": "atm", "米每秒": "m/s",
    }.items(),
    key=lambda kv: -len(kv[0]),
)
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


_REGISTRY: Any = None
_REGISTRY_LOCK = threading.Lock()


def registry() -> Any:
    """The shared pint ``UnitRegistry``, built once on first use (~0.3 s) under a lock.

    Thread-safe: units from two registries cannot be combined, so concurrent first calls must
    all get the same object (double-checked locking).
    """
    global _REGISTRY
    if _REGISTRY is None:
        with _REGISTRY_LOCK:
            if _REGISTRY is None:
                import pint

                ureg = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
                ureg.define("cmHg = 10 * mmHg")
                _REGISTRY = ureg
    return _REGISTRY


@lru_cache(maxsize=4096)
def normalize_unit_text(text: str) -> str:
    """LaTeX or plain unit text -> a pint expression string (``""`` when nothing is left).

    ``\\mathrm{m\\,s^{-1}}`` -> ``m*s**-1``; ``\\mu\\mathrm{A}`` -> ``µA``; ``^\\circ\\mathrm{C}`` ->
    ``degC``; ``J/kg K`` -> ``J/(kg*K)`` (after a single ``/`` the rest is the denominator).
    """
    s = text.strip().strip("$").strip()
    if _CJK.search(s):
        for zh, en in _CJK_UNITS:
            s = s.replace(zh, f" {en} ")
        s = s.replace("每", "/")
    s = s.replace("\\left", "").replace("\\right", "").replace("\\dfrac", "\\frac")
    s = re.sub(r"\\[lr]brack(?:et)?\b|[\[\]|]", " ", s)
    s = re.sub(r"\\[lr]brack\b|\\[lr]bracket\b|[\[\]]", " ", s)
    s = _LATEX_SPACES.sub(" ", s)
    s = _WRAPPERS.sub("", s)
    s = s.replace("\\%", " percent ").replace("%", " percent ").replace("‰", " permille ")
    s = _DEG_C.sub(" degC ", s)
    s = _DEG_F.sub(" degF ", s)
    s = _DEG.sub(" degree ", s)
    s = _PRIME2.sub(" arcsecond ", s)
    s = _PRIME.sub(" arcminute ", s)
    s = re.sub(r"\\(?:mathring\{\s*A\s*\}|AA|angstrom)|Å|\\mathring\s*A", " angstrom ", s)
    s = re.sub(r"\\(?:Omega|ohm)\b|Ω|Ω", "Ω", s)
    s = re.sub(r"\\(?:mu|micro)\b\s*|μ|µ", "µ", s)
    s = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", s)
    s = re.sub(r"\\(?:cdot|times|bullet|ast)\b|[·⋅×•]", "*", s)
    s = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+", lambda m: "^{" + m.group(0).translate(_SUPERSCRIPTS) + "}", s)
    s = _EXPONENT.sub(lambda m: "**" + re.sub(r"\s+", "", (m.group(1) or m.group(2) or m.group(3))).replace("−", "-"), s)
    s = s.replace("{", " ").replace("}", " ").replace("\\", " ")
    s = re.sub(r"µ\s+", "µ", s)
    s = re.sub(r"\s*\*\*\s*", "**", s)
    s = re.sub(r"\s*([*/])\s*", r"\1", s).strip()
    s = re.sub(r"\s+", " ", s)
    s = _JUXTAPOSE.sub("*", s)
    if s.count("/") == 1 and "(" not in s:
        num, den = s.split("/")
        if "*" in den.replace("**", ""):
            s = f"{num}/({den})"
    return s.strip("*").strip()


def _pint_tokens(expr: str) -> str:
    return re.sub(r"[A-Za-zµΩ_]+", lambda m: _ALIASES.get(m.group(0), m.group(0)), expr)


@lru_cache(maxsize=4096)
def parse_unit(text: str) -> Any | None:
    """The pint unit written in ``text`` (LaTeX or plain), or ``None`` when it is not a unit.

    A bare number or an empty string is not a unit. Cached: answers repeat the same units.
    """
    expr = normalize_unit_text(text)
    if not expr or not _UNIT_CHARS.match(expr) or not re.search(r"[A-Za-zµΩ]", expr):
        return None
    try:
        unit = registry().parse_units(_pint_tokens(expr))
    except Exception:  # pint raises many types (UndefinedUnitError, DefinitionSyntaxError, ...)
        return None
    return unit


@dataclass(frozen=True)
class UnitConversion:
    """An affine map ``y = scale * x + offset`` between two units (exact fractions)."""

    scale: Fraction
    offset: Fraction

    def apply(self, value: Fraction) -> Fraction:
        """``value`` converted."""
        if self.offset == 0:
            return value * self.scale if self.scale != 1 else value
        return value * self.scale + self.offset


def _fraction(x: float) -> Fraction:
    return Fraction(repr(float(x)))


@lru_cache(maxsize=4096)
def conversion(src: Any, dst: Any) -> UnitConversion | None:
    """How to convert a value in unit ``src`` to unit ``dst``; ``None`` if the dimensions differ.

    Scale factors come from pint in double precision and are kept as the shortest decimal
    that round-trips, so ``km -> m`` is exactly 1000. Offsets (degC, degF) are handled.
    """
    if src == dst:
        return UnitConversion(Fraction(1), Fraction(0))
    ureg = registry()
    try:
        if ureg.Quantity(1, src).dimensionality != ureg.Quantity(1, dst).dimensionality:
            return None
        zero = ureg.Quantity(0, src).to(dst).magnitude
        one = ureg.Quantity(1, src).to(dst).magnitude
    except Exception:
        return None
    return UnitConversion(_fraction(one) - _fraction(zero), _fraction(zero))


@dataclass(frozen=True)
class RequiredFormat:
    """What a question demands of its answer.

    Attributes:
        unit: The required unit as the question writes it (cleaned LaTeX), or ``None``.
        sig_figs: The required number of significant figures, or ``None``.
        scientific: Whether scientific notation is required.
        instruction: The instruction text the facts were read from (``""`` if none).
    """

    unit: str | None = None
    sig_figs: int | None = None
    scientific: bool = False
    instruction: str = ""

    @property
    def pint_unit(self) -> Any | None:
        """The required unit as a pint unit, or ``None`` if absent, not a unit, or untrusted."""
        return required_pint_unit(self.unit) if self.unit else None


@lru_cache(maxsize=1024)
def required_pint_unit(unit_text: str) -> Any | None:
    """A question's stated unit as pint, refusing the source-text leftovers ABench contains."""
    expr = normalize_unit_text(unit_text)
    doubled = re.fullmatch(r"(\w+)\*\1", expr)
    if doubled:  # ``\mathrm{N}}{\mathrm{N}}``: a duplicated token in the source text
        return parse_unit(doubled.group(1))
    if not expr or expr in _UNTRUSTED_REQUIRED or "arcminute" in expr or "arcsecond" in expr:
        return None
    return parse_unit(unit_text)


_INSTRUCTION = re.compile(
    r"[(（]\s*(?:结果|Results?\s+should)(?P<body>[^()（）]*?(?:\([^()]*\)[^()（）]*?)*)[)）]\s*$",
    re.IGNORECASE | re.DOTALL,
)
_INSTRUCTION_LOOSE = re.compile(
    r"(?:结果|Results?\s+should\s+be)(?P<body>.{0,300}?(?:有效数字|significant\s+figures?|位小数|decimal))",
    re.IGNORECASE | re.DOTALL,
)
_UNIT_ZH = re.compile(r"以\s*\$(?P<u>.*?)\$\s*为单位", re.DOTALL)
_UNIT_ZH_PLAIN = re.compile(r"以\s*(?P<u>[^$，,、]{1,20}?)\s*为单位")
_UNIT_EN = re.compile(r"(?:with\s+)?units?\s+of\s*\$(?P<u>.*?)\$", re.IGNORECASE | re.DOTALL)
_UNIT_EN_PLAIN = re.compile(r"(?:with\s+)?units?\s+of\s+(?P<u>[^$,;)]{1,20}?)\s*(?:,|and\b|$)", re.IGNORECASE)
_SIG_ZH = re.compile(r"保留\s*(\d+)\s*位\s*有效数字")
_SIG_EN = re.compile(r"(\d+)\s*significant\s+(?:figures?|digits?)", re.IGNORECASE)
_SCI = re.compile(r"科学计数法|scientific\s+notation", re.IGNORECASE)


def _clean_required_unit(raw: str) -> str | None:
    unit = re.sub(r"\s+", " ", raw).strip()
    unit = re.sub(r"^\\[;,: ]\s*", "", unit).strip()
    return unit or None


@lru_cache(maxsize=4096)
def required_format(question: str) -> RequiredFormat:
    """Read the unit, significant figures and scientific-notation demand from a question.

    ABench ends each question with ``(Results should be expressed [in scientific notation, ]
    [with units of $ UNIT $,] and rounded to N significant figures)`` or
    ``(结果[使用科学计数法，][以$ UNIT $为单位，]保留N位有效数字)``. A question without such
    an instruction gives an empty :class:`RequiredFormat`.
    """
    if not question:
        return RequiredFormat()
    tail = question[-600:]
    match = _INSTRUCTION.search(tail) or _INSTRUCTION_LOOSE.search(tail)
    if match is None:
        return RequiredFormat()
    body = match.group(0)
    unit_match = _UNIT_ZH.search(body) or _UNIT_EN.search(body)
    if unit_match is None:
        unit_match = _UNIT_ZH_PLAIN.search(body) or _UNIT_EN_PLAIN.search(body)
    unit = _clean_required_unit(unit_match.group("u")) if unit_match else None
    sig = _SIG_ZH.search(body) or _SIG_EN.search(body)
    return RequiredFormat(
        unit=unit,
        sig_figs=int(sig.group(1)) if sig else None,
        scientific=bool(_SCI.search(body)),
        instruction=body.strip(),
    )
