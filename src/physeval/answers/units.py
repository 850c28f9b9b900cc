"""A question's format demands: the required unit, significant figures and scientific notation.

ABench ends each question with an instruction such as ``(Results should be expressed in
scientific notation, with units of $ UNIT $, and rounded to N significant figures)`` or
``(结果使用科学计数法，以$ UNIT $为单位，保留N位有效数字)``. :func:`required_format` reads it
(English or Chinese); the unit is then read with the shared unit reader of
:mod:`physeval.units`, which also does every conversion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from physeval.answers.stated_unit import stated_unit
from physeval.units import PERCENT_KEY, Unit, normalize_unit_text, parse_unit, read_unit, unit_expression
from physeval.units.table import read_table_unit

__all__ = ["RequiredFormat", "required_format", "required_is_percent", "required_pint_unit", "required_unit"]

# Single symbols an ABench question sometimes states as a "unit" although they are a quantity's
# name left over from the source text (``{\prime``, ``\mathrm{E}``, ...). They are kept as text
# but never used to convert.
_UNTRUSTED_REQUIRED = frozenset(
    {"e", "E", "n", "p", "P", "B", "D", "fc", "kl", "arcminute", "arcsecond", "alpha"}
)


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

    @property
    def target_unit(self) -> Unit | None:
        """The required unit as a :class:`~physeval.units.Unit` (pint only for units outside its table)."""
        return required_unit(self.unit) if self.unit else None


def _trusted_unit_text(unit_text: str) -> str | None:
    """The text to read a question's stated unit from, or ``None`` for the source-text leftovers ABench contains."""
    expr = normalize_unit_text(unit_text)
    doubled = _DOUBLED.fullmatch(expr)
    if doubled:  # ``\mathrm{N}}{\mathrm{N}}``: a duplicated token in the source text
        return doubled.group(1)
    if not expr or expr in _UNTRUSTED_REQUIRED or "arcminute" in expr or "arcsecond" in expr:
        return None
    return unit_text


@lru_cache(maxsize=1024)
def required_pint_unit(unit_text: str) -> Any | None:
    """A question's stated unit as pint, refusing the source-text leftovers ABench contains."""
    text = _trusted_unit_text(unit_text)
    return parse_unit(text) if text is not None else None


@lru_cache(maxsize=1024)
def required_unit(unit_text: str) -> Unit | None:
    """:func:`required_pint_unit` as a :class:`~physeval.units.Unit`: the same unit, pint only when needed."""
    text = _trusted_unit_text(unit_text)
    return read_unit(text) if text is not None else None


@lru_cache(maxsize=1024)
def required_is_percent(unit_text: str) -> bool:
    """Whether a question's stated unit is pint's ``percent`` (what ``required_unit(...).key`` says), cheaply.

    pint spells percent ``percent`` (the unit reader turns ``%`` into it), so an expression
    without that word is not percent and pint is not asked; otherwise the table or pint decides.
    """
    text = _trusted_unit_text(unit_text)
    expr = unit_expression(text) if text is not None else None
    if expr is None:
        return False
    table = read_table_unit(expr)
    if table is not None:
        return table.key == PERCENT_KEY
    if "percent" not in expr:
        return False
    unit = required_unit(unit_text)
    return unit is not None and unit.key == PERCENT_KEY


_INSTRUCTION = re.compile(
    r"[(（]\s*(?:结果|Results?\s+should)(?P<body>[^()（）]*?(?:\([^()]*\)[^()（）]*?)*)[)）]\s*$",
    re.IGNORECASE | re.DOTALL,
)
_INSTRUCTION_HEAD = re.compile(r"[(（]\s*(?:结果|Results?\s+should)", re.IGNORECASE)
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
_LEADING_SPACE = re.compile(r"^\\[;,: ]\s*")
_DOUBLED = re.compile(r"(\w+)\*\1")
_SCI = re.compile(r"科学计数法|scientific\s+notation", re.IGNORECASE)


def _instruction(tail: str) -> str | None:
    """``_INSTRUCTION.search(tail).group(0)``, found by walking back from the closing bracket.

    The instruction closes the text (``[)）]\\s*$``) and its body holds no bracket but balanced
    ASCII ``(...)`` groups with no ASCII parenthesis inside, so walking back from the last
    bracket over those groups checks the whole body and leaves one possible opening: the first
    unpaired ``(`` or ``（``, which must then begin with ``结果`` or ``Results should``
    (``_INSTRUCTION_HEAD``). The regex's lazy body costs a microsecond a question; the walk is a
    few ``rfind`` calls. ``tests/answers/test_required_format.py`` holds the two equal.
    """
    end = len(tail.rstrip()) - 1
    if end < 0 or tail[end] not in ")）":
        return None
    pos = end
    while True:
        i = _last_of(tail, "()（）", pos)
        if i < 0 or tail[i] == "）":
            return None
        if tail[i] != ")":
            return tail[i:] if _INSTRUCTION_HEAD.match(tail, i) else None
        opening = _last_of(tail, "()", i)  # the group's "(": its nearest ASCII parenthesis
        if opening < 0 or tail[opening] == ")":
            return None
        pos = opening


def _last_of(text: str, chars: str, end: int) -> int:
    """The last index before ``end`` holding one of ``chars`` (``-1`` if none): each later ``rfind``
    searches only past the best index so far, so the tail is scanned about once."""
    best = -1
    for char in chars:
        found = text.rfind(char, best + 1, end)
        if found > best:
            best = found
    return best


def _clean_required_unit(raw: str) -> str | None:
    unit = " ".join(raw.split())  # re's \s and str.split agree on whitespace
    unit = _LEADING_SPACE.sub("", unit).strip()
    return unit or None


@lru_cache(maxsize=4096)
def required_format(question: str) -> RequiredFormat:
    """Read the unit, significant figures and scientific-notation demand from a question.

    ABench ends each question with ``(Results should be expressed [in scientific notation, ]
    [with units of $ UNIT $,] and rounded to N significant figures)`` or
    ``(结果[使用科学计数法，][以$ UNIT $为单位，]保留N位有效数字)``. Where that instruction
    states no unit (or is absent), the unit is read from the common phrasings of
    :func:`~physeval.answers.stated_unit.stated_unit` ("Give the answer in km/s", "(in km/s)", ...).
    """
    if not question:
        return RequiredFormat()
    tail = question[-600:]
    body = _instruction(tail)
    if body is None:
        loose = _INSTRUCTION_LOOSE.search(tail)
        if loose is None:
            return RequiredFormat(unit=stated_unit(question))
        body = loose.group(0)
    unit_match = _unit_phrase(body)
    unit = _clean_required_unit(unit_match.group("u")) if unit_match else None
    if unit is None:
        unit = stated_unit(question)  # "Give the answer in km/s", "(in km/s)", "单位：km/s", ...
    sig = (_SIG_ZH.search(body) if "有效数字" in body else None) or _SIG_EN.search(body)
    return RequiredFormat(
        unit=unit,
        sig_figs=int(sig.group(1)) if sig else None,
        scientific="科学计数法" in body or _SCI.search(body) is not None,
        instruction=body.strip(),
    )


def _unit_phrase(body: str) -> re.Match[str] | None:
    """The instruction's unit phrase: the first of ``_UNIT_ZH``, ``_UNIT_EN``, ``_UNIT_ZH_PLAIN``,
    ``_UNIT_EN_PLAIN`` that matches, each tried only when ``body`` holds the text it cannot match
    without (``为单位``; ``of`` in any case: no character but ``O``/``F`` matches ``o``/``f`` under
    ``re.IGNORECASE``; a ``$``), so a body is searched once or twice, not four times."""
    zh = "为单位" in body
    en = "of" in body.lower()
    math = "$" in body
    found = (_UNIT_ZH.search(body) if zh and math else None) or (_UNIT_EN.search(body) if en and math else None)
    if found is None:
        found = (_UNIT_ZH_PLAIN.search(body) if zh else None) or (_UNIT_EN_PLAIN.search(body) if en else None)
    return found
