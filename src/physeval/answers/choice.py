"""The letter a multiple-choice answer ends on, and the rule that found it.

Why: a multiple-choice physics set should be one small module; the hard part, reading which
option a free-form solution chose, lives here once. Rules, first match wins, after ``<think>``
spans are removed: the last ``\\boxed{}`` (``\\boxed{B}``, ``\\boxed{(B)}``, ``\\boxed{\\text{B}}``);
an explicit answer phrase (``Answer: B``, ``the answer is (B)`` with an upper-case letter, ``答案：B``,
``选 B``), the last one; a last line that is only a letter (``B``, ``(B)``, ``B.``). Two different letters where one is
expected (``\\boxed{A or B}``) is ``ambiguous``, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ChoiceExtraction", "extract_choice"]

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_PHRASE = re.compile(  # phrase words in any case; the letter itself upper case ("the answer is a ball" is no A)
    r"(?i:final\s+answer|correct\s+(?:answer|option|choice)|answer|option|choice)(?:\s+(?i:is|would\s+be))?"
    r"\s*[:：=]?\s*[\(\[]?\s*\**([A-Z])\**\s*[\)\]]?(?![A-Za-z])"
    r"|(?:答案|选项|选)\s*(?:为|是)?\s*[:：]?\s*[\(（]?\s*([A-Z])(?![A-Za-z])")
_LONE = re.compile(r"^\s*[\(\[（]?\s*\**([A-Za-z])\**\s*[\)\]）]?\s*[.。]?\s*$")


@dataclass(frozen=True)
class ChoiceExtraction:
    """What :func:`extract_choice` read.

    Attributes:
        letter: The chosen option letter (upper case), or ``None``.
        rule: ``boxed``, ``answer_phrase``, ``last_line``, ``ambiguous`` or ``none``.
        text: The text the letter was read from.
    """

    letter: str | None
    rule: str
    text: str | None = None


def _boxed_contents(text: str) -> list[str]:
    out = []
    for match in _BOXED.finditer(text):
        depth, i = 1, match.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append(text[match.end(): i - 1])
    return out


def _letters_in(text: str, letters: str) -> list[str]:
    cleaned = re.sub(r"\\(?:text|mathrm|textbf|mathbf)\s*", "", text)
    found = re.findall(r"(?<![A-Za-z\\])([A-Za-z])(?![A-Za-z])", cleaned)
    return [c.upper() for c in found if c.upper() in letters]


def extract_choice(response: str, letters: str = "ABCD") -> ChoiceExtraction:
    """The option letter ``response`` chose among ``letters`` (never raises)."""
    if not isinstance(response, str):
        return ChoiceExtraction(None, "none")
    letters = letters.upper()
    text = _THINK.sub("", response)
    boxes = _boxed_contents(text)
    if boxes:
        found = _letters_in(boxes[-1], letters)
        if len(set(found)) == 1:
            return ChoiceExtraction(found[0], "boxed", boxes[-1])
        if len(set(found)) > 1:
            return ChoiceExtraction(None, "ambiguous", boxes[-1])
    phrases = [(m, m.group(1) or m.group(2)) for m in _PHRASE.finditer(text)]
    phrases = [(m, letter) for m, letter in phrases if letter in letters]
    if phrases:
        last, letter = phrases[-1]
        return ChoiceExtraction(letter, "answer_phrase", last.group(0).strip())
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if lines:
        match = _LONE.match(lines[-1])
        if match and match.group(1).upper() in letters:
            return ChoiceExtraction(match.group(1).upper(), "last_line", lines[-1].strip())
    return ChoiceExtraction(None, "none")
