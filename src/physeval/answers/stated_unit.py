"""The unit a question asks for, read from the ways people commonly write it.

ABench's own closing instruction is read by :func:`physeval.answers.units.required_format`;
every other dataset states the unit in prose: "Give the answer in km/s.", "Express v in
\\mathrm{km/s}", "What is v (in km/s)?", "in units of eV", "Find v in km/s.", "单位：km/s",
"以 km/s 为单位", "用 km/s 表示". :func:`stated_unit` reads those phrasings, and only those: the
words after "in" must be a unit the shared unit reader knows, and must end where a phrase ends, so
"in the figure", "in a vacuum" or "in terms of m" are not units; a one- or two-letter unit that
the question also uses as a symbol ("a block of mass m ... in m") is refused, since it names a
quantity there, not a unit.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from physeval.units import normalize_unit_text, read_unit

__all__ = ["stated_unit"]

# A unit as written: in math mode, as \mathrm{...}/\text{...}, or as plain text up to a phrase end.
_MATH = r"\$[^$]{1,40}\$"
_ROMAN = (r"\\(?:mathrm|text|rm|textrm)\s*\{[^{}]{1,30}\}"
          r"(?:\s*(?:\^\{?-?\d\}?|/\s*\\(?:mathrm|text)\s*\{[^{}]{1,12}\}))*")
_PLAIN = r"(?!in\s)[^\s.,;:?!()（）。，；：$\\](?:(?!\sin\s)[^.,;:?!()（）。，；：$\n]){0,24}?"
_UNIT = rf"(?P<u>{_MATH}|{_ROMAN}|{_PLAIN})"
_END = r"(?=\s*(?:[.?!;,:)）。，；：]|$|\s(?:and|to|with|using|rounded|accurate|correct|as|when|if|for)\b))"
_OF = r"(?:(?:the\s+)?units?\s+of\s+)?"

_PHRASE_SOURCES = (
    # "Give/Express/Write/State/Answer ... in km/s", "... in units of km/s"
    rf"\b(?:give|express|write|state|report|provide|present|answer|enter)\b[^.?!;\n]{{0,80}}?\bin\s+{_OF}{_UNIT}{_END}",
    # "(in km/s)", "(in units of km/s)", "(unit: km/s)"
    rf"[(（]\s*(?:in\s+{_OF}|units?\s*[:：]\s*){_UNIT}\s*[)）]",
    # "... in units of km/s" anywhere
    rf"\bin\s+(?:the\s+)?units?\s+of\s+{_UNIT}{_END}",
    # "Find/What is/Calculate ... in km/s." at the end of a sentence
    rf"\b(?:find|what\s+is|what\s+are|what's|calculate|compute|determine|estimate|evaluate|obtain|how\s+\w+)\b"
    rf"[^.?!;\n]{{0,100}}?\bin\s+{_UNIT}{_END}",
    # "unit: km/s", "units: eV"
    rf"\bunits?\s*[:：]\s*{_UNIT}{_END}",
    # Chinese: 单位：km/s, 单位为 km/s, 以 km/s 为单位, 用 km/s 表示
    rf"单位\s*(?:[:：]|为|是)\s*{_UNIT}(?=\s*(?:[)）。，；,;.]|$))",
    rf"以\s*{_UNIT}\s*(?:作)?为单位",
    rf"用\s*{_UNIT}\s*表示",
)

# What each phrasing cannot match without (its beginning, up to the unit): cheap scans that let a question skip
# the phrasings it cannot contain, so most questions compile and run none of them.
_GATES = tuple(re.compile(g, re.IGNORECASE) for g in (
    r"\b(?:give|express|write|state|report|provide|present|answer|enter)\b[^.?!;\n]{0,80}?\bin\s",
    r"[(（]\s*(?:in\s|units?\s*[:：])",
    r"\bin\s+(?:the\s+)?units?\s+of\s",
    r"\b(?:find|what\s+is|what\s+are|what's|calculate|compute|determine|estimate|evaluate|obtain|how\s+\w+)\b"
    r"[^.?!;\n]{0,100}?\bin\s",
    r"\bunits?\s*[:：]",
    r"单位\s*(?:[:：]|为|是)",
    r"以[\s\S]*?为单位",
    r"用[\s\S]*?表示",
))
# Every phrasing above contains one of these (an "in", a "unit", 单位, 表示): a question with none
# states no unit, and nothing else need run.
_ANY_PHRASE = re.compile(r"\bin\s|\bunits?\b|单位|表示", re.IGNORECASE)
_LOCK = threading.Lock()
_COMPILED: dict[int, re.Pattern[str]] = {}


def _may_state_a_unit(question: str) -> bool:
    """``_ANY_PHRASE.search(question)``, skipped when a plain substring test already says no.

    Both "in" and "unit" contain an ``n`` or ``N`` (the only letters re's IGNORECASE matches with
    ``n``), so a question without either states no unit in English; the substring tests cost a
    fraction of the case-insensitive scan over a long, mostly Chinese question.
    """
    if "单位" in question or "表示" in question:
        return True
    if "n" not in question and "N" not in question:
        return False
    return _ANY_PHRASE.search(question) is not None


def _phrases(question: str) -> list[re.Pattern[str]]:
    """The phrasings ``question`` may contain, each compiled once, on first use."""
    out = []
    for i, gate in enumerate(_GATES):
        if gate.search(question):
            pattern = _COMPILED.get(i)
            if pattern is None:
                with _LOCK:
                    pattern = _COMPILED.get(i)
                    if pattern is None:
                        pattern = _COMPILED[i] = re.compile(_PHRASE_SOURCES[i], re.IGNORECASE)
            out.append(pattern)
    return out


# Words that follow "in" without being a unit, even when a unit reader would read them ("a" is a year).
_NOT_UNITS = frozenset({"a", "an", "the", "terms", "this", "that", "which", "its", "their", "order", "si", "it"})


def _bare(unit: str) -> str:
    """The unit without math delimiters or roman wrappers: ``$\\mathrm{km/s}$`` -> ``km/s``."""
    text = unit.strip().strip("$").strip()
    return re.sub(r"\\(?:mathrm|text|rm|textrm)\s*\{([^{}]*)\}", r"\1", text).strip()


def _names_a_symbol(bare: str, question: str, span: tuple[int, int]) -> bool:
    """Whether the short unit ``bare`` is also used as a symbol elsewhere in the question: standing
    alone and not after a number ("mass m", "$m$", "m = 2 kg"), outside the phrase that states it."""
    if not re.fullmatch(r"[A-Za-z]{1,2}", bare):
        return False
    rest = question[:span[0]] + " " + question[span[1]:]
    for hit in re.finditer(rf"(?<![A-Za-z\\])({re.escape(bare)})(?![A-Za-z])", rest):
        before = rest[:hit.start()].rstrip(" ~\\,${}")
        if not re.search(r"(?:\d|\^\{?-?\d+\}?)$", before):  # "3 m", "10^{3} m" are the unit itself
            return True
    return False


@lru_cache(maxsize=4096)
def stated_unit(question: str) -> str | None:
    """The unit ``question`` asks its answer in, as written (``km/s``, ``\\mathrm{km/s}``), or ``None``.

    The last phrasing that states a unit wins (instructions close a question). Words that are not a
    unit, and a short unit the question also uses as a symbol, are refused.
    """
    if not question or not _may_state_a_unit(question):
        return None
    found: list[tuple[int, str]] = []
    for pattern in _phrases(question):
        for match in pattern.finditer(question):
            raw = match.group("u").strip()
            bare = _bare(raw)
            first = bare.split()[0] if bare else ""
            if not first or (first if len(first) == 1 else first.lower()) in _NOT_UNITS:
                continue
            if not normalize_unit_text(raw) or read_unit(raw) is None:
                continue
            if not raw.startswith(("$", "\\")) or re.fullmatch(r"\$[A-Za-z]{1,2}\$", raw):
                if _names_a_symbol(bare, question, match.span("u")):
                    continue
            found.append((match.start("u"), raw))
    return max(found)[1] if found else None
