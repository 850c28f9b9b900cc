"""Reading the numeric constants of a plain question: values, units, roles and names.

:func:`find_constants` reads every number of an ABench-style question with its unit, skipping
subscripts, unit exponents, indices, years and ordinals, and says whether it is a quantity, a
dimensionless datum or a coefficient of a formula (never varied). A constant written
``v_{\\mathrm{m}} = 3\\,\\mathrm{cm/s}`` is called ``v_m``; every constant is also ``c1``,
``c2``, ... in order of appearance.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from physeval.answers.written import NUMBER as _NUM
from physeval.answers.written import POWER_OF_TEN as _POW10
from physeval.answers.written import TIMES_TEN as _SCI
from physeval.answers.written import TIMES_TEN_BRACED as _SCI_BRACED

from .plain_instruction import _BARE_UNITS, _ZH_UNITS, latex_unit_to_pint, read_instruction
from .solution import SOLUTION_FUNCTIONS
from .writing import sig_figs_of

__all__ = ["Constant", "RESERVED", "Role", "find_constants", "sanitize"]

Role = Literal["quantity", "number", "coefficient"]


@dataclass(frozen=True)
class Constant:
    """A numeric constant found in a question.

    Attributes:
        name: Identifier from the symbol it is assigned to (``v_m``), else the alias.
        alias: ``c1``, ``c2``, ... in order of appearance.
        value: The value as written (``1.49 \\times 10^{-18}`` -> 1.49E-18).
        text: The number exactly as written; ``start``/``end`` its span in the question.
        unit: pint unit string (``""`` when none or unreadable); ``unit_text`` as written.
        role: ``quantity`` (has a unit), ``number`` (a dimensionless datum, ``7.85 times``),
            ``coefficient`` (part of a formula: ``4t``, ``l/4``, ``\\frac{1}{2}``; never perturbed).
        symbol: The LaTeX symbol it is assigned to, if any.
    """

    name: str
    alias: str
    value: Decimal
    text: str
    start: int
    end: int
    unit: str = ""
    unit_text: str = ""
    sig_figs: int = 1
    scientific: bool = False
    role: Role = "number"
    symbol: str | None = None

    @property
    def perturbable(self) -> bool:
        """Whether a variant may change it (quantities and data numbers, not 0, not coefficients)."""
        return self.role != "coefficient" and self.value != 0


_SUBSCRIPT_BEFORE = re.compile(r"(?:_\s*\{?\s*(?:\\mathrm\s*\{|\\text\s*\{)?\s*|_\{[^{}]*)$")


_EXPONENT_BEFORE = re.compile(r"(?:\^\s*\{?\s*[-−]?\s*|\^\{[^{}]*)$")


_FRAC_BEFORE = re.compile(r"\\[dt]?frac\s*(?:\{[^{}]*\}\s*)?\{[^{}]*$")


_INDEX_WORDS = re.compile(
    r"(?:\b(?:fig(?:ure)?|eq(?:uation)?|example|problem|question|part|step|no|case|item|section|chapter|table)\.?\s*\(?|[第图题式例表])\s*$",
    re.I,
)


_ORDINAL_AFTER = re.compile(r"^(?:st|nd|rd|th)\b|^\s*(?:年|次|号|届|世纪)")
_NTH_TIME_AFTER = re.compile(r"^\s*(?:秒|分钟|小时|天)(?:末|初|内|时)")


def _nth_second(before: str, after: str) -> bool:
    """``第2秒末`` (the end of the 2nd second) is a time of 2 s, a datum, not an index."""
    return before.rstrip().endswith("第") and bool(_NTH_TIME_AFTER.search(after))


_SYMBOL_BEFORE = re.compile(
    r"(?P<sym>(?:\\[A-Za-z]+\s*\{\s*[A-Za-z]+\s*\}|\\[A-Za-z]+|[A-Za-z])"
    r"(?:\s*_\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9]))?(?:\s*\^\s*\{?\\prime\}?)?)\s*=\s*\{?\s*$"
)


_INDEX_SYMBOLS = {"n", "i", "j", "k", "l", "m", "N"}


_FRACTION_OF_C = re.compile(r"\s*c(?![A-Za-z0-9_{^(\\])")


_INDEX_LIMIT = 20  # an integer this large assigned to n, N, ... is a count (turns, slits), not an index


_UNIT_IN_NEXT_MATH = re.compile(r"\s*\\\(\s*(\\(?:AA|mathring\s*\{\s*A\s*\}|mathrm\s*\{[^{}0-9]*\}|"
                                r"text\s*\{[^{}0-9]*\}))\s*\\\)")


_LATIN_AFTER_MATH = re.compile(r"\s*\\\)\s*([A-Za-z]+(?:/[A-Za-z]+)?)(?![A-Za-z0-9_/^{\\])")


def _unit_after(text: str, pos: int) -> tuple[str, str, int]:
    """(pint unit, unit text, end) of the unit written right after a number at ``pos``."""
    best = ("", "", pos)
    # candidate: the longest run of unit-looking material, then shrink until pint reads it
    run = re.match(
        r"(?:\s|\\[,;!: ]|~|\\quad)*"
        r"((?:\{?\\(?:mathrm|text|textrm|rm|operatorname)\s*\{(?:[^{}]|\{[^{}]*\})*\}\}?"
        r"|\{\\mathrm\s*\{(?:[^{}]|\{[^{}]*\})*\}\}"
        r"|\\mu\s*|µ|μ|\\Omega|Ω|\\AA(?![A-Za-z])|\\mathring\s*\{\s*A\s*\}|Å"
        r"|\^\s*\{?\s*\\circ\s*\}?|\^\s*°|\\circ|°|℃|\\%|%|\\prime"
        r"|\s*\^\s*\{\s*[-−]?\d+\s*\}|\s*\^\s*[-−]?\d"
        r"|\s*/\s*|\s*\\cdot\s*|\s*·\s*"
        r"|[A-Za-z]+"
        r"|" + "|".join(re.escape(z) for z, _ in _ZH_UNITS) +
        r"|(?:\\[,;!: ]|~|\s)(?=\\mathrm|\\text|[A-Za-z])"
        r")+)",
        text[pos:],
    )
    if not run or not run.group(1).strip():
        zh = re.match(r"\s*\\\)\s*(" + "|".join(re.escape(z) for z, _ in _ZH_UNITS) + r")", text[pos:])
        if zh:  # "\( 1.6 \times 10^{-19} \) 库仑": a Chinese unit word after the math
            return dict(_ZH_UNITS)[zh.group(1)], zh.group(1), pos + zh.end()
        math = _UNIT_IN_NEXT_MATH.match(text, pos)
        if math:  # "6328\(\AA\)": the unit alone in the next inline math, as LaTeX markup
            unit = latex_unit_to_pint(math.group(1))
            if unit:
                return unit, math.group(1).strip(), math.end(1)
        latin = _LATIN_AFTER_MATH.match(text, pos)
        # "\( P_0 = 1 \) atm", "\( R = 6.4 \times 10^{6} \) m"
        if latin and all(part in _BARE_UNITS for part in latin.group(1).split("/")):
            unit = latex_unit_to_pint(latin.group(1))
            if unit:
                return unit, latin.group(1), latin.end(1)
        return best
    body = run.group(1)
    offset = pos + run.start(1)
    # cut at the first bare word that is not a unit (English prose after the number)
    pieces = re.finditer(r"[A-Za-z]+", body)
    cut = len(body)
    for piece in pieces:
        word = piece.group(0)
        inside = body[: piece.start()].count("{") > body[: piece.start()].count("}")
        prev = body[: piece.start()]
        if inside or re.search(r"\\$", prev) or prev.endswith(("\\mathrm", "\\text", "\\rm")):
            continue
        if re.search(r"\\[A-Za-z]*$", prev):
            continue
        if word in ("mathrm", "text", "textrm", "rm", "operatorname", "mu", "Omega", "circ", "cdot", "prime", "AA",
                    "mathring"):
            continue
        stripped = word[1:] if word.startswith("u") and prev.endswith(("\\mu", "µ", "μ")) else word
        if stripped not in _BARE_UNITS and word not in _BARE_UNITS:
            cut = piece.start()
            break
    body = body[:cut]
    for end in range(len(body), 0, -1):
        candidate = body[:end]
        if not candidate.strip() or candidate.rstrip().endswith(("/", "\\cdot", "^")):
            continue
        unit = latex_unit_to_pint(candidate)
        if unit:
            return unit, candidate.strip(), offset + len(candidate.rstrip())
    return best


def sanitize(symbol: str) -> str:
    """A LaTeX symbol as an identifier (``v_{\\mathrm{m}}`` -> ``v_m``, primes as ``p``)."""
    s = re.sub(r"\\(?:mathrm|text|mathcal|mathbf|mathit|rm|boldsymbol|vec|bar|hat|tilde)\s*", "", symbol)
    s = s.replace("\\prime", "p").replace("'", "p")
    s = re.sub(r"[{}\s\\]", "", s)
    s = re.sub(r"[^A-Za-z0-9_]", "", s)
    s = re.sub(r"_+", "_", s).strip("_")
    if s == "lambda":
        s = "lam"
    if not s or not s[0].isalpha():
        return ""
    return s


RESERVED = set(SOLUTION_FUNCTIONS) | {"answer", "Integer", "Float", "Rational", "Symbol"}


def find_constants(question: str) -> list[Constant]:
    """Every numeric constant of an ABench-style question, in order, with its unit and role.

    Skipped: subscripts (``E_{1}``, ``x_0``), exponents (``m^{2}``, ``s^{-1}``), powers of ten
    inside a scientific number, enumerations and indices (``Fig. 3``, ``(2)``, ``第3``,
    ``n = 2``; ``N = 200`` is a count, read), ordinals (``3rd``), years (1500-2100 without unit), and
    the final instruction. Read as written by ABench: a unit after the closing ``\\)`` (``\\( 1 \\) atm``),
    braced scientific numbers (``{8.854} \\times {10}^{-{12}}``, one constant), and a
    speed as a fraction of light (``0.8c``: unit ``c``, SI m/s).
    """
    instruction = read_instruction(question)
    body_end = instruction.start if instruction else len(question)
    body = question[:body_end]
    found: list[dict[str, Any]] = []
    for match in _NUM.finditer(body):
        start, end = match.span("num")
        raw = match.group("num").replace("−", "-")
        before = body[max(0, start - 80) : start]
        after = body[end : end + 40]
        if _SUBSCRIPT_BEFORE.search(before) or _EXPONENT_BEFORE.search(before):
            continue
        if any(f["start"] <= start < f["end"] for f in found):
            continue  # inside a scientific number already read
        if (_ORDINAL_AFTER.search(after) or _INDEX_WORDS.search(before)) and not _nth_second(before, after):
            continue
        if re.search(r"(?<!\\)\(\s*$", before) and re.match(r"\s*\)", after) and "." not in raw:
            continue  # enumeration "(2)"
        value_text = raw
        scientific = False
        num_end = end
        try:
            value = Decimal(raw)
        except InvalidOperation:
            continue
        sci = _SCI.match(body, end)
        braced = _SCI_BRACED.match(body, end) if start > 0 and body[start - 1] == "{" else None
        if braced:  # "{8.854} \times {10}^{-{12}}": the mantissa, the 10 and the exponent each in braces
            value = value.scaleb(int(braced.group("sign").replace("−", "-") + braced.group("e")))
            start -= 1  # the whole braced number is the constant's text (a variant rewrites it plainly)
            value_text = body[start : braced.end()]
            num_end = braced.end()
            scientific = True
        elif sci:
            exponent = int((sci.group("e1") or sci.group("e2")).replace("−", "-").replace(" ", ""))
            value = value.scaleb(exponent)
            value_text = body[start : sci.end()]
            num_end = sci.end()
            scientific = True
        elif raw in ("10", "-10"):
            power = _POW10.match(body, end)
            if power:
                exponent = int((power.group("e1") or power.group("e2")).replace("−", "-").replace(" ", ""))
                value = Decimal(1).scaleb(exponent).copy_sign(Decimal(raw))
                value_text = body[start : power.end()]
                num_end = power.end()
                scientific = True
        unit_pos = num_end
        if start > 0 and body[start - 1] == "{" and body[num_end : num_end + 1] == "}" and not braced:
            unit_pos = num_end + 1  # "{10}\mathrm{m}"
        unit, unit_text, _ = _unit_after(body, unit_pos)
        symbol_match = _SYMBOL_BEFORE.search(before)
        symbol = symbol_match.group("sym").strip() if symbol_match else None
        light = _FRACTION_OF_C.match(body, num_end) if not unit and "." in raw and 0 < value < 1 else None
        if light:  # "0.8c": a speed as a fraction of the speed of light, the datum itself
            unit, unit_text = "c", "c"
        if unit:
            role: Role = "quantity"
        else:
            follows_letter = re.match(r"[A-Za-z]|\\(?!,|;|!|\)|\]| )", body[num_end : num_end + 2])
            in_formula = bool(
                _FRAC_BEFORE.search(before)
                or re.search(r"[/*]\s*$|\\cdot\s*$|[A-Za-z)]\s*[-+]\s*$", before)
                or re.match(r"\s*[/]", body[num_end:])
                or follows_letter
                or re.match(r"\s*\^", body[num_end:])
            )
            role = "coefficient" if follows_letter or (in_formula and not symbol) else "number"
            if not scientific and "." not in raw and unit == "" and symbol is None:
                if 1500 <= abs(int(value)) <= 2100 and role == "number":
                    continue  # a year
            if (symbol is not None and sanitize(symbol) in _INDEX_SYMBOLS and value == value.to_integral_value()
                    and not scientific and abs(value) < _INDEX_LIMIT):
                continue  # an index such as n = 2 (N = 200 turns is a count: data)
        found.append(dict(start=start, end=num_end, text=value_text, value=value, unit=unit,
                          unit_text=unit_text, scientific=scientific, role=role, symbol=symbol,
                          sig_figs=sig_figs_of(raw)))
    constants: list[Constant] = []
    used: set[str] = set()
    for i, f in enumerate(found, start=1):
        alias = f"c{i}"
        name = sanitize(f["symbol"]) if f["symbol"] else ""
        if not name or name in RESERVED or keyword.iskeyword(name) or re.fullmatch(r"c\d+", name):
            name = alias
        base, k = name, 2
        while name in used:
            name = f"{base}_{k}"
            k += 1
        used.add(name)
        constants.append(Constant(name=name, alias=alias, value=f["value"], text=f["text"], start=f["start"],
                                  end=f["end"], unit=f["unit"], unit_text=f["unit_text"], sig_figs=f["sig_figs"],
                                  scientific=f["scientific"], role=f["role"], symbol=f["symbol"]))
    return constants
