"""Find the final answer in a model's response.

Shared by the numeric and symbolic tracks. Reasoning is never graded: ``<think>...</think>``
spans (and an unterminated ``<think>`` up to the end) are removed first. Then the last (or
first) ``\\boxed{...}`` / ``\\fbox{...}`` with balanced braces wins; without a box, an explicit
final-answer line ("Final answer:", "Answer:", "答案", "最终答案"). The rule that fired is
recorded so a surprising verdict can be traced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["Extraction", "extract_final_answer", "strip_reasoning", "find_boxed"]

BoxRule = Literal["last", "first"]

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>.*\Z", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE_ONLY = re.compile(r"\A.*?</think>", re.DOTALL | re.IGNORECASE)
_THINK_TAG = re.compile(r"</?think>", re.IGNORECASE)
_THINK_END = re.compile(r"</think>", re.IGNORECASE)
_BRACE_TOKENS = re.compile(r"\\.|[{}]", re.DOTALL)
_BOX_COMMANDS = re.compile(r"\\(?:boxed|fbox)\s*\{")
_FINAL_LINE = re.compile(
    r"(?im)^[^\S\n]*(?:[*#>\-]+[^\S\n]*)*(?:the[^\S\n]+)?"
    r"(?P<head>final[^\S\n]+answer|answer|最终答案|答案)(?:[^\S\n]*\*+)?[^\S\n]*"
    r"(?P<verb>is\b|为|是)?[^\S\n]*(?:\*+[^\S\n]*)?(?P<colon>[:：])?(?P<ans>[^\n]*)$"
)
_MATH_DELIMS = re.compile(r"\$+|\\\(|\\\)|\\\[|\\\]")


@dataclass(frozen=True)
class Extraction:
    """The answer text found in a response and the rule that found it.

    Attributes:
        text: The extracted answer (box content without the ``\\boxed{}`` wrapper), or
            ``None`` when nothing was found.
        rule: ``"boxed_last"``, ``"boxed_first"``, ``"final_line"`` or ``"none"``.
    """

    text: str | None
    rule: str


def strip_reasoning(response: str) -> str:
    """Remove ``<think>`` spans; a response with only a closing tag drops what precedes it."""
    if "<" not in response or _THINK_TAG.search(response) is None:
        return response  # no tag: none of the rewrites below applies
    text = _THINK_BLOCK.sub(" ", response)
    if _THINK_END.search(text):
        text = _THINK_CLOSE_ONLY.sub(" ", text)
    return _THINK_OPEN.sub(" ", text)


def find_boxed(text: str) -> list[str]:
    """Every ``\\boxed{...}``/``\\fbox{...}`` content in order, braces balanced.

    An unbalanced final box (a truncated response) is skipped, not guessed at.
    """
    found: list[str] = []
    pos = 0
    while True:
        match = _BOX_COMMANDS.search(text, pos)
        if match is None:
            return found
        start = match.end()
        depth = 1
        for token in _BRACE_TOKENS.finditer(text, start):  # a backslash escapes the next character
            brace = token.group()
            if brace == "{":
                depth += 1
            elif brace == "}":
                depth -= 1
                if not depth:
                    break
        if depth:
            return found
        end = token.end()
        found.append(text[start : end - 1].strip())
        pos = end


def _clean_line(line: str) -> str:
    answer = line.strip().strip("*").strip()
    answer = _MATH_DELIMS.sub(" ", answer)
    answer = re.sub(r"\s+", " ", answer).strip().strip("*").strip()
    return re.sub(r"[.。;；]+$", "", answer).strip()


def _next_block(text: str, pos: int) -> str:
    """The first non-empty line(s) after ``pos``; a ``$$``/``\\[`` block is taken whole."""
    rest = text[pos:].lstrip("\n")
    block = re.match(r"\s*(\$\$.*?\$\$|\\\[.*?\\\])", rest, re.DOTALL)
    if block:
        return block.group(1).replace("\n", " ")
    for line in rest.split("\n"):
        if line.strip():
            return line
    return ""


def extract_final_answer(response: str, *, box: BoxRule = "last") -> Extraction:
    """The final answer of ``response``: a box by ``box`` rule, else a final-answer line."""
    if box not in ("last", "first"):
        raise ValueError(f"box must be 'last' or 'first', not {box!r}")
    text = strip_reasoning(response or "")
    boxes = find_boxed(text)
    if boxes:
        return Extraction(boxes[-1] if box == "last" else boxes[0], f"boxed_{box}")
    for match in reversed(list(_FINAL_LINE.finditer(text))):
        if not (match.group("verb") or match.group("colon")):
            continue
        answer = _clean_line(match.group("ans"))
        if not answer:  # "Final answer:" followed by a display-math block on the next lines
            answer = _clean_line(_next_block(text, match.end()))
        if answer:
            return Extraction(answer, "final_line")
    return Extraction(None, "none")
