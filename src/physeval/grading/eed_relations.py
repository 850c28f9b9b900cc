"""What an answer states, beyond its right side: the default mode's checks on relations and lists.

PHYBench compares an answer by the right side of its last relation, so everything else the
answer writes is thrown away: ``\\omega t = \\sqrt{k/m}``, ``2T_1 = mg``, ``T \\neq mg`` and
``v_1 = u,\\ v_2 = 0`` all equalled their references (``\\omega = \\sqrt{k/m}``, ``T = mg``,
``T = mg``, ``v_1 = 0``), and so did ``a, b`` against ``ab``. The default mode reads the rest too,
and only ever turns a right-side match into a miss (never the reverse):

* **Several results in one answer** (top-level ``,``, ``;``, ``\\quad``, ``\\text{and}``): the
  one whose left side is the reference's is graded; when none is, the answer is wrong.
* **Another kind of relation** (``\\neq``, ``<``, ``\\leq``, ``\\propto`` against ``=``): wrong.
  ``=``, ``\\approx``, ``\\simeq``, ``\\equiv``, ``\\sim`` are one kind. Against a bare expression
  any relation but ``\\neq`` may state it (``v \\leq \\sqrt{2gh}`` for the greatest speed).
* **Another quantity on the left:** when both have a left side, and they are not two names of
  one quantity (each a single symbol, a function of its arguments ``p(\\theta)``, or a change
  ``\\Delta y``: ``v_f = ...`` against ``v = ...`` is a naming), the left sides must be equivalent:
  ``\\omega^2`` against ``\\omega``, ``mv`` against ``v`` and ``\\alpha`` against ``\\tan\\theta`` are not.

The compat mode keeps the pipeline's reading (right sides only). One check turns a miss into a
match: a relation that is the reference's equation rearranged (``2T = mg`` for ``T = \\frac{mg}{2}``,
``T - mg = 0`` for ``T = mg``) is correct (:func:`same_equation`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from physeval.answers.latex import latex_to_sympy, left_side
from physeval.answers.latex_normalize import top_level_relations

__all__ = ["KIND_MISMATCH", "answer_parts", "choose_part", "relation_mismatch", "same_equation", "unquoted"]

KIND_MISMATCH = "another kind of relation"
"""How the reason begins when the answer's relation is of another kind (``\\neq`` for ``=``): it scores 0."""

_EQUALITY = frozenset({"=", "approx", "simeq", "equiv", "cong", "doteq", "triangleq", "approxeq", "sim"})
_KINDS = {"<": "<", "lt": "<", ">": ">", "gt": ">", "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥",
          "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠", "propto": "∝", "lesssim": "≲", "gtrsim": "≳"}
_QUOTES = re.compile(r"^\s*(?:\$+|\\\[|\\\()|(?:\$+|\\\]|\\\))\s*$")
_SEPARATOR_WORDS = re.compile(r"\\q?quad(?![a-zA-Z])|\\(?:text|mathrm|textrm)\s*\{\s*and\s*\}")
_COMMAND = re.compile(r"[A-Za-z]+")
_BRACKET_COMMANDS = {"{": 1, "}": -1, "lbrace": 1, "rbrace": -1, "langle": 1, "rangle": -1, "lvert": 1, "rvert": -1,
                     "lVert": 1, "rVert": -1, "lfloor": 1, "rfloor": -1, "lceil": 1, "rceil": -1}
_CHANGE = re.compile(r"^\\(?:Delta|delta)(?![a-zA-Z])\s*")
_WORDS = re.compile(r"\\(?:text|mathrm|textrm|textbf|textit|mbox)\s*\{[^{}]*\}")
_ARGUMENTS = re.compile(r"^(?P<name>.*?[A-Za-z}'])\s*(?:\\left\s*)?\((?P<args>[^()]*)(?:\\right\s*)?\)\s*$")


def unquoted(text: str) -> str:
    """``text`` without its math delimiters (``$...$``, ``\\[...\\]``, ``\\(...\\)``)."""
    previous = None
    while previous != text:
        previous, text = text, _QUOTES.sub("", text)
    return text.strip()


def answer_parts(text: str) -> list[str]:
    """The results an answer lists at top level, split at ``,`` ``;`` ``，`` ``；`` ``\\quad`` ``\\text{and}``
    outside every bracket (a comma between digits with three after it is a thousands separator).
    One part for an answer that states one result; words alone (``\\quad (\\text{upward})``) are
    a comment on the result, not one."""
    text = _SEPARATOR_WORDS.sub(";", unquoted(text))
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            name = _COMMAND.match(text, i + 1)
            word = name.group() if name else text[i + 1:i + 2]
            depth = max(0, depth + _BRACKET_COMMANDS.get(word, 0))
            i += 1 + max(1, len(word))
            continue
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth = max(0, depth - 1)
        elif depth == 0 and (char in ";，；" or (char == "," and not _thousands(text, i))):
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if _states_something(p)]


def _states_something(part: str) -> bool:
    """Whether a part holds more than words and punctuation (``\\text{upward}``, ``(\\text{up})``,
    ``方向竖直向上``): a Latin letter, a digit or a command outside ``\\text{}``."""
    return any(char.isascii() and (char.isalnum() or char == "\\") for char in _WORDS.sub("", part))


def _thousands(text: str, comma: int) -> bool:
    return comma > 0 and text[comma - 1].isdigit() and text[comma + 1:comma + 4].isdigit() and not (
        text[comma + 4:comma + 5].isdigit())


def choose_part(reference: str, answer: str) -> tuple[str | None, str]:
    """``(text, "")``: what of the answer to grade, ``(None, why)`` when nothing is.

    A listing answer gives the one part whose left side is the reference's (the answer itself
    when it lists nothing, or when the reference lists several results too); when none is, the
    answer is wrong. A relation written the other way round (``\\sqrt{2gh} = v`` for
    ``v = \\sqrt{2gh}``) is turned to face the reference."""
    parts = answer_parts(answer)
    wanted = left_side(unquoted(reference))
    if parts and len(answer_parts(reference)) == 1:
        named = [p for p in parts if wanted and _same_text(left_side(p), wanted)]
        if len(parts) > 1 and len(named) != 1:
            shown = "; ".join(parts[:4]) + ("; ..." if len(parts) > 4 else "")
            return None, f"the answer gives {len(parts)} results ({shown})" + (
                f", not one for {wanted}" if wanted else ", the reference one")
        answer = named[0] if len(parts) > 1 else parts[0]  # without the comments beside it
    return _facing(answer, wanted), ""


def _facing(answer: str, wanted: str) -> str:
    """``answer`` with its one ``=`` turned round when its right side, not its left, is ``wanted``."""
    text = unquoted(answer)
    relations = top_level_relations(text)
    if not wanted or len(relations) != 1 or text[relations[0][0]:relations[0][1]] != "=":
        return answer
    start, end = relations[0]
    left, right = text[:start], text[end:]
    if _same_text(right, wanted) and not _same_text(left, wanted):
        return f"{right.strip()} = {left.strip()}"
    return answer


_SPACES = re.compile(r"\\[,;:! ]|~|\s+")


def _same_text(a: str, b: str) -> bool:
    """Whether two texts are the same but for spaces, spacing commands and words (``\\ T_1``,
    ``\\text{or } T_1``, ``T_1``: an alternative names the quantity too)."""
    return bool(a) and _SPACES.sub("", _WORDS.sub("", a)) == _SPACES.sub("", _WORDS.sub("", b))


def relation_mismatch(reference: str, answer: str, equivalent: Callable[[str, str], bool | None]) -> str:
    """Why the answer, whose right side equals the reference's, states something else; ``""`` when
    it does not. ``equivalent(a, b)`` decides two left sides (``True`` only when proven)."""
    ref, ans = unquoted(reference), unquoted(answer)
    ref_kinds, ans_kinds = _kinds(ref), _kinds(ans)
    if (top_level_relations(ref) and ans_kinds != ref_kinds) or "≠" in ans_kinds - ref_kinds:
        stated = ", ".join(sorted(ans_kinds)) or "an equality"
        wanted = (", ".join(sorted(ref_kinds)) or "an equality") if top_level_relations(ref) else "no relation"
        return f"{KIND_MISMATCH}: the answer states {stated} where the reference states {wanted}"
    left_ref, left_ans = left_side(ref), left_side(ans)
    if not left_ref or not left_ans or _same_text(left_ref, left_ans):
        return ""
    if _names_one_quantity(left_ref) and _names_one_quantity(left_ans):
        return ""  # v_f against v: two names for the asked quantity
    ref_side, ans_side = latex_to_sympy(left_ref), latex_to_sympy(left_ans)
    if not (ref_side.ok and ans_side.ok) or ref_side.normalized == ans_side.normalized:
        return ""
    if _renamed(ref_side.expr, ans_side.expr):
        return ""  # \tan\alpha against \tan\theta: the same quantity of another name
    if equivalent(ref_side.normalized, ans_side.normalized):
        return ""
    return f"the left sides differ: the answer states {left_ans}, the reference {left_ref}"


def _renamed(reference: Any, answer: Any) -> bool:
    """Whether two left sides of one free symbol each are one expression but for that symbol's name."""
    ref_symbols, ans_symbols = reference.free_symbols, answer.free_symbols
    if len(ref_symbols) != 1 or len(ans_symbols) != 1:
        return False
    return bool(answer.xreplace({next(iter(ans_symbols)): next(iter(ref_symbols))}) == reference)


def _kinds(text: str) -> frozenset[str]:
    """The kinds of top-level relation ``text`` states other than equality (``≠``, ``<``, ``∝``, ...)."""
    kinds = set()
    for start, end in top_level_relations(text):
        token = text[start:end].lstrip("\\")
        if token not in _EQUALITY:
            kinds.add(_KINDS.get(token, token))
    return frozenset(kinds)


def _names_one_quantity(left: str) -> bool:
    """Whether a left side is a name: one symbol (``v_f``, ``\\omega_0``, ``T'``, ``\\vec{v}``), a
    function of its arguments (``p(\\theta)``, ``x(t)``) or a change (``\\Delta y``)."""
    text = _CHANGE.sub("", left.strip())
    call = _ARGUMENTS.match(text)
    if call is not None:
        text = call.group("name")
    if not text.strip():
        return False
    side = latex_to_sympy(text)
    return bool(side.ok and getattr(side.expr, "is_Symbol", False))


MAX_EQUATION_OPS = 60
"""Operation budget of :func:`same_equation`: each relation, written as one difference, holds at most this many."""


def same_equation(reference: str, answer: str) -> str:
    """Why the answer's relation is the reference's equation rearranged, or ``""``.

    Both state one ``=``; written as differences ``L - R``, the answer's is the reference's times a
    nonzero number or a product of powers of symbols (``2T - mg`` is ``2 (T - mg/2)``;
    ``v^2/r - g`` is ``(v^2 - g r) / r``). Every symbol is a positive quantity, so such a factor is
    never 0 and the two equations hold for the same values. ``\\omega^2 = k/m`` against
    ``\\omega = \\sqrt{k/m}`` differs by ``\\omega + \\sqrt{k/m}``, not such a factor, and stays a miss.
    Bounded: each difference holds at most :data:`MAX_EQUATION_OPS` operations."""
    import sympy

    differences = []
    for text in (unquoted(reference), unquoted(answer)):
        relations = top_level_relations(text)
        if len(relations) != 1 or text[relations[0][0]:relations[0][1]] != "=":
            return ""
        start, end = relations[0]
        left, right = latex_to_sympy(text[:start]), latex_to_sympy(text[end:])
        if not (left.ok and right.ok):
            return ""
        difference = left.expr - right.expr
        if sympy.count_ops(difference) > MAX_EQUATION_OPS:
            return ""
        differences.append(difference)
    ref_difference, ans_difference = differences
    if ref_difference == 0 or not ref_difference.free_symbols:
        return ""
    factor = sympy.cancel(ans_difference / ref_difference)
    if not _never_zero(factor, sympy):
        return ""
    return f"the same equation as the reference's, times {sympy.sstr(factor)}"


def _never_zero(factor: Any, sympy: Any) -> bool:
    """Whether ``factor`` is a nonzero finite number times powers of symbols (positive quantities)."""
    coefficient, rest = factor.as_coeff_Mul()
    if not coefficient.is_finite or coefficient == 0 or not coefficient.is_number:
        return False
    for base, exponent in rest.as_powers_dict().items():
        if base == 1:
            continue
        if not (isinstance(base, sympy.Symbol) and exponent.is_number and exponent.is_finite):
            return False
    return True
