"""From plain problems (question text + answer) to templates, checked against a supplied solution.

Why: most datasets ship numbers in prose, not templates. :func:`find_constants` reads the
numeric constants of an ABench-style question with their units (skipping subscripts, unit
exponents, indices, years and ordinals); :func:`template_from_plain` replaces the perturbable
ones by placeholders and compiles the supplied solution over them; before any variant is made,
the solution evaluated at the original constants must reproduce the original answer within 1 %,
otherwise the conversion is flagged and refuses to vary. (The tolerance widens to the answer's
written precision when that is coarser: 1.6667 written to two figures is 1.7, 2 % away.) :func:`recompute` is the same
evaluation for one text, used by the audit.

Names: a constant written ``v_{\\mathrm{m}} = 3\\,\\mathrm{cm/s}`` is called ``v_m``; every
constant is also ``c1``, ``c2``, ... in order of appearance. Solutions see SI values.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

import sympy

from physeval.answers.written import NUMBER as _NUM
from physeval.answers.written import POWER_OF_TEN as _POW10
from physeval.answers.written import TIMES_TEN as _SCI
from physeval.answers.written import TIMES_TEN_BRACED as _SCI_BRACED
from physeval.answers.written import parse_written_number
from physeval.answers.written import written_precision as _written_precision
from physeval.units import UnitError, unit_dimension, unit_to_si
from physeval.units.reader import BARE_UNITS_AFTER_NUMBERS, CJK_UNITS_AFTER_NUMBERS, pint_unit_string

from .constants import BUILTIN_CONSTANTS
from .engine import Variant, vary_template
from .solution import SOLUTION_FUNCTIONS, parse_solution, template_from_dict
from .template import PLACEHOLDER, Template, TemplateError
from .writing import sig_figs_of

__all__ = [
    "Constant",
    "Instruction",
    "PlainConversion",
    "find_constants",
    "read_instruction",
    "latex_unit_to_pint",
    "parse_written_number",
    "recompute",
    "template_from_plain",
]

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


@dataclass(frozen=True)
class Instruction:
    """The ``(Results should be ...)`` / ``(结果...)`` instruction at the end of a question."""

    start: int
    text: str
    unit_latex: str = ""
    unit: str = ""
    sig_figs: int | None = None
    scientific: bool = False


@dataclass
class PlainConversion:
    """The result of :func:`template_from_plain`: a template, or the reason it was flagged.

    ``ok`` is true only when the solution reproduced the original answer within 1 %.
    """

    ok: bool
    reason: str
    constants: list[Constant]
    template: Template | None = None
    expected: float | None = None
    recomputed: float | None = None
    rel_error: float | None = None
    warnings: list[str] = field(default_factory=list)

    def vary(self, n: int, seed: int = 0) -> list[Variant]:
        """Variants of the converted problem; refuses a flagged conversion."""
        if not self.ok or self.template is None:
            raise ValueError(f"flagged problem cannot be varied: {self.reason}")
        return vary_template(self.template, n, seed)


# --------------------------------------------------------------------------- instruction

_EN_INSTR = re.compile(
    r"\(\s*Results should be expressed(?P<sci>\s*in scientific notation\s*,)?"
    r"(?:\s*with units of\s*\$(?P<unit>[^$]*)\$\s*,)?\s*and rounded to\s*(?P<n>\d+)\s*significant figures?\s*\)\s*$",
    re.I,
)
_ZH_INSTR = re.compile(
    r"\(\s*结果(?P<sci>使用科学计数法\s*[，,])?(?:\s*以\s*\$(?P<unit>[^$]*)\$\s*为单位\s*[，,])?\s*保留\s*(?P<n>\d+)\s*位有效数字\s*\)\s*$"
)


_PER_VOLUME = re.compile(r"每立方|每单位体积|单位体积内|per (?:cubic|unit volume)|number density", re.I)


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


# --------------------------------------------------------------------------- units

_ZH_UNITS = CJK_UNITS_AFTER_NUMBERS  # the shared table's Chinese unit names read after a number, longest first
_BARE_UNITS = BARE_UNITS_AFTER_NUMBERS  # English unit words read bare in prose after a number
latex_unit_to_pint = pint_unit_string
"""A LaTeX unit (``\\mathrm{\\;m}/{\\mathrm{s}}^{2}``, ``\\mu \\mathrm{A}``, ``^{\\circ}C``) as a pint string, or None.

The shared reader :func:`physeval.units.pint_unit_string`, under this module's historical name."""


# --------------------------------------------------------------------------- numbers

_SUBSCRIPT_BEFORE = re.compile(r"(?:_\s*\{?\s*(?:\\mathrm\s*\{|\\text\s*\{)?\s*|_\{[^{}]*)$")
_EXPONENT_BEFORE = re.compile(r"(?:\^\s*\{?\s*[-−]?\s*|\^\{[^{}]*)$")
_FRAC_BEFORE = re.compile(r"\\[dt]?frac\s*(?:\{[^{}]*\}\s*)?\{[^{}]*$")
_INDEX_WORDS = re.compile(
    r"(?:\b(?:fig(?:ure)?|eq(?:uation)?|example|problem|question|part|step|no|case|item|section|chapter|table)\.?\s*\(?|[第图题式例表])\s*$",
    re.I,
)
_ORDINAL_AFTER = re.compile(r"^(?:st|nd|rd|th)\b|^\s*(?:年|次|号|届|世纪)")
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


def _sanitize(symbol: str) -> str:
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


_RESERVED = set(SOLUTION_FUNCTIONS) | {"answer", "Integer", "Float", "Rational", "Symbol"}


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
        if _ORDINAL_AFTER.search(after) or _INDEX_WORDS.search(before):
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
            if (symbol is not None and _sanitize(symbol) in _INDEX_SYMBOLS and value == value.to_integral_value()
                    and not scientific and abs(value) < _INDEX_LIMIT):
                continue  # an index such as n = 2 (N = 200 turns is a count: data)
        found.append(dict(start=start, end=num_end, text=value_text, value=value, unit=unit,
                          unit_text=unit_text, scientific=scientific, role=role, symbol=symbol,
                          sig_figs=sig_figs_of(raw)))
    constants: list[Constant] = []
    used: set[str] = set()
    for i, f in enumerate(found, start=1):
        alias = f"c{i}"
        name = _sanitize(f["symbol"]) if f["symbol"] else ""
        if not name or name in _RESERVED or keyword.iskeyword(name) or re.fullmatch(r"c\d+", name):
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


# --------------------------------------------------------------------------- answers and solutions

_LATEX_SYMBOL_FIXES = [
    (re.compile(r"\\(?:mathrm|text|mathcal|mathbf|mathit|operatorname)\s*\{\s*([A-Za-z]+)\s*\}"), r"\1"),
    (re.compile(r"\\varepsilon"), r"\\epsilon"),
]


def _latex_steps_to_sympy(steps: Sequence[str]) -> list[str]:
    """LaTeX equations -> SymPy step strings, symbol names sanitized like constant names."""
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    config = ConversionConfig(interpret_as_mixed_fractions=False, lowercase_symbols=False)
    out: list[str] = []
    for i, step in enumerate(steps):
        text = step
        for pattern, repl in _LATEX_SYMBOL_FIXES:
            text = pattern.sub(repl, text)
        lhs = None
        if text.count("=") == 1:
            lhs, text = (part.strip() for part in text.split("="))
        try:
            expr = latex2sympy(text, conversion_config=config)
        except Exception as exc:
            raise ValueError(f"step {i}: cannot parse LaTeX {step!r}: {exc}".splitlines()[0]) from None
        rename = {s: sympy.Symbol(_sanitize(s.name) or s.name) for s in expr.free_symbols}
        expr = expr.xreplace(rename)
        rhs = sympy.sstr(expr)
        out.append(f"{_sanitize(lhs)} = {rhs}" if lhs and _sanitize(lhs) else rhs)
    return out


def _is_latex(steps: Sequence[str]) -> bool:
    return any("\\" in s or re.search(r"\^\{|_\{", s) for s in steps)


def _steps(solution: str | Sequence[str]) -> list[str]:
    steps = [solution] if isinstance(solution, str) else list(solution)
    if not steps or not all(isinstance(s, str) and s.strip() for s in steps):
        raise ValueError("a solution is an expression string or a list of 'name = expression' steps")
    return _latex_steps_to_sympy(steps) if _is_latex(steps) else [s.strip() for s in steps]


@dataclass(frozen=True)
class _Fixed:
    """A physical constant the solution uses by name but the question does not state (``g``, ``h``)."""

    name: str
    value: Decimal
    unit: str
    builtin: str | None = None


def _physical_constants(spec: Mapping[str, str] | None, found: Sequence[Constant]) -> list[_Fixed]:
    """Parse ``{name: "VALUE UNIT" | builtin name}``; ValueError naming the bad entry."""
    out: list[_Fixed] = []
    taken = {c.name for c in found} | {c.alias for c in found}
    for name, raw in (spec or {}).items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or name in _RESERVED \
                or keyword.iskeyword(name):
            raise ValueError(f"constants: {name!r} is not a usable name (an identifier, not a function)")
        if name in taken:
            raise ValueError(f"constants.{name}: the question itself has a constant called {name!r}")
        if not isinstance(raw, str) or not raw.strip():
            raise ValueError(f"constants.{name}: expected 'VALUE UNIT' or a built-in name, got {raw!r}")
        text = raw.strip()
        if text in BUILTIN_CONSTANTS:
            builtin_value, builtin_unit = BUILTIN_CONSTANTS[text]
            out.append(_Fixed(name, Decimal(builtin_value), builtin_unit, text))
            continue
        number, _, unit = text.partition(" ")
        try:
            value = Decimal(number)
        except InvalidOperation:
            raise ValueError(f"constants.{name}: {raw!r} is neither 'VALUE UNIT' nor one of "
                             f"{', '.join(sorted(BUILTIN_CONSTANTS))}") from None
        unit = unit.strip().replace("^", "**")
        try:
            unit_to_si(unit)
            unit_dimension(unit)
        except UnitError as exc:
            raise ValueError(f"constants.{name}: {exc}") from None
        out.append(_Fixed(name, value, unit))
    return out


def _symbols(constants: Sequence[Constant], fixed: Sequence[_Fixed] = ()) -> dict[str, sympy.Symbol]:
    table: dict[str, sympy.Symbol] = {}
    for c in constants:
        sym = sympy.Symbol(c.name, real=True)
        table[c.name] = sym
        table.setdefault(c.alias, sym)
        table.setdefault(c.alias[0] + "_" + c.alias[1:], sym)  # c_1, as LaTeX writes it
    for f in fixed:
        table[f.name] = sympy.Symbol(f.name, real=True)
    return table


def _solution_parts(constants: Sequence[Constant], solution: str | Sequence[str],
                    fixed: Sequence[_Fixed] = ()) -> tuple[sympy.Expr, dict[str, sympy.Expr]]:
    return parse_solution(_steps(solution), _symbols(constants, fixed))


def _solution_expr(constants: Sequence[Constant], solution: str | Sequence[str],
                   fixed: Sequence[_Fixed] = ()) -> sympy.Expr:
    return _solution_parts(constants, solution, fixed)[0]


def _evaluate(constants: Sequence[Constant], expr: sympy.Expr, answer_unit: str,
              fixed: Sequence[_Fixed] = ()) -> Decimal:
    subs = {}
    known: list[Constant | _Fixed] = [*constants, *fixed]
    for c in known:
        scale, offset = unit_to_si(c.unit)
        subs[sympy.Symbol(c.name, real=True)] = scale * sympy.Rational(str(c.value)) + offset
    value = expr.xreplace(subs)
    scale, offset = unit_to_si(answer_unit)
    value = (value - offset) / scale
    number = sympy.N(value, 30)
    if not number.is_real or not number.is_finite:
        raise ValueError(f"the solution gives {number}, not a real finite number")
    return Decimal(str(number))


def recompute(question: str, solution: str | Sequence[str], *, constants: Mapping[str, str] | None = None,
              answer_unit: str | None = None) -> tuple[Decimal | None, str]:
    """The solution evaluated at the question's own constants, in the instruction's unit.

    ``constants`` names physical constants the question does not state (``{"g": "9.8 m/s^2"}``,
    ``{"h": "planck_constant"}``) and ``answer_unit`` the unit meant when the instruction names
    none, as in :func:`template_from_plain`.
    Returns ``(value, "")`` or ``(None, reason)``; never raises on bad input.
    """
    try:
        found = find_constants(question)
        instruction = read_instruction(question)
        fixed = _physical_constants(constants, found)
        expr = _solution_expr(found, solution, fixed)
        unit = _answer_unit(instruction, answer_unit)
        return _evaluate(found, expr, unit, fixed), ""
    except (ValueError, TypeError, UnitError, ZeroDivisionError) as exc:
        return None, str(exc)


def _answer_unit(instruction: Instruction | None, default: str | None) -> str:
    """The instruction's unit, else ``default`` (``^`` allowed), else dimensionless."""
    if instruction is not None and instruction.unit:
        return instruction.unit
    unit = (default or "").strip().replace("^", "**")
    if unit:
        unit_to_si(unit)  # UnitError for a unit pint cannot read
    return unit


def _escape(text: str) -> str:
    """Literal text with any accidental ``{{name}}`` broken up so it is not a placeholder."""
    return PLACEHOLDER.sub(lambda m: "{ {" + m.group(1) + "} }", text)


def _resolve(names: Sequence[str] | Mapping[str, Any], constants: Sequence[Constant], option: str) -> dict[str, Any]:
    """Option keys given by name or alias -> the constant's name (ValueError for an unknown key)."""
    by_key = {c.name: c.name for c in constants} | {c.alias: c.name for c in constants}
    items = names.items() if isinstance(names, Mapping) else ((n, None) for n in names)
    out: dict[str, Any] = {}
    for key, value in items:
        if key not in by_key:
            raise ValueError(f"{option}: {key!r} names no constant of the question "
                             f"(found: {', '.join(c.name for c in constants) or 'none'})")
        out[by_key[key]] = value
    return out


def _bounds(raw: Any, where: str) -> tuple[Decimal | None, Decimal | None]:
    """``[low, high]`` (either may be None) as Decimals; ValueError naming ``where``."""
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise ValueError(f"{where}: expected [low, high] in SI units, got {raw!r}")
    out: list[Decimal | None] = []
    for bound in raw:
        if bound is None:
            out.append(None)
            continue
        try:
            out.append(Decimal(str(bound).strip()))
        except InvalidOperation:
            raise ValueError(f"{where}: {bound!r} is not a number") from None
    low, high = out
    if low is not None and high is not None and not low < high:
        raise ValueError(f"{where}: low {low} must be below high {high}")
    return low, high


def _in_unit(si: Decimal, unit: str) -> Decimal:
    """An SI value expressed in ``unit`` (exact to 28 digits)."""
    scale, offset = unit_to_si(unit)
    return Decimal(str(sympy.N((sympy.Rational(str(si)) - offset) / scale, 28)))


def template_from_plain(
    question: str,
    answer: str,
    solution: str | Sequence[str],
    *,
    template_id: str = "plain_problem",
    perturb: float = 0.3,
    domain: str = "mechanics",
    topic: str = "converted plain problem",
    level: str = "first_year",
    rel_tol: float = 0.01,
    constants: Mapping[str, str] | None = None,
    ranges: Mapping[str, Sequence[Any]] | None = None,
    integers: Sequence[str] = (),
    fixed: Sequence[str] = (),
    continuous: Sequence[str] = (),
    vary_coefficients: Sequence[str] = (),
    answer_unit: str | None = None,
) -> PlainConversion:
    """Turn a plain problem into a template and check the solution against the original answer.

    Perturbable constants (quantities and data numbers; not coefficients, not zeros) become
    parameters drawn in value * (1 +/- ``perturb``), written like the original (integers stay
    integers; otherwise the original's significant figures, at least 2). The question's own
    instruction is kept verbatim. Never raises on bad input: a problem that cannot be
    converted, or whose solution misses the original answer by more than ``rel_tol``, comes
    back with ``ok=False`` and the reason.

    Options (absent = the behaviour above):

    * ``constants``: physical constants the question expects but does not state, by name:
      ``{"g": "9.8 m/s^2", "h": "planck_constant"}`` ("VALUE UNIT" or a name of
      :data:`BUILTIN_CONSTANTS`); the solution uses them like the question's constants; never varied.
    * ``ranges``: SI bounds ``{name: [low, high]}`` (either may be None). For a parameter the
      perturbation interval is narrowed to the bounds; for an intermediate step name of the
      solution, or ``answer``, the bounds become constraints of the template (redrawn when broken).
      Bounds that exclude the question's own value are an error.
    * ``integers``: parameters drawn as integers, uniformly within value +/- max(1, perturb * value)
      (and the bounds; positive counts stay at least 1). Their written value must be an integer.
    * ``fixed``: constants of the question kept as written (a stated ``e = 1.6e-19 C`` or ``g``).
    * ``continuous``: integer-written quantities that are not counts (``4 s``), drawn with decimals:
      written with as many significant figures as the integer has digits, at least 2 (``4.3 s``).
    * ``vary_coefficients``: numbers read as formula coefficients that are the problem's data
      (``1.6`` and ``550`` in ``y = 0.03 cos(1.6 pi x) cos(550 pi t)``), perturbed like data numbers.
    * ``answer_unit``: the unit the answer is meant in when the instruction names none (ABench often
      states it in one variant only); ignored when the instruction has a unit.

    Option keys may be a constant's name or its alias (``c3``).
    """
    found: list[Constant] = []
    try:
        found = find_constants(question)
        instruction = read_instruction(question)
        expected = parse_written_number(answer)
        if expected is None:
            return PlainConversion(False, f"the answer {answer!r} is not a number", found)
        physical = _physical_constants(constants, found)
        expr, defs = _solution_parts(found, solution, physical)
        unit = _answer_unit(instruction, answer_unit)
        got = _evaluate(found, expr, unit, physical)
        range_of = _resolve({k: v for k, v in (ranges or {}).items() if k not in defs and k != "answer"},
                            found, "ranges")
        derived_ranges = {k: v for k, v in (ranges or {}).items() if k in defs or k == "answer"}
        integer_names = set(_resolve(list(integers), found, "integers"))
        fixed_names = set(_resolve(list(fixed), found, "fixed"))
        continuous_names = set(_resolve(list(continuous), found, "continuous"))
        data_coefficients = set(_resolve(list(vary_coefficients), found, "vary_coefficients"))
    except (ValueError, TypeError, UnitError, ZeroDivisionError) as exc:
        return PlainConversion(False, f"cannot evaluate the solution: {exc}", found)
    rel = float(abs(got - expected) / abs(expected)) if expected != 0 else float(abs(got))
    if rel > max(rel_tol, _written_precision(answer, expected)):
        return PlainConversion(
            False,
            f"the solution gives {float(got):.6g} at the original constants but the answer is {answer.strip()} "
            f"(relative error {rel:.2%} > {rel_tol:.0%} and beyond the answer's written precision)",
            found, expected=float(expected), recomputed=float(got), rel_error=rel,
        )
    used = {s.name for s in expr.free_symbols}
    params: dict[str, Any] = {}
    consts: dict[str, Any] = {}
    pieces: list[str] = []
    pos = 0
    body_end = instruction.start if instruction else len(question)

    def flagged(reason: str) -> PlainConversion:
        return PlainConversion(False, reason, found, expected=float(expected), recomputed=float(got), rel_error=rel)

    unused = sorted((set(range_of) | integer_names | fixed_names | continuous_names | data_coefficients) - used)
    if unused:
        return flagged(f"option names {', '.join(unused)}, which the solution does not use")
    if integer_names & continuous_names:
        return flagged(f"{', '.join(sorted(integer_names & continuous_names))}: both integers and continuous")
    for c in found:
        perturbable = c.perturbable or (c.name in data_coefficients and c.value != 0)
        if perturbable and c.name in used and c.name not in fixed_names:
            pieces.append(_escape(question[pos : c.start]))
            pieces.append("{{" + c.name + "}}")
            pos = c.end
            spec: dict[str, Any] = {"value": str(c.value), "unit": c.unit, "perturb": str(perturb)}
            integer = not c.scientific and "." not in c.text and c.value == c.value.to_integral_value()
            if c.name in integer_names:
                if c.value != c.value.to_integral_value():
                    return flagged(f"integers: {c.name} is written {c.text}, not an integer")
                integer = True
            if integer and c.name in continuous_names:
                spec["sig_figs"] = max(len(str(abs(int(c.value)))), 2)
                spec["scientific"] = False
            elif integer:
                spec["decimals"] = 0
                spec["value"] = str(int(c.value))
            else:
                spec["sig_figs"] = max(c.sig_figs, 2)
                spec["scientific"] = c.scientific
            if c.name in range_of or c.name in integer_names:
                value = Decimal(spec["value"])
                width = abs(value) * Decimal(str(perturb))
                if c.name in integer_names:
                    width = max(Decimal(1), width.to_integral_value())
                low, high = value - width, value + width
                if c.name in integer_names and value > 0:
                    low = max(low, Decimal(1))
                if c.name in range_of:
                    try:
                        si_low, si_high = _bounds(range_of[c.name], f"ranges.{c.name}")
                    except ValueError as exc:
                        return flagged(str(exc))
                    lo = _in_unit(si_low, c.unit) if si_low is not None else None
                    hi = _in_unit(si_high, c.unit) if si_high is not None else None
                    if unit_to_si(c.unit)[0] < 0:
                        lo, hi = hi, lo
                    if (lo is not None and value < lo * (1 - Decimal("1e-20"))) or \
                            (hi is not None and value > hi * (1 + Decimal("1e-20"))):
                        return flagged(f"ranges.{c.name}: the question's own value {c.text} {c.unit} lies outside "
                                       f"{list(range_of[c.name])} (SI)")
                    low = max(low, min(lo, value)) if lo is not None else low
                    high = min(high, max(hi, value)) if hi is not None else high
                if c.name in integer_names:
                    low, high = Decimal(math.ceil(low)), Decimal(math.floor(high))
                del spec["perturb"]
                if low < high:
                    spec["range"] = [str(low), str(high)]
                else:
                    spec["fixed"] = True
            params[c.name] = spec
        elif c.name in used:
            consts[c.name] = {"value": str(c.value), "unit": c.unit}
    for f in physical:
        if f.name in used:
            consts[f.name] = f.builtin or {"value": str(f.value), "unit": f.unit}
    constraints: list[str] = []
    for name, raw in derived_ranges.items():
        try:
            range_low, range_high = _bounds(raw, f"ranges.{name}")
        except ValueError as exc:
            return flagged(str(exc))
        target = "answer" if name == "answer" and name not in defs else f"({sympy.sstr(defs[name])})"
        constraints += [f"{target} >= {range_low}"] if range_low is not None else []
        constraints += [f"{target} <= {range_high}"] if range_high is not None else []
    pieces.append(_escape(question[pos:body_end]))
    text = "".join(pieces).strip()
    data = {
        "id": template_id, "kind": "numeric", "domain": domain, "topic": topic, "level": level,
        "text": text, "parameters": params, "constants": consts, "constraints": constraints,
        "solution": sympy.sstr(expr),
        "answer": {
            "unit": unit,
            "sig_figs": instruction.sig_figs if instruction and instruction.sig_figs
            else max(sig_figs_of(answer.strip().split("\\")[0]), 1),
            "scientific": bool(instruction.scientific) if instruction else False,
            **({"unit_latex": instruction.unit_latex} if instruction and instruction.unit_latex else {}),
        },
        "instruction": instruction.text if instruction else "",
    }
    warnings: list[str] = []
    try:
        template = template_from_dict(data, strict_dimensions=False)
    except TemplateError as exc:
        return flagged(f"cannot build a template: {exc}")
    if template.compiled is not None and getattr(template.compiled, "warnings", None):
        warnings.extend(template.compiled.warnings)
    if not any(p.varies for p in template.parameters):
        warnings.append("no perturbable constant is used by the solution; only variant 0 exists")
    return PlainConversion(True, "solution reproduces the original answer", found, template,
                           expected=float(expected), recomputed=float(got), rel_error=rel, warnings=warnings)
