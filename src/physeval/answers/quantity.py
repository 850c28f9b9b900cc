"""Read a final answer's text as one number and, if written, its unit.

The common forms (``-3.2``, ``- 50``, ``1.5 \\times 10^{-3}``, ``3.0e5``, ``1{,}000``, ``10\\%``,
``42\\,\\mathrm{m\\,s^{-1}}``) are read by a hand-written regex fast path into an exact
:class:`~fractions.Fraction`, so the 1 % test downstream is exact. Genuinely symbolic forms
(``\\frac``, ``\\sqrt``, ``\\pi``, arithmetic) fall back to ``latex2sympy2_extended`` and are
evaluated to 30 digits. Anything that is not one number gives an explicit status with a
reason: ``no_answer`` (empty), ``ambiguous`` (two different values, ``\\pm``),
``unparseable`` (a free symbol, a vector, an inequality, text) or ``too_large`` (beyond
``10^±300``, or an expression such as ``10^{10^{10}}`` or ``9999999!`` whose value
:mod:`physeval.answers.bounds` refuses to compute). Never raises, and never does unbounded work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from physeval.answers.bounds import TOO_LARGE as BOUNDS_TOO_LARGE
from physeval.answers.bounds import parse_bounded
from physeval.units import read_unit

__all__ = [
    "ParsedQuantity", "parse_quantity", "sig_fig_range", "OK", "NO_ANSWER", "AMBIGUOUS", "UNPARSEABLE", "TOO_LARGE",
    "MAX_DECIMAL_EXPONENT", "MAX_QUANTITY_CHARS",
]  # fmt: skip

OK = "ok"
NO_ANSWER = "no_answer"
AMBIGUOUS = "ambiguous"
UNPARSEABLE = "unparseable"
TOO_LARGE = BOUNDS_TOO_LARGE

_MAX_SYMBOLIC_CHARS = 240  # operation budget for the sympy fallback (no wall-clock timeouts)
# Values are exact fractions that graders also report as floats: |log10 v| beyond this is
# refused (``too_large``) instead of building a huge integer or overflowing a float.
MAX_DECIMAL_EXPONENT = 300


@dataclass(frozen=True)
class ParsedQuantity:
    """One answer read as a number (plus its unit as written).

    Attributes:
        status: ``"ok"``, ``"no_answer"``, ``"ambiguous"``, ``"unparseable"`` or ``"too_large"``.
        value: The number, exactly, when ``status == "ok"``.
        unit_text: The unit as written after the number (``None`` when there is none).
        unit_known: Whether ``unit_text`` is a unit pint understands (``False`` for words such
            as ``fringes``, which are read as labels).
        reason: Why the status is not ``ok`` (or a note on how the text was read).
        mantissa: The significand's digits as written (``"1.40"`` in ``1.40 \\times 10^{3}``), for
            significant-figure checks; ``None`` for symbolic forms.
        scientific: The number was written with a power of ten (``\\times 10^{b}``, ``e``-notation).
        form: ``"decimal"``, ``"scientific"``, ``"percent"`` or ``"symbolic"``.
    """

    status: str
    value: Fraction | None = None
    unit_text: str | None = None
    unit_known: bool = False
    reason: str = ""
    mantissa: str | None = None
    scientific: bool = False
    form: str = ""

    @property
    def ok(self) -> bool:
        """Whether the text was read as one number."""
        return self.status == OK


assert not hasattr(ParsedQuantity, "__post_init__") and len(fields(ParsedQuantity)) == 8, "update _plain"


def _fail(status: str, reason: str) -> ParsedQuantity:
    return ParsedQuantity(status=status, reason=reason)


# --------------------------------------------------------------------------- normalisation

_UNICODE = str.maketrans(
    {
        "−": "-", "–": "-", "—": "-", "﹣": "-", "－": "-", "＋": "+",
        "×": " \\times ", "·": " \\cdot ", "⋅": " \\cdot ", "∙": " \\cdot ",
        "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ",
        "\u2005": " ", "\u2006": " ", "\u2007": " ", "\u2008": " ", "\u200a": " ", "\u3000": " ",
        "≈": " \\approx ", "，": ",", "；": ";", "。": ".", "：": ":", "＝": "=",
        "０": "0", "１": "1", "２": "2", "３": "3", "４": "4", "５": "5", "６": "6", "７": "7", "８": "8", "９": "9",
    }
)
_DELIMS = re.compile(r"\$+|\\[()\[\]]|\\displaystyle|\\textstyle|\\left\b|\\right\b|\\!|\\big[lr]?\b|\\Big[lr]?\b")
_SPACES = re.compile(r"\\[,;: >]|\\quad|\\qquad|~|\\hspace\*?\{[^{}]*\}|\\thinspace|\\enspace")
_FRAC = re.compile(r"\\[dt]frac\b|\\cfrac\b")
_E_MARKUP = re.compile(r"\\(?:mathrm|text|operatorname)\s*\{\s*([eE])\s*\}\s*\{?\s*([+-]?\s*\d+)\s*\}?")
_BRACED_COMMA = re.compile(r"\{,\}")
_OR_WORDS = re.compile(
    r"\\text\s*\{\s*(?:or|and)\s*\}|\\(?:quad|qquad)\b|\bor\b|\band\b|或|和|以及|;",
    re.IGNORECASE,
)
_CHAIN = re.compile(r"\\approx\b|\\simeq\b|\\sim\b|\\equiv\b|\\cong\b|\\doteq\b|:=|=|"
                    r"\\to\b|\\rightarrow\b|\\Rightarrow\b|\\implies\b")
_INEQUALITY = re.compile(r"<|>|\\[lg]eq?\b|\\[lg]eqslant\b|\\ne(?:q)?\b|≤|≥|\\ll\b|\\gg\b")
_VECTOR = re.compile(
    r"\\vec\b|\\hat\b|\\mathbf\s*\{\s*[ijkxyzre]\s*\}|\\boldsymbol|\\begin\s*\{[pbvBV]?matrix\}|\\langle|\\overrightarrow"
    r"|\\hat\{|\\mathbf\{[a-z]\}_"
)
_PLUSMINUS = re.compile(r"\\pm\b|\\mp\b|±|∓")
_WRAPPER = re.compile(r"\\(?:text|mathrm|textrm|operatorname|mathit|rm|mbox|textnormal)\s*\{([^{}]*)\}")
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_WRAPPED_NUMBER = re.compile(r"\\(?:text|mathrm|textrm|operatorname|mathbf|boldsymbol)\s*\{\s*([+-]?\s*[\d.,]+)\s*\}")
_TUPLE = re.compile(r"^[(\[].*,.*[)\]]$", re.DOTALL)
_TRAILING_PUNCT = re.compile(r"[\s.,;:。，]+$")
_APPROX_WORDS = re.compile(r"^(?:\\text\s*\{\s*)?(?:approximately|approx\.?|about|around|roughly|约|大约|约为|约等于)"
                           r"\s*\}?\s*", re.IGNORECASE)


def _normalise(text: str) -> str:
    # Each rewrite runs only when the character it needs is present (a pattern that cannot match
    # is a no-op), so plain ASCII answers skip most of them; the result is the same either way.
    s = text if text.isascii() else text.translate(_UNICODE)
    if "$" in s or "\\" in s:
        s = _DELIMS.sub(" ", s)
    if "\\" in s or "~" in s:
        s = _SPACES.sub(" ", s)
    if "\\" in s:
        s = _FRAC.sub(r"\\frac", s)
        s = _E_MARKUP.sub(lambda m: "e" + m.group(2).replace(" ", ""), s)
    if not s.isascii():
        s = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + m.group(0).translate(_SUPERSCRIPT_DIGITS) + "}", s)
    if "\\" in s:
        s = _WRAPPED_NUMBER.sub(r" \1 ", s)
    s = " ".join(s.split())  # str.split and re's \s agree on what is whitespace
    return _TRAILING_PUNCT.sub("", s) if s and s[-1] in ".,;:。，" else s


# --------------------------------------------------------------------------- fast path

_SEP_NUMBER = r"\d{1,3}(?:(?:,|\{,\}| )\d{3})+(?![\d])"
_FAST = re.compile(
    r"^(?P<sign>[+-])?\s*(?:\{\s*)?"
    r"(?P<mant>" + _SEP_NUMBER + r"(?:\.\d+)?|\d+\{,\}\d+|\d+(?:\.\d*)?|\.\d+)"
    r"(?:\s*\})?"
    r"(?:"
    r"\s*(?P<enote>[eE])\s*(?P<e1>[+-]?\d+)(?![\d.])"
    r"|\s*(?:\\times|\\cdot|\*|x|X)\s*(?:\{\s*10\s*\}|10)\s*(?:\^|\*\*)\s*(?:\{\s*(?P<e2>[+-]?\s*\{?\s*\d+\s*\}?)\s*\}|(?P<e3>[+-]?\d))"
    r")?"
    r"\s*(?P<rest>.*)$",
    re.DOTALL,
)
_POW10 = re.compile(
    r"^(?P<sign>[+-])?\s*(?:\{\s*10\s*\}|10)\s*(?:\^|\*\*)\s*(?:\{\s*(?P<e2>[+-]?\s*\{?\s*\d+\s*\}?)\s*\}|(?P<e3>[+-]?\d))\s*(?P<rest>.*)$",
    re.DOTALL,
)
_PERCENT = re.compile(r"^(?:\\%|%|\\text\s*\{\s*%\s*\}|\\percent\b|percent\b|‰|\\permil\b)\s*$")
_SYMBOLIC_HINT = re.compile(r"\\frac|\\sqrt|\\pi|π|\\exp|\\ln|\\log|\\sin|\\cos|\\tan|\\cdot|\\times|[+\-*/^()]|\d")
_SINGLE_LETTER_SYMBOL = re.compile(r"^(?:[A-Za-z]|\\[A-Za-z]+)(?:_\{?[\w]+\}?)?$")
_NOT_DIGIT_OR_POINT = re.compile(r"[^\d.]")
_WORDS = re.compile(r"^[A-Za-z\u4e00-\u9fff][A-Za-z\u4e00-\u9fff\s\-]*$")


def _exponent(m: re.Match[str]) -> int | None:
    raw = m.group("e1") if "e1" in m.groupdict() and m.group("e1") else None
    raw = raw or m.group("e2") or m.group("e3")
    if raw is None:
        return None
    if raw.isdigit() or (raw[0] in "+-" and raw[1:].isdigit()):
        return int(raw)
    return int(re.sub(r"[\s{}]", "", raw))


def _decimal(digits: str, exp: int | None) -> Fraction:
    """``Fraction(digits) * 10**exp`` for a decimal significand (``"1.40"``, ``".5"``, ``"007"``), in integers."""
    whole, _, frac = digits.partition(".")
    shift = (exp or 0) - len(frac)
    n = int(whole + frac)
    return Fraction(n * 10**shift) if shift >= 0 else Fraction(n, 10**-shift)


def sig_fig_range(mantissa: str) -> tuple[int, int]:
    """How many significant figures a written significand carries, as a (min, max) range.

    ``"1.40"`` -> (3, 3); ``"0.0052"`` -> (2, 2); ``"500"`` -> (1, 3) because trailing zeros
    of an integer may or may not be significant; ``"0"`` -> (1, 1).
    """
    digits = mantissa if mantissa.isascii() and mantissa.isdigit() else _NOT_DIGIT_OR_POINT.sub("", mantissa)
    if "." in digits:
        whole = digits.replace(".", "").lstrip("0")
        n = len(whole) if whole else max(1, len(digits.split(".")[1]))
        return (n, n)
    stripped = digits.lstrip("0")
    if not stripped:
        return (1, 1)
    return (len(stripped.rstrip("0")), len(stripped))


def _unit_status(rest: str) -> tuple[str | None, bool, str]:
    """Classify what follows the number: (unit text, known to pint, problem or '')."""
    if not rest:
        return None, False, ""
    if read_unit(rest) is not None:
        return rest, True, ""
    plain = _WRAPPER.sub(r" \1 ", rest).strip()
    if _SINGLE_LETTER_SYMBOL.match(plain) and not rest.lstrip().startswith(("\\text", "\\mathrm")):
        return None, False, f"free symbol {plain!r} after the number"
    if (_WORDS.match(plain) or plain.startswith(("\\text", "\\mathrm"))
            or rest.lstrip().startswith(("\\text", "\\mathrm"))):
        if not re.search(r"\d|\\frac|\\sqrt", plain):
            return plain, False, ""
    return None, False, "symbolic"


def _fast(side: str) -> ParsedQuantity | None:
    """The regex fast path; ``None`` means 'not a plain number form, try the symbolic path'."""
    m = _POW10.match(side)
    pow_only = m is not None
    if m is None:
        m = _FAST.match(side)
        if m is None:
            return None
    groups = m.groupdict()
    rest = groups["rest"].strip()
    if rest.startswith("^") and re.match(r"^\^\s*\{?\s*\\(?:circ|prime)", rest) and read_unit(rest) is not None:
        pass  # 30^\circ, 25^{\circ}\mathrm{C}: a unit, not a power
    elif rest.startswith(("\\times", "\\cdot", "^", "/", "*", "\\frac", "\\sqrt", "\\pi", "(", "x 10", "{")) or (
        rest[:1].isdigit() or rest.startswith(".")
    ):
        return None
    if pow_only:
        mant = "1"
        exp = _exponent(m)
    else:
        mant = groups["mant"]
        exp = _exponent(m)
    if mant.endswith("."):
        mant = mant[:-1]
    digits = re.sub(r",|\{,\}| ", "", mant) if ("," in mant or " " in mant) else mant
    if "{,}" in mant and not re.fullmatch(_SEP_NUMBER + r"(?:\.\d+)?", mant):
        digits = mant.replace("{,}", ".")  # a decimal comma written 3{,}14
    if exp is not None and abs(exp) > MAX_DECIMAL_EXPONENT:
        return _fail(TOO_LARGE, f"power of ten {exp} beyond 10^±{MAX_DECIMAL_EXPONENT}")
    try:
        value = _decimal(digits, exp)
    except ValueError:
        return None
    if groups["sign"] == "-":
        value = -value
    form = "scientific" if exp is not None else "decimal"
    if _PERCENT.match(rest):
        return ParsedQuantity(OK, value, "%", True, "", digits, exp is not None, "percent")
    unit, known, problem = _unit_status(rest)
    if problem == "symbolic":
        return None
    if problem:
        return _fail(UNPARSEABLE, problem)
    return ParsedQuantity(OK, value, unit, known, "", None if pow_only else digits, exp is not None, form)


# --------------------------------------------------------------------------- symbolic path

_TRAILING_UNIT = re.compile(
    r"(?P<unit>(?:\s*(?:\\cdot|/|\*)?\s*(?:\{\s*\}\s*)?(?:\^\s*\{?\s*\\circ\s*\}?|\\(?:mathrm|text|operatorname)\s*\{[^{}]*\}|\\(?:mu|Omega|AA|%))"
    r"(?:\s*\^\s*(?:\{[^{}]*\}|-?\d))?)+)\s*$"
)
_TRAILING_PLAIN_UNIT = re.compile(r"(?:(?<=\s)|(?<=\}))(?P<unit>[A-Za-zµΩ°][A-Za-zµΩ°/^{}\-\d\s*]*)$")


def _split_unit(side: str) -> tuple[str, str | None]:
    m = _TRAILING_UNIT.search(side)
    if m and m.start() > 0 and read_unit(m.group("unit")) is not None:
        return side[: m.start()].strip(), m.group("unit").strip()
    m = _TRAILING_PLAIN_UNIT.search(side)
    if m and m.start() > 0:
        unit = m.group("unit").strip()
        if read_unit(unit) is not None:
            return side[: m.start()].strip(), unit
    return side, None


@lru_cache(maxsize=8192)
def _sympy_value(expr_text: str) -> tuple[str, Fraction | None, str]:
    """(status, value, reason) for a symbolic numeric expression, via latex2sympy2_extended."""
    try:
        import sympy
        from latex2sympy2_extended import latex2sympy
    except ImportError:  # pragma: no cover - both are dependencies
        return UNPARSEABLE, None, "latex2sympy2_extended is not installed"
    text = _WRAPPER.sub(r"\1", expr_text)
    if re.search(r"(?<![\\a-zA-Z])e(?![a-zA-Z])", text) and not re.search(r"\d\s*e\s*[+-]?\d", text):
        text = re.sub(r"(?<![\\a-zA-Z])e(?![a-zA-Z])", r"\\mathrm{e}", text)
    try:
        expr, bounded = parse_bounded(latex2sympy, text)
    except Exception as exc:  # the ANTLR parser raises many exception types
        return UNPARSEABLE, None, f"not a number: {type(exc).__name__}"
    if not bounded.ok:
        return TOO_LARGE, None, f"too large to compute ({bounded.bound} bound): {bounded.reason}"
    try:
        if isinstance(expr, (list, tuple, set)) or not isinstance(expr, sympy.Expr):
            return UNPARSEABLE, None, "not a single expression"
        free = sorted(str(s) for s in expr.free_symbols)
        if free:
            return UNPARSEABLE, None, "free symbol(s): " + ", ".join(free[:5])
        if expr.is_Rational:
            return _bounded_fraction(Fraction(int(expr.p), int(expr.q)))
        if expr.has(sympy.Integral, sympy.Sum, sympy.Product, sympy.Limit, sympy.Derivative):
            # evaluating one is unbounded work (14 s for one integral) and can give a wrong value
            # (an improper integral of sin(x)/x read as -4): a final answer states the value
            return UNPARSEABLE, None, "an integral, sum, product, limit or derivative, not its value"
        val = sympy.N(expr, 30)
        re_part, im_part = val.as_real_imag()
        if im_part != 0 and abs(float(im_part)) > 1e-25 * max(1.0, abs(float(re_part))):
            return UNPARSEABLE, None, "complex value"
        if not re_part.is_finite or not re_part.is_number:
            return UNPARSEABLE, None, "not a finite number"
        if re_part != 0 and abs(_float_exponent(re_part)) > MAX_DECIMAL_EXPONENT:
            return TOO_LARGE, None, f"value beyond 10^±{MAX_DECIMAL_EXPONENT}"
        return _bounded_fraction(Fraction(Decimal(str(sympy.Float(re_part, 30)))))
    except (TypeError, ValueError, ArithmeticError, InvalidOperation, AttributeError, RecursionError) as exc:
        return UNPARSEABLE, None, f"could not evaluate: {type(exc).__name__}"


def _float_exponent(value: object) -> float:
    """log10 |value| of a SymPy Float, from its binary exponent (no huge integer is built)."""
    _sign, mantissa, exponent, _bits = value._mpf_  # type: ignore[attr-defined]
    return (exponent + int(mantissa).bit_length()) * 0.30103


def _bounded_fraction(value: Fraction) -> tuple[str, Fraction | None, str]:
    big = max(value.numerator.bit_length(), value.denominator.bit_length()) * 0.30103
    if value and big > MAX_DECIMAL_EXPONENT + 40:
        return TOO_LARGE, None, f"value beyond 10^±{MAX_DECIMAL_EXPONENT}"
    return OK, value, ""


def _symbolic(side: str) -> ParsedQuantity:
    if len(side) > _MAX_SYMBOLIC_CHARS:
        return _fail(UNPARSEABLE, f"expression longer than {_MAX_SYMBOLIC_CHARS} characters")
    number, unit = _split_unit(side)
    if not number:
        return _fail(UNPARSEABLE, "no number")
    percent = False
    if re.search(r"(?:\\%|%)\s*$", number):
        number, percent = re.sub(r"(?:\\%|%)\s*$", "", number).strip(), True
    status, value, reason = _sympy_value(number)
    if status != OK or value is None:
        return _fail(status, reason)
    if percent:
        return ParsedQuantity(OK, value, "%", True, "", None, False, "percent")
    return ParsedQuantity(OK, value, unit, unit is not None, "", None, False, "symbolic")


# --------------------------------------------------------------------------- top level


def _split_alternatives(s: str) -> list[str]:
    """Split on list separators that are not thousands separators."""
    if "," not in s and "\x00" not in s and "\x01" not in s and not _OR_WORDS.search(s):
        return [s.strip()] if s.strip() else []  # nothing to split on: what the loop below gives
    parts = _OR_WORDS.split(s)
    out: list[str] = []
    for part in parts:
        # a comma is a list separator unless it sits inside 1,000-style digit groups or braces
        protected = re.sub(_SEP_NUMBER, lambda m: m.group(0).replace(",", "\x00"), part)
        protected = protected.replace("{,}", "\x01")
        depth, start = 0, 0
        for i, ch in enumerate(protected):
            if ch in "{(":
                depth += 1
            elif ch in "})":
                depth -= 1
            elif ch == "," and depth == 0:
                out.append(protected[start:i])
                start = i + 1
        out.append(protected[start:])
    return [p.replace("\x00", ",").replace("\x01", "{,}").strip() for p in out if p.strip()]


def _parse_side(side: str) -> ParsedQuantity:
    side = _APPROX_WORDS.sub("", side).strip()
    if not side:
        return _fail(NO_ANSWER, "empty")
    if _TUPLE.match(side):
        return _fail(UNPARSEABLE, "a tuple or vector, not one number")
    fast = _fast(side)
    if fast is not None:
        return fast
    if not _SYMBOLIC_HINT.search(side):
        plain = _WRAPPER.sub(r"\1", side).strip()
        if _SINGLE_LETTER_SYMBOL.match(plain):
            return _fail(UNPARSEABLE, f"free symbol {plain!r}, not a number")
        return _fail(UNPARSEABLE, f"no number in {side[:60]!r}")
    return _symbolic(side)


@lru_cache(maxsize=65536)
def parse_quantity(text: str | None) -> ParsedQuantity:
    """Read ``text`` (an extracted final answer) as one number with an optional unit.

    ``=``/``\\approx`` chains are read from their last side; a list of different values,
    ``\\pm``, a vector, an inequality, a free symbol or text give a non-``ok`` status.
    """
    if text is None:
        return _fail(NO_ANSWER, "no final answer found")
    if len(text) > MAX_QUANTITY_CHARS:
        return _fail(TOO_LARGE, f"{len(text)} characters > {MAX_QUANTITY_CHARS}: not one quantity (parse budget)")
    simple = _PLAIN.fullmatch(text) if isinstance(text, str) else None
    if simple is not None:
        return _plain(simple)
    return _parse_general(str(text))


MAX_QUANTITY_CHARS = 2000
"""The longest final answer read as a quantity: past it the text is refused as ``too_large`` before
any parsing (a number of more digits than Python converts, 4,300, would otherwise be a grader error)."""


# A plain number, alone: ``-3.2``, ``- 50``, ``1.4 \\times 10^{-2}``, ``1.4\\cdot10^{3}``, ``3.0e5``. For these
# texts every step of the general path below is known in advance (no rewrite of the normaliser
# applies, nothing splits, no unit follows), so the value is read directly; the result is the one
# the general path gives (tests/grading/test_numeric_fast_paths.py holds them equal).
_PLAIN = re.compile(
    r"\s*(?P<sign>[+-])?\s*(?P<mant>\d+(?:\.\d*)?|\.\d+)"
    r"(?:\s*(?:\\times|\\cdot)\s*10\s*\^\s*\{\s*(?P<e2>[+-]?\d+)\s*\}|(?P<enote>[eE])(?P<e1>[+-]?\d+))?\s*",
    re.ASCII,
)


def _plain(m: re.Match[str]) -> ParsedQuantity:
    mant = m.group("mant")
    if mant.endswith("."):
        mant = mant[:-1]
    raw = m.group("e1") or m.group("e2")
    exp = int(raw) if raw is not None else None
    if exp is not None and abs(exp) > MAX_DECIMAL_EXPONENT:
        return _parse_general(m.string)
    value = _decimal(mant, exp)
    if m.group("sign") == "-":
        value = -value
    # ParsedQuantity(OK, value, None, False, "", mant, exp is not None, form) without the frozen
    # dataclass's per-field __setattr__ (a third of this path's time); the same object
    parsed = object.__new__(ParsedQuantity)
    parsed.__dict__.update(status=OK, value=value, unit_text=None, unit_known=False, reason="", mantissa=mant,
                           scientific=exp is not None, form="scientific" if exp is not None else "decimal")
    return parsed


def _parse_general(text: str) -> ParsedQuantity:
    """:func:`parse_quantity` without its plain-number fast path (normalise, split, read each side)."""
    s = _normalise(text)
    if not s:
        return _fail(NO_ANSWER, "the final answer is empty")
    if _VECTOR.search(s):
        return _fail(UNPARSEABLE, "a vector, not one number")
    if _PLUSMINUS.search(s):
        return _fail(AMBIGUOUS, "'\\pm' gives two values")
    alternatives = _split_alternatives(s)
    if not alternatives:
        return _fail(NO_ANSWER, "the final answer is empty")
    if len(alternatives) > 1 and re.match(r"^\(", s) and re.search(r"\)$", s):
        return _fail(UNPARSEABLE, "a tuple or vector, not one number")
    parsed: list[ParsedQuantity] = []
    for alternative in alternatives:
        sides = [p.strip() for p in _CHAIN.split(alternative)]
        sides = [p for p in sides if p]
        if not sides:
            continue
        last = sides[-1]
        if _INEQUALITY.search(last):
            return _fail(UNPARSEABLE, "an inequality, not one number")
        q = _parse_side(last)
        if q.status == UNPARSEABLE and len(sides) > 1 and q.reason.startswith("no number"):
            q = _parse_side(sides[-2])  # "v = 5 m/s = \text{five}" is rare; try the side before
        parsed.append(q)
    good = [q for q in parsed if q.ok]
    if len(parsed) > 1:
        values = {(q.value, q.unit_text) for q in good}
        if len(good) < len(parsed) and good:
            bad = next(q for q in parsed if not q.ok)
            return _fail(AMBIGUOUS, f"several answers, one not a number ({bad.reason})")
        if len(values) > 1:
            shown = ", ".join(f"{float(v):g}" + (f" {u}" if u else "")
                              for v, u in sorted(values, key=str)[:4] if v is not None)
            return _fail(AMBIGUOUS, f"several different values: {shown}")
    if not parsed:
        return _fail(NO_ANSWER, "the final answer is empty")
    return good[0] if good else parsed[-1]
