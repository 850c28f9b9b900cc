"""Inject one error into the LaTeX of a reference solution, by rule, and truncate it.

PHYBench (arXiv 2504.16074, section 5.2 and appendix G) tells superficial from genuine
reasoning by handing a model a reference solution cut off after an injected error and asking
it to continue. This module is the error catalogue. Every rule works on the solution's math
(``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``, ``equation``/``align``/``gather``
environments; the *equations* of a solution are those spans, in order) except the prose half of
``swap_law``:

==================== ================================================================================
kind                 rule (one site, chosen by the seed)
==================== ================================================================================
remove_square        ``X^2`` / ``X^{2}`` -> ``X``
reverse_operator     a binary ``+`` <-> ``-``, or ``\\cdot`` / ``\\times`` -> ``/``
drop_term            one additive term of a sum with two or more terms is removed (with its sign)
delete_constant      a physical constant (``\\hbar``, ``h``, ``c``, ``G``, ``g``, ``k_B``,
                     ``\\varepsilon_0``, ``\\epsilon_0``, ``\\mu_0``, ``N_A``) is deleted with its
                     exponent (an emptied group becomes ``1``)
swap_law             a named law in the prose is replaced by a wrong one (energy <-> momentum
                     conservation, adiabatic <-> isothermal, elastic <-> inelastic, series <->
                     parallel, ...), or a formula of one law by another's (``\\frac{1}{2}mv^2`` ->
                     ``mv``, ``\\frac{1}{2}I\\omega^2`` -> ``I\\omega``, ``\\frac{1}{2}kx^2`` -> ``kx``)
change_coefficient   a number that is not an index or exponent, ``n`` -> ``n + 1`` (``\\frac{1}{2}``
                     -> ``\\frac{1}{3}``)
combined             two conflicting cues: two perturbations of different kinds at two different
                     equations (a prose law swap and a formula change when the text has a law name)
==================== ================================================================================

A candidate edit is **rejected and counted** when it leaves the text unchanged (``unchanged``),
when it leaves an equation unparsable (``unparsable``: unbalanced braces, or a piece of the
equation -- the parts between ``=``, ``&``, ``\\\\`` and the like -- that converted to SymPy before
and does not after), or when every piece still converts and is equivalent to what it was
(``no_effect``: ``1^2`` -> ``1``); a piece longer than :data:`MAX_PARSE_CHARS` is checked
structurally only (balanced braces, no empty argument, no dangling operator). Candidates are
tried in an order shuffled by
``random.Random(f"{seed}|{problem id}|{kind}")``, at most :data:`MAX_ATTEMPTS` per kind, so the
same seed gives the same edit on every machine.

Only equations that leave at least one equation after them are perturbed (the model must have
something to continue). :func:`truncate` cuts the solution at the end of the line holding a
chosen equation: by default the (last) perturbed one.

Each accepted edit is a :class:`Perturbation`: kind, rule, the equation's index, character
offsets in the original solution, the changed snippet before/after and the whole equation
before/after. :func:`implied_answer` computes the answer the perturbed derivation implies where
that can be done mechanically: ``equation`` (the perturbed equation stated a result equivalent to
the reference answer: the implied answer is its perturbed right-hand side) or ``carried`` (the
perturbed fragment occurs verbatim in the reference answer: the same edit applied there).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from math import ceil
from typing import Any

from physeval.probes.normal_form import Tokens, in_name, normal_tokens, render

__all__ = [
    "BASE_KINDS",
    "KINDS",
    "MAX_ATTEMPTS",
    "Candidate",
    "ImpliedAnswer",
    "MathSpan",
    "Perturbation",
    "PerturbationResult",
    "candidates",
    "check_edit",
    "comparable",
    "describe",
    "find_equations",
    "implied_answer",
    "perturb",
    "truncate",
    "truncation_index",
]

BASE_KINDS: tuple[str, ...] = ("remove_square", "reverse_operator", "drop_term", "delete_constant", "swap_law",
                               "change_coefficient")
KINDS: tuple[str, ...] = (*BASE_KINDS, "combined")
MAX_ATTEMPTS = 50
"""Candidate edits tried per kind and solution before the kind is given up (an operation budget)."""

_MATH_ENVS = ("equation", "equation*", "align", "align*", "gather", "gather*", "eqnarray", "eqnarray*",
              "multline", "multline*", "displaymath")

CONSTANTS: tuple[str, ...] = ("\\hbar", "\\varepsilon_0", "\\varepsilon_{0}", "\\epsilon_0", "\\epsilon_{0}",
                              "\\mu_0", "\\mu_{0}", "k_B", "k_{B}", "k_{\\mathrm{B}}", "N_A", "N_{A}",
                              "h", "c", "G", "g")
"""Physical constants ``delete_constant`` may delete (single letters only as standalone symbols)."""

PROSE_LAWS: tuple[tuple[str, str], ...] = (
    ("conservation of energy", "conservation of momentum"),
    ("conservation of mechanical energy", "conservation of momentum"),
    ("energy conservation", "momentum conservation"),
    ("conservation of momentum", "conservation of energy"),
    ("momentum conservation", "energy conservation"),
    ("conservation of angular momentum", "conservation of linear momentum"),
    ("angular momentum conservation", "linear momentum conservation"),
    ("adiabatic", "isothermal"),
    ("isothermal", "adiabatic"),
    ("isobaric", "isochoric"),
    ("isochoric", "isobaric"),
    ("elastic collision", "perfectly inelastic collision"),
    ("inelastic collision", "elastic collision"),
    ("in series", "in parallel"),
    ("in parallel", "in series"),
    ("Newton's third law", "Newton's first law"),
    ("Gauss's law", "Ampère's law"),
    ("Faraday's law", "Gauss's law"),
    ("Snell's law", "the law of reflection"),
)
"""``swap_law`` in prose: (phrase, wrong replacement); matched as whole words, case-insensitive."""

FORMULA_LAWS: tuple[tuple[str, str, str], ...] = (
    ("kinetic energy -> momentum",
     r"\\frac\s*\{\s*1\s*\}\s*\{\s*2\s*\}\s*m\s*(v(?:_\{?\w+\}?)?)\s*\^\s*(?:\{\s*2\s*\}|2)", r"m \1"),
    ("rotational energy -> angular momentum",
     r"\\frac\s*\{\s*1\s*\}\s*\{\s*2\s*\}\s*I\s*(\\omega(?:_\{?\w+\}?)?)\s*\^\s*(?:\{\s*2\s*\}|2)", r"I \1"),
    ("spring energy -> spring force",
     r"\\frac\s*\{\s*1\s*\}\s*\{\s*2\s*\}\s*k\s*(x(?:_\{?\w+\}?)?)\s*\^\s*(?:\{\s*2\s*\}|2)", r"k \1"),
)
"""``swap_law`` in formulas: (name, pattern, replacement)."""

_RELATIONS = ("\\approx", "\\equiv", "\\propto", "\\simeq", "\\sim", "\\neq", "\\leq", "\\geq", "\\le", "\\ge",
              "\\Rightarrow", "\\implies", "\\to", "\\quad", "\\qquad")
_TEXT_COMMANDS = ("\\text", "\\mathrm", "\\operatorname", "\\textrm", "\\textbf", "\\mbox", "\\label", "\\tag",
                  "\\begin", "\\end")
_OPEN = {"{": "}", "(": ")", "[": "]"}
_UNARY_BEFORE = set("({[=^_&,<>;:|") | {""}
_UNARY_COMMANDS = ("\\cdot", "\\times", "\\pm", "\\mp", "\\left", "\\right", "\\frac", "\\quad", "\\qquad", "\\\\",
                   *_RELATIONS)


# --------------------------------------------------------------------------- spans


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
            if match and match.group(1) in _MATH_ENVS:
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


# --------------------------------------------------------------------------- tokens and segments


def _masked(math: str) -> list[bool]:
    """True where a character is inside a ``\\text{...}``-like argument or a command name."""
    mask = [False] * len(math)
    for match in re.finditer(r"\\[a-zA-Z]+", math):
        for k in range(match.start(), match.end()):
            mask[k] = True
        if match.group(0) in _TEXT_COMMANDS:
            j = match.end()
            while j < len(math) and math[j] == " ":
                j += 1
            if j < len(math) and math[j] == "{":
                close = _matching(math, j)
                for k in range(j, (close + 1) if close >= 0 else len(math)):
                    mask[k] = True
    return mask


def _matching(math: str, pos: int) -> int:
    """The position of the bracket closing the one at ``pos`` (same kind), or -1."""
    opener = math[pos]
    closer = _OPEN[opener]
    depth = 0
    k = pos
    while k < len(math):
        c = math[k]
        if c == "\\":
            k += 2
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return -1


def _balanced(math: str) -> bool:
    stack: list[str] = []
    k = 0
    while k < len(math):
        c = math[k]
        if c == "\\":
            k += 2
            continue
        if c == "{":
            stack.append("}")
        elif c == "}" and (not stack or stack.pop() != "}"):
            return False
        k += 1
    return not stack


def _groups(math: str) -> list[tuple[int, int]]:
    """Interiors ``[s, e)`` of every bracket pair ({}, (), []) plus the whole text, outermost first."""
    out = [(0, len(math))]
    k = 0
    while k < len(math):
        c = math[k]
        if c == "\\":
            k += 2
            continue
        if c in _OPEN:
            close = _matching(math, k)
            if close > k:
                out.append((k + 1, close))
        k += 1
    return out


def _depth_map(math: str, start: int, end: int) -> list[int]:
    """Bracket depth of each position in ``[start, end)`` relative to ``start``."""
    depths = []
    depth = 0
    k = start
    while k < end:
        c = math[k]
        if c == "\\" and k + 1 < end:
            depths.extend([depth, depth])
            k += 2
            continue
        if c in "{([":
            depths.append(depth)
            depth += 1
        elif c in "})]":
            depth -= 1
            depths.append(depth)
        else:
            depths.append(depth)
        k += 1
    return depths[: end - start]


def _separators(math: str, start: int, end: int) -> list[tuple[int, int]]:
    """Top-level (depth 0 within ``[start, end)``) separators: relations, ``&``, ``\\\\``, ``,``, ``;``."""
    depths = _depth_map(math, start, end)
    seps: list[tuple[int, int]] = []
    k = start
    while k < end:
        if depths[k - start] != 0:
            k += 1
            continue
        c = math[k]
        if c == "\\":
            if math.startswith("\\\\", k):
                seps.append((k, k + 2))
                k += 2
                continue
            name = re.match(r"\\[a-zA-Z]+", math[k:end])
            if name and name.group(0) in _RELATIONS:
                seps.append((k, k + len(name.group(0))))
                k += len(name.group(0))
                continue
            k += 2 if not name else len(name.group(0))
            continue
        if c in "=&,;<>":
            seps.append((k, k + 1))
        k += 1
    return seps


def _segments(math: str) -> list[tuple[int, int]]:
    """Pieces between top-level separators, inside every group: where additive terms live."""
    out: list[tuple[int, int]] = []
    for start, end in _groups(math):
        pos = start
        for s, e in _separators(math, start, end):
            out.append((pos, s))
            pos = e
        out.append((pos, end))
    return [(s, e) for s, e in out if math[s:e].strip()]


def _pieces(math: str) -> list[str]:
    """The top-level pieces of an equation (between relations, ``&``, ``\\\\``...), for parse checks."""
    pieces = []
    pos = 0
    for s, e in _separators(math, 0, len(math)):
        pieces.append(math[pos:s])
        pos = e
    pieces.append(math[pos:])
    return [p.strip() for p in pieces]


def _prev_token(math: str, i: int, floor: int) -> str:
    """The token just before position ``i`` (not before ``floor``): a character, a command or ``""``."""
    k = i - 1
    while k >= floor and math[k] == " ":
        k -= 1
    if k < floor:
        return ""
    if math[k].isalpha():
        j = k
        while j >= floor and math[j].isalpha():
            j -= 1
        if j >= floor and math[j] == "\\":
            return math[j:k + 1]
    if math[k] == "\\" and k >= floor + 1 and math[k - 1] == "\\":
        return "\\\\"
    return math[k]


def _binary_ops(math: str, start: int, end: int) -> list[int]:
    """Positions of binary ``+``/``-`` at depth 0 of ``[start, end)``."""
    depths = _depth_map(math, start, end)
    out = []
    for k in range(start, end):
        if math[k] in "+-" and depths[k - start] == 0 and not (k > 0 and math[k - 1] == "\\"):
            before = _prev_token(math, k, start)
            if before in _UNARY_BEFORE or before in _UNARY_COMMANDS or before in "+-":
                continue
            out.append(k)
    return out


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    """A proposed edit: replace ``text[start:end]`` (offsets in the solution) by ``after``."""

    kind: str
    rule: str
    equation: int | None
    start: int
    end: int
    before: str
    after: str
    fragment_before: str = ""
    fragment_after: str = ""
    token: str = ""


def _math_candidates(text: str, span: MathSpan, kind: str) -> list[Candidate]:
    math = text[span.inner_start:span.inner_end]
    base = span.inner_start
    mask = _masked(math)
    found: list[Candidate] = []

    def add(rule: str, s: int, e: int, after: str, seg: tuple[int, int] | None = None, token: str = "") -> None:
        frag_b = frag_a = ""
        if seg is not None:
            frag_b = math[seg[0]:seg[1]]
            frag_a = math[seg[0]:s] + after + math[e:seg[1]]
        found.append(Candidate(kind, rule, span.index, base + s, base + e, math[s:e], after,
                               frag_b.strip(), frag_a.strip(), token))

    if kind == "remove_square":
        for m in re.finditer(r"\^\s*(?:\{\s*2\s*\}|2(?![0-9.]))", math):
            if not mask[m.start()]:
                add("X^2 -> X", m.start(), m.end(), "", token=_base_before(math, m.start()))
    elif kind == "reverse_operator":
        for seg in _segments(math):
            for k in _binary_ops(math, *seg):
                add(f"{math[k]} -> {'-' if math[k] == '+' else '+'}", k, k + 1, "-" if math[k] == "+" else "+", seg)
        for m in re.finditer(r"\\(?:cdot|times)(?![a-zA-Z])", math):
            where = next((s for s in _segments(math) if s[0] <= m.start() < s[1]), None)
            add(f"{m.group(0)} -> /", m.start(), m.end(), "/", where)
    elif kind == "drop_term":
        for seg in _segments(math):
            ops = _binary_ops(math, *seg)
            if not ops:
                continue
            bounds = [seg[0], *ops, seg[1]]
            for t in range(len(bounds) - 1):
                s, e = bounds[t], bounds[t + 1]
                if t == 0:
                    # the first term goes with the operator after it; a leading minus moves to the next term
                    after = "-" if math[ops[0]] == "-" else ""
                    add("drop a term", s, ops[0] + 1, after, seg)
                else:
                    add("drop a term", s, e, "", seg)
    elif kind == "delete_constant":
        for const in CONSTANTS:
            for s, e in _constant_sites(math, mask, const):
                group = _enclosing_group_is_only(math, s, e)
                add(f"delete {const}", s, e, "1" if group else "", token=const)
    elif kind == "swap_law":
        for name, pattern, repl in FORMULA_LAWS:
            for m in re.finditer(pattern, math):
                where = next((sg for sg in _segments(math) if sg[0] <= m.start() < sg[1]), None)
                add(name, m.start(), m.end(), m.expand(repl), where)
    elif kind == "change_coefficient":
        for m in re.finditer(r"(?<![0-9.])[0-9]+(?![0-9.])", math):
            if mask[m.start()] or _in_script(math, m.start()):
                continue
            value = int(m.group(0))
            if value == 0:
                continue
            where = next((sg for sg in _segments(math) if sg[0] <= m.start() < sg[1]), None)
            add(f"{value} -> {value + 1}", m.start(), m.end(), str(value + 1), where)
    return found


def _atom_start(math: str, end: int) -> int:
    """Where the atom ending at ``end`` starts: a bracketed group (with the command or ``\\left``
    that opens it, and the earlier groups of a multi-argument command such as ``\\frac``), a
    command name, a number, a primed atom, or one letter."""
    k = end
    while k > 0 and math[k - 1] == " ":
        k -= 1
    if k == 0:
        return end
    last = math[k - 1]
    if last == "'":
        return _atom_start(math, k - 1)
    if last in "})]":
        j = _opening(math, k - 1)
        if j < 0:
            return k - 1
        while True:  # \frac{a}{b}, \dot{x}, \left( ... \right)
            before = j
            while before > 0 and math[before - 1] == " ":
                before -= 1
            name = re.search(r"\\[a-zA-Z]+$", math[:before])
            if name:
                return name.start()
            if math[:before].endswith("}") and math[j] == "{":
                prev = _opening(math, before - 1)
                if prev >= 0 and re.search(r"\\[a-zA-Z]+\s*$", math[:prev]):
                    j = prev
                    continue
            return j
    if last.isdigit():
        j = k - 1
        while j > 0 and (math[j - 1].isdigit() or (math[j - 1] == "." and j > 1 and math[j - 2].isdigit())):
            j -= 1
        return j
    if last.isalpha():
        name = re.search(r"\\[a-zA-Z]+$", math[:k])
        return name.start() if name else k - 1
    return k - 1


def _opening(math: str, close: int) -> int:
    """The position of the bracket that ``math[close]`` closes, or -1."""
    closer = math[close]
    opener = {"}": "{", ")": "(", "]": "["}[closer]
    depth = 0
    j = close
    while j >= 0:
        if math[j] == closer and (j == 0 or math[j - 1] != "\\"):
            depth += 1
        elif math[j] == opener and (j == 0 or math[j - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return j
        j -= 1
    return -1


def _base_before(math: str, pos: int) -> str:
    """The base of a power ending at ``pos``: the last atom, with the symbol it subscripts
    (``r_{0}`` in ``k r_{0}^2``, ``R`` in ``3R^{2}``, ``\\omega_2``, ``(z-c)``), never a coefficient."""
    end = pos
    while end > 0 and math[end - 1] == " ":
        end -= 1
    start = _atom_start(math, end)
    while True:  # a subscript belongs to the symbol before it
        k = start
        while k > 0 and math[k - 1] == " ":
            k -= 1
        if k > 0 and math[k - 1] == "_":
            start = _atom_start(math, k - 1)
            continue
        break
    return math[start:end]


def _constant_sites(math: str, mask: list[bool], const: str) -> list[tuple[int, int]]:
    """Where ``const`` stands alone as a symbol (with any ``^`` exponent that follows it).

    A command (``\\hbar``) must not run on into a longer name; a single letter must not be part
    of a command name or a ``\\text{}`` argument, sit in a sub- or superscript, or carry a
    subscript or prime of its own (``h_1`` is another symbol). Adjacent letters (``mgh``) are
    separate symbols, as LaTeX math reads them.
    """
    sites: list[tuple[int, int]] = []
    start = 0
    while True:
        pos = math.find(const, start)
        if pos < 0:
            return sites
        start = pos + 1
        end = pos + len(const)
        after = math[end] if end < len(math) else ""
        if const.startswith("\\"):
            if after.isalpha() or (pos > 0 and math[pos - 1] == "\\"):
                continue
        elif mask[pos] or _in_script(math, pos) or (pos > 0 and math[pos - 1] == "\\"):
            continue
        if after in ("_", "'"):
            continue
        m = re.match(r"\s*\^\s*(\{[^{}]*\}|[0-9a-zA-Z])", math[end:])
        if m:
            end += m.end()
        sites.append((pos, end))


def _enclosing_group_is_only(math: str, s: int, e: int) -> bool:
    """True when ``math[s:e]`` is the whole content of its ``{...}`` group (so deleting it leaves ``{}``)."""
    left = math[:s].rstrip()
    right = math[e:].lstrip()
    return left.endswith("{") and right.startswith("}")


def _in_script(math: str, pos: int) -> bool:
    """Whether ``pos`` is inside a sub- or superscript (``_1``, ``^{-1}``, ``_{12}``)."""
    k = pos - 1
    while k >= 0 and math[k] == " ":
        k -= 1
    if k >= 0 and math[k] in "_^":
        return True
    depth = 0
    j = pos - 1
    while j >= 0:
        c = math[j]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                before = math[:j].rstrip()
                return before.endswith(("_", "^"))
            depth -= 1
        j -= 1
    return False


def _prose_candidates(text: str, spans: Sequence[MathSpan]) -> list[Candidate]:
    inside = [(s.start, s.end) for s in spans]
    found = []
    for phrase, wrong in sorted(PROSE_LAWS, key=lambda p: -len(p[0])):
        pattern = re.compile(r"(?<![A-Za-z])" + re.escape(phrase).replace("\\ ", r"\s+") + r"(?![A-Za-z])",
                             re.IGNORECASE)
        for m in pattern.finditer(text):
            if any(a <= m.start() < b for a, b in inside):
                continue
            if phrase.startswith("momentum") and text[max(0, m.start() - 8):m.start()].lower().endswith(
                    ("angular ", "linear ")):
                continue
            if phrase.startswith("elastic") and text[max(0, m.start() - 2):m.start()].lower() == "in":
                continue
            after = wrong[0].upper() + wrong[1:] if m.group(0)[0].isupper() else wrong
            found.append(Candidate("swap_law", f"{phrase} -> {wrong}", None, m.start(), m.end(), m.group(0), after))
    return found


def candidates(text: str, kind: str, *, equations: Sequence[MathSpan] | None = None,
               eligible: Iterable[int] | None = None) -> list[Candidate]:
    """Every site where ``kind`` (a base kind) could edit ``text``, in text order.

    ``eligible`` limits math edits to those equation indices, and prose edits to text before the
    end of the last eligible equation.
    """
    if kind not in BASE_KINDS:
        raise ValueError(f"unknown perturbation kind {kind!r}; known: {', '.join(BASE_KINDS)}")
    spans = list(equations) if equations is not None else find_equations(text)
    allowed = set(eligible) if eligible is not None else {s.index for s in spans}
    found: list[Candidate] = []
    for span in spans:
        if span.index in allowed:
            found.extend(_math_candidates(text, span, kind))
    if kind == "swap_law" and allowed:
        limit = max(s.end for s in spans if s.index in allowed)
        found.extend(c for c in _prose_candidates(text, spans) if c.end <= limit)
    found.sort(key=lambda c: (c.start, c.end))
    return found


# --------------------------------------------------------------------------- checks


def _parses(piece: str) -> Any:
    from physeval.answers.latex import latex_to_sympy

    if not piece.strip() or len(piece) > MAX_PARSE_CHARS:
        return None
    conversion = latex_to_sympy(piece)
    return conversion.expr if conversion.ok else None


_BROKEN = re.compile(
    r"\^\s*(?:\{\s*\}|$)|_\s*\{\s*\}|\\frac\s*\{\s*\}|\\sqrt\s*\{\s*\}"  # empty script or argument
    r"|(?:(?<![_^{])[+\-/]|\\cdot|\\times)\s*(?:$|[)\]}=&,;]|\\right\b|\\\\)"  # an operator with nothing after it
    r"|(?:^|[({\[=&,;])\s*(?:/|\\cdot|\\times)"  # an operator with nothing before it
    r"|(?:\\cdot|\\times|/)\s*(?:\\cdot|\\times|/)")  # two operators in a row
MAX_PARSE_CHARS = 160
"""Pieces longer than this are checked structurally only (balanced braces, no dangling operator):
the LaTeX parser's cost grows steeply with length (an operation budget, not a clock)."""
_UNEVALUATED = ("Integral", "Derivative", "Sum", "Product", "Limit")


def comparable(expr: Any) -> bool:
    """Whether ``expr`` may go to the equivalence probe: not when it holds an unevaluated
    integral, derivative, sum, product or limit (the numeric probe would integrate at 40 digits;
    one piece of PHYBench 72 cost 40 s). An edit of such a piece is taken on its structural
    check, and such a reference answer implies nothing computable (an operation budget)."""
    import sympy

    try:
        return not expr.has(*(getattr(sympy, name) for name in _UNEVALUATED))
    except Exception:  # noqa: BLE001 - an expression SymPy cannot inspect is not probed
        return False


def check_edit(text: str, candidate: Candidate, equations: Sequence[MathSpan]) -> str:
    """``""`` when the edit is acceptable, else why it is rejected: ``unchanged``, ``unparsable`` or ``no_effect``."""
    new_text = text[:candidate.start] + candidate.after + text[candidate.end:]
    if " ".join(new_text.split()) == " ".join(text.split()):
        return "unchanged"
    if candidate.equation is None:
        return ""
    span = equations[candidate.equation]
    old = text[span.inner_start:span.inner_end]
    shift = len(candidate.after) - (candidate.end - candidate.start)
    new = new_text[span.inner_start:span.inner_end + shift]
    if not _balanced(new) or len(_BROKEN.findall(new)) > len(_BROKEN.findall(old)):
        return "unparsable"
    old_pieces, new_pieces = _pieces(old), _pieces(new)
    if len(old_pieces) != len(new_pieces):
        return "unparsable"
    from physeval.grading.symbolic import check_equivalence

    changed = [(a, b) for a, b in zip(old_pieces, new_pieces) if a != b]
    decided = 0
    for a, b in changed:  # only the pieces the edit touched are converted
        ea = _parses(a)
        if ea is None:
            continue
        eb = _parses(b)
        if eb is None:
            return "unparsable"
        if not (comparable(ea) and comparable(eb)):
            continue
        if check_equivalence(ea, eb).equivalent is not True:
            return ""
        decided += 1
    if changed and decided == len(changed):
        return "no_effect"
    return ""


# --------------------------------------------------------------------------- perturb


@dataclass(frozen=True)
class Perturbation:
    """One accepted edit of a solution.

    Attributes:
        kind: The perturbation kind (a base kind; ``combined`` is two of these).
        rule: The rule that fired (``"X^2 -> X"``, ``"delete \\hbar"``, ``"+ -> -"``...).
        equation: Index of the equation edited (``None`` for a prose edit).
        start, end: Offsets of the edited characters in the original solution.
        line: 1-based line number of ``start``.
        before, after: The edited characters before and after.
        context_before, context_after: The whole equation (or the prose line) before and after.
        token: What was deleted or unsquared (``\\hbar``, ``\\omega``), for carrying the edit.
        fragment_before, fragment_after: The additive piece holding the edit, before and after.
    """

    kind: str
    rule: str
    equation: int | None
    start: int
    end: int
    line: int
    before: str
    after: str
    context_before: str
    context_after: str
    token: str = ""
    fragment_before: str = ""
    fragment_after: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


@dataclass(frozen=True)
class PerturbationResult:
    """The outcome of :func:`perturb`: the poisoned text (``None`` when no edit was accepted),
    the edits, and the rejected candidates counted by reason (``unchanged``, ``unparsable``,
    ``no_effect``; ``no_site`` when the kind had nowhere to apply)."""

    kind: str
    text: str | None
    perturbations: tuple[Perturbation, ...] = ()
    rejected: dict[str, int] = field(default_factory=dict)
    tried: int = 0

    @property
    def ok(self) -> bool:
        """True when the solution was perturbed."""
        return self.text is not None and bool(self.perturbations)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _context(text: str, candidate: Candidate, equations: Sequence[MathSpan]) -> tuple[str, str]:
    if candidate.equation is not None:
        span = equations[candidate.equation]
        a, b = span.start, span.end
    else:
        a = text.rfind("\n", 0, candidate.start) + 1
        b = text.find("\n", candidate.end)
        b = len(text) if b < 0 else b
    before = text[a:b]
    after = text[a:candidate.start] + candidate.after + text[candidate.end:b]
    return before, after


def _accept(text: str, kind: str, found: list[Candidate], rng: random.Random, equations: Sequence[MathSpan],
            rejected: Counter[str], budget: list[int], exclude: set[int]) -> Perturbation | None:
    order = list(found)
    rng.shuffle(order)
    for cand in order:
        if cand.equation is not None and cand.equation in exclude:
            continue
        if budget[0] <= 0:
            rejected["budget"] += 1
            return None
        budget[0] -= 1
        why = check_edit(text, cand, equations)
        if why:
            rejected[why] += 1
            continue
        before, after = _context(text, cand, equations)
        return Perturbation(kind, cand.rule, cand.equation, cand.start, cand.end, _line_of(text, cand.start),
                            cand.before, cand.after, before, after, cand.token, cand.fragment_before,
                            cand.fragment_after)
    return None


def _apply(text: str, edits: Sequence[Perturbation]) -> str:
    for edit in sorted(edits, key=lambda p: p.start, reverse=True):
        text = text[:edit.start] + edit.after + text[edit.end:]
    return text


def perturb(text: str, kind: str, *, seed: int = 0, key: str = "", eligible: Iterable[int] | None = None,
            max_attempts: int = MAX_ATTEMPTS) -> PerturbationResult:
    """Apply one perturbation of ``kind`` to the solution ``text`` (deterministic for ``seed`` and ``key``).

    ``key`` (the problem id) makes different problems draw differently from one seed;
    ``eligible`` limits the equations that may be edited (default: all but the last one).
    Raises ``ValueError`` for an unknown kind.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown perturbation kind {kind!r}; known: {', '.join(KINDS)}")
    equations = find_equations(text)
    allowed = sorted(set(eligible) if eligible is not None else range(max(0, len(equations) - 1)))
    rng = random.Random(f"{seed}|{key}|{kind}")
    rejected: Counter[str] = Counter()
    budget = [max_attempts]
    if kind != "combined":
        found = candidates(text, kind, equations=equations, eligible=allowed)
        if not found:
            return PerturbationResult(kind, None, (), {"no_site": 1}, 0)
        edit = _accept(text, kind, found, rng, equations, rejected, budget, set())
        tried = max_attempts - budget[0]
        if edit is None:
            return PerturbationResult(kind, None, (), dict(rejected), tried)
        return PerturbationResult(kind, _apply(text, [edit]), (edit,), dict(rejected), tried)
    # combined: a prose law swap plus a formula change when the text names a law, else two math kinds
    prose = [c for c in candidates(text, "swap_law", equations=equations, eligible=allowed) if c.equation is None]
    math_kinds = [k for k in BASE_KINDS if k != "swap_law"]
    rng.shuffle(math_kinds)
    first: Perturbation | None = None
    if prose:
        first = _accept(text, "swap_law", prose, rng, equations, rejected, budget, set())
    edits: list[Perturbation] = [first] if first else []
    for math_kind in math_kinds:
        if len(edits) == 2:
            break
        if any(e.kind == math_kind for e in edits):
            continue
        used = {e.equation for e in edits if e.equation is not None}
        found = [c for c in candidates(text, math_kind, equations=equations, eligible=allowed)
                 if not _overlaps(c, edits)]
        if found:
            edit = _accept(text, math_kind, found, rng, equations, rejected, budget, used)
            if edit is not None:
                edits.append(edit)
    tried = max_attempts - budget[0]
    if len(edits) < 2:
        if not rejected:
            rejected["no_site"] += 1
        return PerturbationResult(kind, None, (), dict(rejected), tried)
    return PerturbationResult(kind, _apply(text, edits), tuple(sorted(edits, key=lambda e: e.start)),
                              dict(rejected), tried)


def _overlaps(candidate: Candidate, edits: Sequence[Perturbation]) -> bool:
    return any(candidate.start < e.end and e.start < candidate.end for e in edits)


# --------------------------------------------------------------------------- truncation


def truncation_index(n_equations: int, fraction: float) -> int:
    """The 0-based index of the equation after which a solution of ``n_equations`` is cut at ``fraction``:
    equation ``ceil(fraction * n_equations)`` counted from 1, at least the first."""
    if not 0 < fraction <= 1:
        raise ValueError(f"truncation fraction must be in (0, 1], not {fraction}")
    return max(0, min(n_equations - 1, ceil(fraction * n_equations - 1e-9) - 1))


def truncate(text: str, equation: int, *, equations: Sequence[MathSpan] | None = None) -> str:
    """``text`` up to the end of the line holding the end of equation ``equation`` (0-based)."""
    spans = list(equations) if equations is not None else find_equations(text)
    if not spans:
        return text
    span = spans[max(0, min(equation, len(spans) - 1))]
    cut = text.find("\n", span.end)
    return (text if cut < 0 else text[:cut]).rstrip()


# --------------------------------------------------------------------------- implied answer


@dataclass(frozen=True)
class ImpliedAnswer:
    """The answer a derivation carrying the error through would reach, and how it was found.

    ``method`` is ``equation``, ``carried`` or ``none`` (``answer`` is then ``None``);
    ``reason`` says why.
    """

    answer: str | None
    method: str
    reason: str


def _rhs(math: str) -> str:
    pieces = _pieces(math)
    return pieces[-1] if pieces else math


def _strip_delims(math: str) -> str:
    text = math.strip()
    for a, b in (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")):
        if text.startswith(a) and text.endswith(b) and len(text) >= len(a) + len(b):
            return text[len(a):len(text) - len(b)].strip()
    match = re.match(r"\\begin\{([a-zA-Z*]+)\}(.*)\\end\{\1\}\s*$", text, re.DOTALL)
    return match.group(2).strip() if match else text


def _carry(answer: str, edit: Perturbation) -> str | None:
    """``answer`` with ``edit`` applied wherever its fragment occurs; ``None`` when it does not.

    Both sides are compared on the normal form of :mod:`physeval.probes.normal_form`, so the
    spelling of a symbol (``z_{0}`` / ``z_0``, ``\\varepsilon_{0}`` / ``\\epsilon_0``) does not
    matter; the carried answer is written in that form.
    """
    tokens = normal_tokens(answer)
    if edit.kind == "delete_constant" and edit.token:
        out = _carry_deletion(tokens, normal_tokens(edit.token))
    elif edit.kind == "remove_square" and edit.token:
        out = _carry_unsquare(tokens, normal_tokens(edit.token))
    elif edit.fragment_before and edit.fragment_before != edit.fragment_after:
        out = _carry_fragment(tokens, normal_tokens(edit.fragment_before), normal_tokens(edit.fragment_after))
    else:
        out = None
    return None if out is None else render(out)


def _a_symbol_at(tokens: Tokens, k: int, n: int, hidden: Sequence[bool]) -> bool:
    """Whether ``tokens[k:k + n]`` stands as a symbol of its own: not in a subscript or a text
    argument, not a one-token script, and not carrying a subscript or prime that makes it another
    symbol."""
    if hidden[k] or (k and tokens[k - 1] in ("_", "^")):
        return False
    return not (k + n < len(tokens) and tokens[k + n] in ("_", "'"))


def _carry_deletion(tokens: Tokens, const: Tokens) -> Tokens | None:
    """Every standalone ``const`` deleted with its exponent; an emptied group becomes ``1``."""
    hidden = in_name(tokens)
    out: list[str] = []
    k = 0
    found = False
    while k < len(tokens):
        if tuple(tokens[k:k + len(const)]) == const and _a_symbol_at(tokens, k, len(const), hidden):
            end = k + len(const)
            if end < len(tokens) and tokens[end] == "^":
                end = _group_end(tokens, end + 1)
            found = True
            if out and out[-1] == "{" and end < len(tokens) and tokens[end] == "}":
                out.append("1")
            k = end
            continue
        out.append(tokens[k])
        k += 1
    return tuple(out) if found else None


def _group_end(tokens: Tokens, k: int) -> int:
    """The index after the token or ``{...}`` group starting at ``k``."""
    if k >= len(tokens):
        return k
    if tokens[k] != "{":
        return k + 1
    depth = 0
    for j in range(k, len(tokens)):
        depth += {"{": 1, "}": -1}.get(tokens[j], 0)
        if depth == 0:
            return j + 1
    return len(tokens)


def _carry_unsquare(tokens: Tokens, base: Tokens) -> Tokens | None:
    """Every ``base^2`` written ``base``."""
    hidden = in_name(tokens)
    out: list[str] = []
    k = 0
    found = False
    n = len(base)
    while k < len(tokens):
        if (tuple(tokens[k:k + n]) == base and tuple(tokens[k + n:k + n + 2]) == ("^", "2")
                and not hidden[k] and not (k and tokens[k - 1] in ("_", "^"))):
            out.extend(base)
            k += n + 2
            found = True
            continue
        out.append(tokens[k])
        k += 1
    return tuple(out) if found else None


def _carry_fragment(tokens: Tokens, before: Tokens, after: Tokens) -> Tokens | None:
    """Every occurrence of ``before`` that is not part of a script or a longer symbol, replaced."""
    if not before:
        return None
    hidden = in_name(tokens)
    out: list[str] = []
    k = 0
    found = False
    n = len(before)
    while k < len(tokens):
        if (tuple(tokens[k:k + n]) == before and _a_symbol_at(tokens, k, n, hidden)
                and not (k + n < len(tokens) and tokens[k + n] == "^")):
            out.extend(after)
            k += n
            found = True
            continue
        out.append(tokens[k])
        k += 1
    return tuple(out) if found else None


def implied_answer(solution: str, reference: str, edits: Sequence[Perturbation]) -> ImpliedAnswer:
    """The answer the perturbed derivation implies, where it can be computed mechanically.

    ``equation``: a perturbed equation's last right-hand side was equivalent to ``reference``;
    the implied answer is that side after the edit. ``carried``: every math edit's fragment (the
    deleted constant, the unsquared base, or the additive piece holding the edit) occurs in
    ``reference``; the same edits applied to it. Either way the implied answer must parse and
    differ from ``reference``; prose-only edits imply nothing computable.
    """
    from physeval.answers.latex import latex_to_sympy
    from physeval.grading.symbolic import check_equivalence

    math_edits = [e for e in edits if e.equation is not None]
    if not math_edits:
        return ImpliedAnswer(None, "none", "only the prose was edited: the math implies the reference answer")
    ref = latex_to_sympy(reference)
    if not ref.ok:
        return ImpliedAnswer(None, "none", f"the reference answer does not convert ({ref.outcome})")
    if not comparable(ref.expr):
        return ImpliedAnswer(None, "none", "the reference answer holds an integral, derivative, sum or limit: "
                                           "its equivalence is not probed (an operation budget)")

    def differs(candidate: str) -> bool | None:
        conv = latex_to_sympy(candidate)
        if not conv.ok or not comparable(conv.expr):
            return None
        return check_equivalence(ref.expr, conv.expr).equivalent is False

    if len(math_edits) == 1:
        edit = math_edits[0]
        old_rhs = _rhs(_strip_delims(edit.context_before))
        new_rhs = _rhs(_strip_delims(edit.context_after))
        # a side that states the answer is about the answer's size; longer sides are not converted
        old_conv = latex_to_sympy(old_rhs) if len(old_rhs) <= 2 * len(reference) + 40 else None
        if (old_conv is not None and old_conv.ok and comparable(old_conv.expr)
                and check_equivalence(ref.expr, old_conv.expr).equivalent is True and differs(new_rhs)):
            return ImpliedAnswer(new_rhs, "equation",
                                 f"equation {edit.equation} stated the reference answer; its perturbed right side")
    carried = reference
    for edit in math_edits:
        step = _carry(_strip_delims(carried), edit)
        if step is None:
            return ImpliedAnswer(None, "none",
                                 f"the edited fragment ({edit.rule}) does not occur in the reference answer")
        carried = step
    if differs(carried):
        return ImpliedAnswer(carried, "carried", "the same edit applied to the reference answer")
    return ImpliedAnswer(None, "none",
                         "carrying the edit into the reference answer does not change it (or it fails to parse)")


def describe(result: PerturbationResult) -> str:
    """One line per edit: ``kind: rule at equation k (line n): 'before' -> 'after'``."""
    lines = []
    for p in result.perturbations:
        where = f"equation {p.equation}" if p.equation is not None else "prose"
        lines.append(f"{p.kind}: {p.rule} at {where} (line {p.line}): {p.before!r} -> {p.after!r}")
    return "\n".join(lines)
