"""The structure of one equation's LaTeX: groups, top-level pieces, additive terms, operators, atoms.

Character-level readings the perturbation rules share: which characters are command names or
``\\text{}`` arguments (:func:`masked`), bracket groups and their depths, the pieces between
relations and alignment marks (:func:`pieces`), the additive terms inside every group
(:func:`segments`), binary ``+``/``-`` (:func:`binary_ops`), scripts (:func:`in_script`) and the
atom a power or subscript applies to (:func:`atom_start`). Pure functions of the text.
"""

from __future__ import annotations

import re

__all__ = ["OPEN", "RELATIONS", "TEXT_COMMANDS", "atom_start", "balanced", "binary_ops", "depth_map",
           "enclosing_group_is_only", "groups", "in_script", "masked", "matching", "opening", "pieces",
           "prev_token", "segments", "separators"]


RELATIONS = ("\\approx", "\\equiv", "\\propto", "\\simeq", "\\sim", "\\neq", "\\leq", "\\geq", "\\le", "\\ge",
              "\\Rightarrow", "\\implies", "\\to", "\\quad", "\\qquad")


TEXT_COMMANDS = ("\\text", "\\mathrm", "\\operatorname", "\\textrm", "\\textbf", "\\mbox", "\\label", "\\tag",
                  "\\begin", "\\end")


OPEN = {"{": "}", "(": ")", "[": "]"}


UNARY_BEFORE = set("({[=^_&,<>;:|") | {""}


UNARY_COMMANDS = ("\\cdot", "\\times", "\\pm", "\\mp", "\\left", "\\right", "\\frac", "\\quad", "\\qquad", "\\\\",
                   *RELATIONS)


def masked(math: str) -> list[bool]:
    """True where a character is inside a ``\\text{...}``-like argument or a command name."""
    mask = [False] * len(math)
    for match in re.finditer(r"\\[a-zA-Z]+", math):
        for k in range(match.start(), match.end()):
            mask[k] = True
        if match.group(0) in TEXT_COMMANDS:
            j = match.end()
            while j < len(math) and math[j] == " ":
                j += 1
            if j < len(math) and math[j] == "{":
                close = matching(math, j)
                for k in range(j, (close + 1) if close >= 0 else len(math)):
                    mask[k] = True
    return mask


def matching(math: str, pos: int) -> int:
    """The position of the bracket closing the one at ``pos`` (same kind), or -1."""
    opener = math[pos]
    closer = OPEN[opener]
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


def balanced(math: str) -> bool:
    """Whether every ``{`` of ``math`` is closed (escaped braces aside)."""
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


def groups(math: str) -> list[tuple[int, int]]:
    """Interiors ``[s, e)`` of every bracket pair ({}, (), []) plus the whole text, outermost first."""
    out = [(0, len(math))]
    k = 0
    while k < len(math):
        c = math[k]
        if c == "\\":
            k += 2
            continue
        if c in OPEN:
            close = matching(math, k)
            if close > k:
                out.append((k + 1, close))
        k += 1
    return out


def depth_map(math: str, start: int, end: int) -> list[int]:
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


def separators(math: str, start: int, end: int) -> list[tuple[int, int]]:
    """Top-level (depth 0 within ``[start, end)``) separators: relations, ``&``, ``\\\\``, ``,``, ``;``."""
    depths = depth_map(math, start, end)
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
            if name and name.group(0) in RELATIONS:
                seps.append((k, k + len(name.group(0))))
                k += len(name.group(0))
                continue
            k += 2 if not name else len(name.group(0))
            continue
        if c in "=&,;<>":
            seps.append((k, k + 1))
        k += 1
    return seps


def segments(math: str) -> list[tuple[int, int]]:
    """Pieces between top-level separators, inside every group: where additive terms live."""
    out: list[tuple[int, int]] = []
    for start, end in groups(math):
        pos = start
        for s, e in separators(math, start, end):
            out.append((pos, s))
            pos = e
        out.append((pos, end))
    return [(s, e) for s, e in out if math[s:e].strip()]


def pieces(math: str) -> list[str]:
    """The top-level pieces of an equation (between relations, ``&``, ``\\\\``...), for parse checks."""
    pieces = []
    pos = 0
    for s, e in separators(math, 0, len(math)):
        pieces.append(math[pos:s])
        pos = e
    pieces.append(math[pos:])
    return [p.strip() for p in pieces]


def prev_token(math: str, i: int, floor: int) -> str:
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


def binary_ops(math: str, start: int, end: int) -> list[int]:
    """Positions of binary ``+``/``-`` at depth 0 of ``[start, end)``."""
    depths = depth_map(math, start, end)
    out = []
    for k in range(start, end):
        if math[k] in "+-" and depths[k - start] == 0 and not (k > 0 and math[k - 1] == "\\"):
            before = prev_token(math, k, start)
            if before in UNARY_BEFORE or before in UNARY_COMMANDS or before in "+-":
                continue
            out.append(k)
    return out


def in_script(math: str, pos: int) -> bool:
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


def enclosing_group_is_only(math: str, s: int, e: int) -> bool:
    """True when ``math[s:e]`` is the whole content of its ``{...}`` group (so deleting it leaves ``{}``)."""
    left = math[:s].rstrip()
    right = math[e:].lstrip()
    return left.endswith("{") and right.startswith("}")


def atom_start(math: str, end: int) -> int:
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
        return atom_start(math, k - 1)
    if last in "})]":
        j = opening(math, k - 1)
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
                prev = opening(math, before - 1)
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


def opening(math: str, close: int) -> int:
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
