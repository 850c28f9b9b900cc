"""The official ABench-Physics evaluator's verdicts, reproduced (``compat="abench"``).

The official evaluator (inclusionAI/ABench, ``Physics/src/utils.py`` with ``number_modify.py``
and ``latex2python.py``) is not an installable package and pins the unmaintained
``latex2sympy2``; this module re-implements its documented behaviour so published numbers
can be matched:

1. take the content of the last ``\\boxed{`` (plain ``rfind``, braces counted; ``<think>`` is
   *not* skipped and ``\\fbox`` is not read);
2. rewrite ``\\text`` as ``\\mathrm`` and delete every ``\\mathrm{...}`` unit group (with its
   exponents, ``\\cdot``/``/`` joins, ``\\left...\\right`` groups and ``^{\\circ}``) *without
   converting* it;
3. keep the last side of an ``=``/``\\approx`` chain;
4. evaluate the rest as LaTeX; if that fails, pull out the one number (``a \\times 10^{b}`` first;
   two or more numbers fail) and evaluate that;
5. accept iff ``|y - y*| <= 0.01 |y*|``.

One departure, so that the mode always answers: a text whose value is beyond the bounds of
:mod:`physeval.answers.bounds` (``10^{10^{10}}``, ``9999999!``) does not evaluate, where the
official code would compute it for hours.

Consequences kept on purpose: ``3.0e5``, ``\\boxed{\\text{4}}`` and ``1{,}000`` are wrong, and
``30000 m/s`` is wrong against a reference of 30 given in km/s. LaTeX is evaluated with
``latex2sympy2_extended`` (the maintained fork); where the fork is more lenient than the
original (digit-group commas, ``3.0E+05``), the original's rejection is reproduced explicitly.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from physeval.grading._never_raise import never_raises
from physeval.grading.grades import NumericGrade
from physeval.problems import Outcome

__all__ = ["abench_boxed_content", "abench_delete_units", "abench_value", "grade_abench_compat"]

# The official evaluator's unit and number regexes, reproduced bug for bug. They stay apart from
# physeval's one unit reader (physeval.units) on purpose: fixing them would change the verdicts
# this module exists to reproduce, and a fix to the shared reader must never reach them.
_BASE = r"\{?\\mathrm\s*\{[^}]*?\}\}?\}?"
_SUPER = r"(?:\s*\\?\^\s*(?:\{[^}]*?\}|[^{}\s]+))?"
_JOIN = r"(?:\\cdot|/|\\times)"
_UNIT_GROUP = re.compile(
    rf"(?:{_BASE}{_SUPER}\s*{_JOIN}?\s*)+"
    rf"|\\left(?:\\\{{)?[^()]*?\\right(?:\\\}})?{_SUPER}"
    rf"|\^{{[^}}\d]*?}}\s*{_BASE}"
    rf"|{_BASE}{_SUPER}"
    r"|\^\{?\s*\\[a-zA-Z]+\b\}?"
)
_SCI_FIND = [
    re.compile(r"\{?\s*([-+]?\s*[\d.]+)\s*\}?\s*(?:\*|×|\\times|\\cdot|x)\s*\{?10\}?\s*\^\s*\{?\s*([-+]?\s*\{?\d+\}?)\s*\}?"),
    re.compile(r"([-+]?\s*[\d.]+)\s*(?:\*|×|\\times|\\cdot|x)\s*10\s*\{?\^\s*\{?\s*([-+]?\s*\{?\d+\}?)\s*\}?"),
    re.compile(r"\{?\s*([-+]?\s*[\d.]+)\s*\}?\s*(?:\*|×|\\times|\\cdot|x)\s*10\s*\*\*\s*\{?\s*([-+]?\s*\{?\d+\}?)\s*\}?"),
]
_SCI_ZONE = [
    re.compile(r"\{?\s*([-+]?\s*[\d.]+)\s*\}?\s*(?:\*|×|\\times|\\cdot|x|X)\s*\{?10\}?\s*\^\s*\{?\s*([-+]?\s*\{?\d+\}?)\s*\}?"),
    re.compile(r"([-+]?\s*[\d.]+)\s*(?:\*|×|\\times|\\cdot|x|X)\s*\{?10\}?\s*\{?\^\s*\{?\s*([-+]?\s*\d+)\s*\}?"),
    re.compile(r"\{?\s*([-+]?\s*[\d.]+)\s*\}?\s*(?:\*|×|\\times|\\cdot|x|X)\s*10\s*\*\*\s*\{?\s*([-+]?\s*\d+)\s*\}?"),
]
_SUBSCRIPT = re.compile(r"_\s*{[^}]*}")
_SUPERSCRIPT = re.compile(r"\^\s*\{?[^}]*\}?")
_NUMBER = re.compile(r"([-+]?\s*\{?\d+(?:\.\d+)?\s*\}?)")
_STANDALONE = re.compile(r"(?<!\w)([-+]?\s*\d+(?:\.\d+)?)(?=[^\w]|$)")
_DIGIT_GROUP_COMMA = re.compile(r"\d\s*(?:\{,\}|,)\s*\d")
_E_NOTATION = re.compile(r"\d\s*[eE]\s*[+-]?\s*\d")


def abench_boxed_content(text: str) -> str | None:
    """The last ``\\boxed{...}`` content the official way (``rfind``, every brace counted)."""
    start = text.rfind("\\boxed{")
    if start == -1:
        return None
    content = text[start + len("\\boxed{") :]
    depth = 0
    for i, ch in enumerate(content):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == -1:
                return content[:i].strip()
    return None


def abench_delete_units(text: str) -> str:
    """``\\text`` -> ``\\mathrm``, then every unit group removed (no conversion)."""
    return _UNIT_GROUP.sub("", text.replace("\\text", "\\mathrm"))


class _Zones:
    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def hit(self, start: int, end: int) -> bool:
        return any(start < z_end and end > z_start for z_start, z_end in self.spans)

    def add(self, start: int, end: int) -> None:
        self.spans.append((start, end))


def _count_numbers(text: str) -> list[str]:
    """The numbers the official extractor sees, in order of discovery."""
    zones = _Zones()
    found: list[str] = []
    for m in _SUBSCRIPT.finditer(text):
        zones.add(*m.span())
    for m in _UNIT_GROUP.finditer(text):
        zones.add(*m.span())
    for pattern in _SCI_ZONE:
        for m in pattern.finditer(text):
            if zones.hit(*m.span()):
                continue
            zones.add(*m.span())
            found.append(m.group(1))
            if m.group(2):
                found.append(m.group(2))
    for m in _SUPERSCRIPT.finditer(text):
        zones.add(*m.span())
    for pattern in (_NUMBER, _STANDALONE):
        for m in pattern.finditer(text):
            if not zones.hit(*m.span()):
                found.append(re.sub(r"[{}]", "", m.group(1)))
                zones.add(*m.span())
    return found


def _single_number(text: str) -> str | None:
    """The official fallback: ``a \\times 10^{b}`` if present, else the only number (or fail)."""
    text = abench_delete_units(text)
    for pattern in _SCI_FIND:
        m = pattern.search(text)
        if m:
            coefficient = m.group(1).replace(" ", "")
            exponent = re.sub(r"[{}]", "", (m.group(2) or "0").replace(" ", ""))
            return f"{coefficient} \\times 10^{{{exponent}}}" if exponent != "0" else coefficient
    numbers = _count_numbers(text)
    if len(numbers) != 1:
        return None
    return numbers[0]


@lru_cache(maxsize=16384)
def abench_value(latex: str) -> float | None:
    """LaTeX -> float the official way: no free symbols, ``float(expr.doit())``; else ``None``."""
    if _DIGIT_GROUP_COMMA.search(latex) or _E_NOTATION.search(latex):
        return None  # the original latex2sympy2 grammar reads neither digit-group commas nor e-notation
    try:
        from latex2sympy2_extended import latex2sympy

        from physeval.answers.bounds import parse_bounded

        expr, bounded = parse_bounded(latex2sympy, latex)
        if not bounded.ok:
            return None  # 10^{10^{10}}: the official code would compute it for ever; here it does not evaluate
        if getattr(expr, "free_symbols", None):
            return None
        value = float(expr.doit())
    except Exception:  # the official code catches everything here too
        return None
    return value if math.isfinite(value) else None


def _compat_error(reason: str, *_args: object, **_kwargs: object) -> NumericGrade:

    return NumericGrade(False, Outcome.ERROR, reason, compat="abench")


@never_raises(_compat_error)
def grade_abench_compat(response: str, reference: str, question: str = "", *,
                        rel_tol: float = 0.01) -> NumericGrade:
    """The official evaluator's verdict on ``response`` as a :class:`NumericGrade`."""
    from physeval.answers.units import required_format

    fmt = required_format(question or "")
    base: dict[str, Any] = {
        "compat": "abench",
        "unit_required": fmt.unit,
        "sig_figs_required": fmt.sig_figs,
        "scientific_required": fmt.scientific,
    }
    text = str(response or "")
    boxed = abench_boxed_content(text)
    base["extraction_rule"] = "boxed_last" if boxed is not None else "none"
    ref_value = abench_value(str(reference))
    base["reference_value"] = ref_value
    if boxed is None:
        return NumericGrade(False, Outcome.NO_ANSWER, "abench: no \\boxed{} in the response", **base)
    base["extracted"] = boxed
    expression = abench_delete_units(boxed)
    if "=" in expression or "\\approx" in expression:
        expression = re.split(r"=|\\approx", expression)[-1]
    value = abench_value(expression)
    if value is None:
        fallback = _single_number(expression)
        value = abench_value(str(fallback)) if fallback is not None else None
    if value is None:
        return NumericGrade(False, Outcome.UNPARSEABLE,
                            f"abench: {expression.strip()[:60]!r} does not evaluate to one number", **base)
    base["predicted"] = value
    if ref_value is None:
        return NumericGrade(False, Outcome.ERROR, f"abench: reference {reference!r} does not evaluate", **base)
    if abs(ref_value - value) <= rel_tol * abs(ref_value):
        return NumericGrade(True, Outcome.CORRECT, "abench: within tolerance (units stripped, not converted)", **base)
    return NumericGrade(False, Outcome.WRONG,
                        f"abench: {value:.6g} vs {ref_value:.6g} (units stripped, not converted)", **base)
