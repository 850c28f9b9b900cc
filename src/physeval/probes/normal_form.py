"""LaTeX math as a sequence of tokens in one spelling, so an edit can be found wherever it occurs.

A reference solution and its answer often spell one symbol two ways (``z_{0}^{2}`` and
``z_0^{2}``, ``\\varepsilon_{0}`` and ``\\epsilon_0``). The poisoning probe carries an edit of the
solution into the answer (:func:`physeval.probes.perturbations.implied_answer`); it does so on
this normal form, where:

* a token is a command (``\\omega``), an escaped character (``\\,``), a number (``12``, ``0.5``)
  or one character; whitespace separates tokens and is otherwise dropped;
* braces around a one-token sub- or superscript go (``_{0}`` -> ``_0``, ``^{2}`` -> ``^2``;
  ``^{10}`` and ``_{\\mathrm{B}}`` keep theirs);
* spellings the answer normaliser already unifies are one (``\\epsilon`` -> ``\\varepsilon``,
  ``\\dfrac``/``\\tfrac`` -> ``\\frac``, ``\\hslash`` -> ``\\hbar``), and sizing and spacing
  commands (``\\left``, ``\\right``, ``\\,``, ``\\displaystyle``...) are dropped.

:func:`render` writes tokens back as LaTeX (a space only where one is needed). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["Tokens", "find", "in_name", "normal_tokens", "render"]

Tokens = tuple[str, ...]

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[0-9]+(?:\.[0-9]+)?|\S", re.DOTALL)
_ALIASES = {"\\epsilon": "\\varepsilon", "\\dfrac": "\\frac", "\\tfrac": "\\frac", "\\cfrac": "\\frac",
            "\\hslash": "\\hbar", "\\varOmega": "\\Omega"}
_DROPPED = frozenset({"\\left", "\\right", "\\bigl", "\\bigr", "\\Bigl", "\\Bigr", "\\biggl", "\\biggr",
                      "\\big", "\\Big", "\\bigg", "\\Bigg", "\\displaystyle", "\\textstyle", "\\limits",
                      "\\,", "\\;", "\\:", "\\!", "\\ ", "\\quad", "\\qquad"})
_SIZED = frozenset({"\\left", "\\right"})
_TEXT_COMMANDS = frozenset({"\\text", "\\mathrm", "\\operatorname", "\\textrm", "\\textbf", "\\mbox",
                            "\\mathbf", "\\mathit"})
_COMMAND = re.compile(r"\\[A-Za-z]+")


def _is_atom(token: str) -> bool:
    """A token that may stand as a script without braces: one character or a command name."""
    return len(token) == 1 or bool(_COMMAND.fullmatch(token))


def normal_tokens(latex: str) -> Tokens:
    """The tokens of ``latex`` in the normal form (see the module doc)."""
    raw = _TOKEN.findall(latex)
    kept: list[str] = []
    skip_dot = False
    for token in raw:
        if skip_dot and token == ".":  # \left. and \right. are invisible delimiters
            skip_dot = False
            continue
        skip_dot = token in _SIZED
        if token in _DROPPED:
            continue
        kept.append(_ALIASES.get(token, token))
    out: list[str] = []
    k = 0
    while k < len(kept):
        token = kept[k]
        if (token in ("_", "^") and k + 3 < len(kept) and kept[k + 1] == "{" and kept[k + 3] == "}"
                and _is_atom(kept[k + 2]) and kept[k + 2] not in "{}"):
            out.extend((token, kept[k + 2]))
            k += 4
            continue
        out.append(token)
        k += 1
    return tuple(out)


def render(tokens: Sequence[str]) -> str:
    """``tokens`` written back as LaTeX: joined, with a space between two letters or before a
    letter after a command (``N e q_0``, ``\\pi R``) and between two numbers (which would merge)."""
    parts: list[str] = []
    for k, token in enumerate(tokens):
        if k:
            prev = tokens[k - 1]
            if (token[:1].isalpha() and (prev.isalpha() or _COMMAND.fullmatch(prev))) or (
                    prev[-1:].isdigit() and token[:1].isdigit()):
                parts.append(" ")
        parts.append(token)
    return "".join(parts)


def find(tokens: Sequence[str], pattern: Sequence[str], start: int = 0) -> int:
    """The first index at or after ``start`` where ``pattern`` occurs in ``tokens``; -1 if none."""
    n = len(pattern)
    if not n:
        return -1
    for k in range(start, len(tokens) - n + 1):
        if tokens[k] == pattern[0] and tuple(tokens[k:k + n]) == tuple(pattern):
            return k
    return -1


def in_name(tokens: Sequence[str]) -> list[bool]:
    """True for each token that is part of another symbol's name: in a subscript (``r`` in
    ``x_{r}``) or a ``\\text{}``-like argument. A superscript group holds mathematics (``r_0^2``
    in ``e^{k r_0^2}`` is a symbol), so it is not a name."""
    flags = [False] * len(tokens)
    stack: list[bool] = []  # per open brace: is it a subscript or text group?
    pending = False  # the next token (or group) is a subscript or a text argument
    for k, token in enumerate(tokens):
        inside = any(stack)
        if token == "{":
            stack.append(pending)
            pending = False
            flags[k] = inside
            continue
        if token == "}":
            if stack:
                stack.pop()
            flags[k] = any(stack)
            continue
        if pending:
            flags[k] = True
            pending = False
            continue
        flags[k] = inside
        if token == "_" or token in _TEXT_COMMANDS:
            pending = True
    return flags
