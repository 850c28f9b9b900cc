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

from physeval.answers.latex import latex_to_sympy
from physeval.answers.latex_normalize import (
    DEGREE_MARK,
    DEGREE_MARK_ENDS,
    TEMPERATURE_SCALE,
    relation_left,
    strip_to_rhs,
    top_level_relations,
)
from physeval.grading.comment_words import unread_words
from physeval.grading.eed_rearranged import _EQUALITY, _KINDS, _NEGATION, same_equation, unquoted

__all__ = [
    "GIVEN_FIXED", "KIND_MISMATCH", "UNREAD_WORDS", "answer_parts", "choose_part", "relation_mismatch",
    "same_equation", "unquoted",
]

KIND_MISMATCH = "another kind of relation"
"""How the reason begins when the answer's relation is of another kind (``\\neq`` for ``=``): it scores 0."""
UNREAD_WORDS = "words beside the result that may change it"
"""How the reason begins when a comment beside the result holds words outside the comment
vocabulary (``\\text{ squared}``, ``(\\text{minimum})``): the verdict is undecided."""
GIVEN_FIXED = "another result fixes or bounds a quantity the reference's result is written in"
"""How the reason begins when a second part constrains a given (``v < \\sqrt{2gh},\\ h = 0``): wrong."""

_SEPARATOR_WORDS = re.compile(
    r"\\q?quad(?![a-zA-Z])|\\(?:text|mathrm|textrm)\s*\{\s*and\s*\}"
    r"|\\(?:Rightarrow|Longrightarrow|implies|therefore|iff|Leftrightarrow)(?![a-zA-Z])")
# words between results: not a label (E_\text{k}), not the scale of a degree (30^\circ\text{C}), not a
# function's name (\text{sech}(x)); only at the top level (v_{\text{max}} is a label)
_BETWEEN_WORDS = re.compile(r"(?<![_^])\\(?:text|textrm|mbox)\s*\{(?P<words>[^{}]*)\}")
# a comment in brackets closing a result: (\text{upward}), (\text{above the horizontal})
_BRACKETED_COMMENT = re.compile(r"(?:\\[,;:! ]|~|\s)*\((?P<words>(?:\\(?:text|textrm|mbox)\s*\{[^{}]*\}|\s)+)\)\s*$")
_FUNCTION_NAME = re.compile(
    r"\s*(?:a(?:rc)?)?(?:sin|cos|tan|cot|sec|csc)h?\s*|\s*(?:ln|log|exp|erfc?|ar(?:sinh|cosh|tanh|coth)"
    r"|max|min|sgn|sign|Re|Im)\s*")
_EDGE_SPACING = re.compile(r"^(?:\s|\\[,;:! ]|~)+|(?:\s|\\[,;:! ]|~)+$")
_EMPTY_SCRIPTS = re.compile(r"[_^]\s*\{\s*\}")
_COMMAND = re.compile(r"[A-Za-z]+")
_BRACKET_COMMANDS = {"{": 1, "}": -1, "lbrace": 1, "rbrace": -1, "langle": 1, "rangle": -1, "lvert": 1, "rvert": -1,
                     "lVert": 1, "rVert": -1, "lfloor": 1, "rfloor": -1, "lceil": 1, "rceil": -1}
_CHANGE = re.compile(r"^\\(?:Delta|delta)(?![a-zA-Z])\s*")
_TEXT_WORDS = re.compile(r"\\(?:text|textrm|textbf|textit|mbox)\s*\{[^{}]*\}")
_HEDGE = re.compile(r"(?i:\b(?:or|not|either|otherwise|unless|possibly|maybe|perhaps|wrong|incorrect|false|invalid)\b)"
                    r"|或|不|否|可能|也许|错")
_WORDS = re.compile(r"\\(?:text|mathrm|textrm|textbf|textit|mbox)\s*\{[^{}]*\}")
_ARGUMENTS = re.compile(r"^(?P<name>.*?[A-Za-z}'])\s*(?:\\left\s*)?\((?P<args>[^()]*)(?:\\right\s*)?\)\s*$")


def answer_parts(text: str) -> list[str]:
    """The parts an answer lists at top level, split at ``,`` ``;`` ``，`` ``；`` ``\\quad`` ``\\text{and}``
    outside every bracket (a comma between digits with exactly three after it is a thousands
    separator). One part for an answer that states one result; a part of words alone
    (``\\quad (\\text{upward})``) is a comment (:func:`is_comment`)."""
    text = _SEPARATOR_WORDS.sub(";", unquoted(text))
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        char = text[i]
        words = _BETWEEN_WORDS.match(text, i) if char == "\\" and depth == 0 else None
        if words is not None and not _FUNCTION_NAME.fullmatch(words.group("words")) and not (
                TEMPERATURE_SCALE.fullmatch(words.group("words")) and DEGREE_MARK_ENDS.search(text, 0, i)):
            parts += [text[start:i], words.group()]  # the words are a part of their own: a comment
            start = i = words.end()
            continue
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
    parts = [piece for part in parts for piece in _bracketed_comment_apart(part)]
    return [part for part in (_EDGE_SPACING.sub("", p) for p in parts) if part]


def _bracketed_comment_apart(part: str) -> list[str]:
    """A part closing with words in brackets as the part and the comment (``30^\\circ\\,(\\text{up})``)."""
    comment = _BRACKETED_COMMENT.search(part)
    if comment is None or comment.start() == 0:
        return [part]
    return [part[:comment.start()], part[comment.start():]]


def is_comment(part: str) -> bool:
    """Whether a part holds only words and punctuation: no Latin letter, digit or command outside
    ``\\text{}`` (``\\text{upward}``, ``(\\text{up})``, ``方向竖直向上``)."""
    return not any(char.isascii() and (char.isalnum() or char == "\\") for char in _WORDS.sub("", part))


def _thousands(text: str, comma: int) -> bool:
    """A comma between digits with exactly three after it (``12,000``; ``1,5`` is no separator)."""
    after = text[comma + 1:comma + 4]
    return comma > 0 and text[comma - 1].isdigit() and len(after) == 3 and after.isdigit() and not (
        text[comma + 4:comma + 5].isdigit())


def choose_part(reference: str, answer: str) -> tuple[str | None, str]:
    """``(text, "")``: what of the answer to grade, ``(None, why)`` when nothing is.

    An answer listing several parts is graded by the one whose left side names the reference's
    quantity, and only when every other part states another quantity (``T_2 = mg`` beside
    ``T_1 = 2mg``): a second value, a relation on the same quantity (``v < \\sqrt{gh}``) or a
    hedging comment (``\\text{or zero}``, ``或为零``) makes it wrong, as does a listing when the
    reference names no quantity (unless the reference lists several results too). A relation
    written the other way round (``\\sqrt{2gh} = v`` for ``v = \\sqrt{2gh}``) is turned to face
    the reference."""
    parts = answer_parts(answer)
    wanted = relation_left(unquoted(reference))
    if not parts or len(answer_parts(reference)) > 1:
        return _facing(answer, wanted), ""
    comments = [p for p in parts if is_comment(p)]
    hedges = [c for c in comments + _WORDS.findall(unquoted(answer)) if _HEDGE.search(c)]
    hedges += [sign for sign in ("\\pm", "\\mp") if _command_in(sign, answer) and not _command_in(sign, reference)]
    if hedges:
        return None, f"the answer hedges: {'; '.join(hedges)[:120]}"
    results = [p for p in parts if not is_comment(p)]
    if len(results) > 1:
        key = _name_key(wanted) if wanted else None
        keys = [_name_key(relation_left(p)) if relation_left(p) else None for p in results]
        named = [p for p, k in zip(results, keys) if key is not None and k == key]
        others_named = all(k is not None and k != key for p, k in zip(results, keys) if p not in named)
        if len(named) != 1 or not others_named:
            shown = "; ".join(results[:4]) + ("; ..." if len(results) > 4 else "")
            return None, f"the answer gives {len(results)} results ({shown})" + (
                f", not one for {wanted} beside results for other quantities" if wanted else ", the reference one")
        others = [p for p in results if p is not named[0]]
        second = _second_value(wanted, named[0], others)
        if second:
            return None, f"the answer gives a second result for {wanted}: {second}"
        fixed = _a_given_fixed(reference, others)
        if fixed:
            return None, f"{GIVEN_FIXED}: {fixed}"
        results = named
    in_degrees = bool(DEGREE_MARK.search(answer))
    unread = [word for comment in comments for word in unread_words(comment, in_degrees=in_degrees)]
    if unread:  # after the results: a second value is wrong whatever the words say
        return None, f"{UNREAD_WORDS}: {', '.join(unread)[:120]}"
    if not results:
        return answer, ""
    return _facing(results[0], wanted), ""


def _second_value(wanted: str, chosen: str, others: list[str]) -> str:
    """The first of ``others`` that states something of the wanted quantity (its left side holds
    the quantity's symbols) and is not ``chosen`` rearranged or raised to a power: ``v^2 = gh``
    beside ``v = \\sqrt{2gh}``; ``v^2 = 2gh`` beside it is a step, not a second value."""
    name = latex_to_sympy(wanted)
    if not name.ok:
        return ""
    symbols = {s.name for s in name.expr.free_symbols}
    for other in others:
        if symbols & _left_names(other) and not same_equation(chosen, other):
            return other
    return ""


def _a_given_fixed(reference: str, others: list[str]) -> str:
    """The first of ``others`` whose left side holds a symbol of the reference's right side: it fixes
    or bounds a given the result is written in (``h = 0``, ``g > h`` or ``a > b`` beside
    ``v < \\sqrt{2gh}`` or ``x > a - b``), so the result no longer says what the reference says."""
    right = latex_to_sympy(strip_to_rhs(unquoted(reference)))
    if not right.ok:
        return ""
    givens = {s.name for s in right.expr.free_symbols}
    return next((other for other in others if givens & _left_names(other)), "")


def _left_names(part: str) -> set[str]:
    """The symbol names of a part's left side, brackets around the part ignored (none if it does not parse)."""
    left = latex_to_sympy(relation_left(_unbracketed(part)))
    return {s.name for s in left.expr.free_symbols} if left.ok else set()


_OUTER_BRACKETS = re.compile(r"^\s*(?:\\left\s*)?\((?P<inner>.*?)(?:\\right\s*)?\)\s*$", re.DOTALL)


def _unbracketed(part: str) -> str:
    """A part without one pair of brackets around all of it: ``(g = 2h)`` is ``g = 2h``."""
    match = _OUTER_BRACKETS.match(part)
    if match is None:
        return part
    inner, depth = match.group("inner"), 0
    for char in inner:  # (a)(b) is not one pair around all of it
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return part
    return inner if depth == 0 else part


def _name_key(left: str) -> str | None:
    """A left side as the quantity it names, written one way (``\\mathrm{v}``, ``v``, ``\\text{or } v``
    alike), or ``None`` when it does not parse."""
    text = _EMPTY_SCRIPTS.sub("", _TEXT_WORDS.sub("", left)).strip()
    if not text:
        return None
    side = latex_to_sympy(text)
    return _SPACES.sub("", side.normalized) if side.ok else _SPACES.sub("", text)


_MIRRORED = {"<": ">", "lt": "gt", "le": "ge", "leq": "geq", "leqslant": "geqslant", "lesssim": "gtrsim"}
_MIRRORED |= {right: left for left, right in _MIRRORED.items()}
_MIRRORED |= {kind: kind for kind in (*_EQUALITY, "ne", "neq", "propto")}
"""Each relation token and the one it becomes with its sides swapped (``a < b`` is ``b > a``)."""


def _facing(answer: str, wanted: str) -> str:
    r"""``answer`` with its one relation turned round when its right side, not its left, is
    ``wanted``: ``\sqrt{2gh} = v`` is ``v = \sqrt{2gh}``, and ``\sqrt{2gh} > v`` is ``v < \sqrt{2gh}``."""
    text = unquoted(answer)
    relations = top_level_relations(text)
    if not wanted or len(relations) != 1:
        return answer
    start, end = relations[0]
    token = text[start:end]
    mirrored = _MIRRORED.get(token.lstrip("\\"))
    if mirrored is None or _NEGATION.search(text, 0, start):
        return answer
    left, right = text[:start], text[end:]
    if _same_text(right, wanted) and not _same_text(left, wanted):
        relation = mirrored if token in ("<", ">", "=") else "\\" + mirrored
        return f"{right.strip()} {relation} {left.strip()}"
    return answer


_SPACES = re.compile(r"\\[,;:! ]|~|\s+")


def _command_in(command: str, text: str) -> bool:
    return re.search(re.escape(command) + r"(?![a-zA-Z])", text) is not None


def _same_text(a: str, b: str) -> bool:
    """Whether two texts are the same but for spaces, spacing commands and words (``\\ T_1``,
    ``\\text{or } T_1``, ``T_1``: an alternative names the quantity too)."""
    return bool(a) and _SPACES.sub("", _TEXT_WORDS.sub("", a)) == _SPACES.sub("", _TEXT_WORDS.sub("", b))


def relation_mismatch(reference: str, answer: str, equivalent: Callable[[str, str], bool | None]) -> str:
    """Why the answer, whose right side equals the reference's, states something else; ``""`` when
    it does not. ``equivalent(a, b)`` compares two normalised texts: ``True`` proven equivalent,
    ``False`` shown different, ``None`` undecided."""
    ref, ans = unquoted(reference), unquoted(answer)
    ref_kinds, ans_kinds = _kinds(ref), _kinds(ans)
    if ans_kinds != ref_kinds:
        stated = ", ".join(sorted(ans_kinds)) or "an equality"
        wanted = (", ".join(sorted(ref_kinds)) or "an equality") if top_level_relations(ref) else "no relation"
        return f"{KIND_MISMATCH}: the answer states {stated} where the reference states {wanted}"
    link = _broken_link(ans, equivalent)
    if link:
        return link
    left_ref, left_ans = relation_left(ref), relation_left(ans)
    if not left_ref or not left_ans or _same_text(left_ref, left_ans):
        return ""
    ref_side, ans_side = latex_to_sympy(left_ref), latex_to_sympy(left_ans)
    if ref_side.ok and ans_side.ok and _a_naming(left_ref, left_ans, ref_side.expr, ans_side.expr, ref, ans):
        return ""  # v_f against v, \tan\alpha against \tan\theta: two names for the asked quantity
    if not (ref_side.ok and ans_side.ok) or ref_side.normalized == ans_side.normalized:
        return ""
    if equivalent(ref_side.normalized, ans_side.normalized) is True:
        return ""
    return f"the left sides differ: the answer states {left_ans}, the reference {left_ref}"


def _broken_link(answer: str, equivalent: Callable[[str, str], bool | None]) -> str:
    """Why a chain ``v = a = b`` (or an ``aligned`` one) is wrong although its last link is right: a
    middle link shown to differ (a middle name, ``u = v = ...``, is no value)."""
    answer = _ALIGNMENT.sub(" ", answer)
    relations = top_level_relations(answer)
    if len(relations) < 2:
        return ""
    bounds = [0, *(i for relation in relations for i in relation), len(answer)]
    links = [latex_to_sympy(answer[start:end]) for start, end in zip(bounds[::2], bounds[1::2])]
    last = links[-1]
    for i, middle in enumerate(links[1:-1], start=1):
        if not (last.ok and middle.ok):
            continue
        if getattr(middle.expr, "is_Symbol", False) and not any(
                link.ok and middle.expr.name in {s.name for s in link.expr.free_symbols}
                for j, link in enumerate(links) if j != i):
            continue  # a name of its own (u = v = ...); T \geq g \geq mg is no naming: g is in mg
        if equivalent(last.normalized, middle.normalized) is False:
            return f"a link of the chain differs from its end: {answer[bounds[2 * i]:bounds[2 * i + 1]].strip()}"
    return ""


_ALIGNMENT = re.compile(r"\\(?:begin|end)\s*\{[A-Za-z*]*\}|&|\\\\")


_MARKS = re.compile(r"\\(?:d?dot|dddot|prime)(?![a-zA-Z])|'")
_DIFFERENTIAL = re.compile(r"^\s*(?:d|\\mathrm\s*\{\s*d\s*\}|\\partial|\\delta|\\Delta)\s*(?=[A-Za-z\\])")


def _a_naming(left_ref: str, left_ans: str, ref_expr: Any, ans_expr: Any, reference: str, answer: str) -> bool:
    """Whether two left sides are two names of one quantity: each a name (:func:`_names_one_quantity`)
    or one expression of a renamed symbol, with the same derivative marks and arguments, and the
    answer's name used nowhere in either right side (``g = \\sqrt{2gh}`` names no new quantity)."""
    if sorted(_MARKS.findall(left_ref)) != sorted(_MARKS.findall(left_ans)):
        return False  # \dot{v}, x'' against v, x: a derivative, not a name
    if bool(_DIFFERENTIAL.match(left_ref)) != bool(_DIFFERENTIAL.match(left_ans)):
        return False  # dv against v
    ref_call, ans_call = _ARGUMENTS.match(left_ref.strip()), _ARGUMENTS.match(left_ans.strip())
    if ref_call and ans_call and _SPACES.sub("", ref_call.group("args")) != _SPACES.sub("", ans_call.group("args")):
        return False  # x(0) against x(t)
    if any(call and not _variables(call.group("args")) for call in (ref_call, ans_call) if not (ref_call and ans_call)):
        return False  # v(2h), x(0) against v, x: the quantity at a point, not its name
    if not (_names_one_quantity(left_ref) and _names_one_quantity(left_ans)) and not _renamed(ref_expr, ans_expr):
        return False
    ref_name, ans_name = latex_to_sympy(_name_text(left_ref)), latex_to_sympy(_name_text(left_ans))
    if not (ref_name.ok and ans_name.ok):
        return False
    own = {s.name for s in ans_name.expr.free_symbols} - {s.name for s in ref_name.expr.free_symbols}
    right_sides = [latex_to_sympy(text) for text in (reference, answer)]
    used = {s.name for side in right_sides if side.ok for s in side.expr.free_symbols}
    return not own & used


def _variables(arguments: str) -> bool:
    """Whether a function's arguments are variables, one symbol each (``t``, ``x, t``; not ``2h``, ``0``)."""
    for argument in arguments.split(","):
        side = latex_to_sympy(argument) if argument.strip() else None
        if side is None or not (side.ok and getattr(side.expr, "is_Symbol", False)):
            return False
    return True


def _renamed(reference: Any, answer: Any) -> bool:
    """Whether two left sides of one free symbol each are one expression but for that symbol's name."""
    ref_symbols, ans_symbols = reference.free_symbols, answer.free_symbols
    if len(ref_symbols) != 1 or len(ans_symbols) != 1:
        return False
    return bool(answer.xreplace({next(iter(ans_symbols)): next(iter(ref_symbols))}) == reference)


_NEGATED = {"<": "≥", ">": "≤", "≤": ">", "≥": "<", "≠": "="}
"""What a negated order relation states (``\\not<`` is ``≥``); other negated kinds are their own."""


def _kinds(text: str) -> frozenset[str]:
    """The kinds of top-level relation ``text`` states other than equality (``≠``, ``<``, ``∝``, ...).
    A negated equality (``\\not=``, ``\\not\\approx``) is ``≠``, a negated order its complement
    (``\\not<`` is ``≥``), any other negated relation a kind of its own (``not ∝``)."""
    kinds = set()
    for start, end in top_level_relations(text):
        token = text[start:end].lstrip("\\")
        kind = "=" if token in _EQUALITY else _KINDS.get(token, token)
        if _NEGATION.search(text, 0, start):
            kind = "≠" if kind == "=" else _NEGATED.get(kind, f"not {kind}")
        if kind != "=":
            kinds.add(kind)
    return frozenset(kinds)




def _name_text(left: str) -> str:
    """A left side without its arguments and change mark: ``x(t)`` gives ``x``, ``\\Delta y`` gives ``y``."""
    text = _CHANGE.sub("", left.strip())
    call = _ARGUMENTS.match(text)
    return call.group("name") if call is not None else text


def _names_one_quantity(left: str) -> bool:
    """Whether a left side is a name: one symbol (``v_f``, ``\\omega_0``, ``T'``, ``\\vec{v}``), a
    function of its arguments (``p(\\theta)``, ``x(t)``) or a change (``\\Delta y``)."""
    text = _name_text(left)
    if not text.strip():
        return False
    side = latex_to_sympy(text)
    return bool(side.ok and getattr(side.expr, "is_Symbol", False))
