"""Where the mathematics of a LaTeX solution is: its math spans, in order.

A solution's *equations* are its ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]`` and
``equation``/``align``/``gather``-like environments; the poisoning probe edits and truncates by them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MATH_ENVS", "MathSpan", "find_equations"]


MATH_ENVS = ("equation", "equation*", "align", "align*", "gather", "gather*", "eqnarray", "eqnarray*",
              "multline", "multline*", "displaymath")


@dataclass(frozen=True)
class MathSpan:
    """One math span of a solution: ``text[start:end]`` with its content at ``[inner_start, inner_end)``."""

    index: int
    start: int
    end: int
    inner_start: int
    inner_end: int
    display: bool


def _find_close(text: str, pos: int, closer: str) -> int:
    """Position of ``closer`` at or after ``pos`` not escaped by a backslash; -1 if none."""
    while True:
        found = text.find(closer, pos)
        if found < 0:
            return -1
        backslashes = 0
        k = found - 1
        while k >= 0 and text[k] == "\\":
            backslashes += 1
            k -= 1
        if closer.startswith("\\") or backslashes % 2 == 0:
            return found
        pos = found + 1


def find_equations(text: str) -> list[MathSpan]:
    """Every math span of ``text`` in order (display and inline); unterminated openers are skipped."""
    spans: list[MathSpan] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "[(":
                closer = "\\]" if nxt == "[" else "\\)"
                close = _find_close(text, i + 2, closer)
                if close >= 0:
                    spans.append(MathSpan(len(spans), i, close + 2, i + 2, close, nxt == "["))
                    i = close + 2
                    continue
            match = re.match(r"\\begin\{([a-zA-Z*]+)\}", text[i:])
            if match and match.group(1) in MATH_ENVS:
                closer = f"\\end{{{match.group(1)}}}"
                close = text.find(closer, i + match.end())
                if close >= 0:
                    spans.append(MathSpan(len(spans), i, close + len(closer), i + match.end(), close, True))
                    i = close + len(closer)
                    continue
            i += 2
            continue
        if ch == "$":
            if text.startswith("$$", i):
                close = _find_close(text, i + 2, "$$")
                if close >= 0:
                    spans.append(MathSpan(len(spans), i, close + 2, i + 2, close, True))
                    i = close + 2
                    continue
                i += 2
                continue
            close = _find_close(text, i + 1, "$")
            if close >= 0 and "\n\n" not in text[i + 1:close]:
                spans.append(MathSpan(len(spans), i, close + 1, i + 1, close, False))
                i = close + 1
                continue
        i += 1
    return spans
