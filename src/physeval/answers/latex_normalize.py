"""physeval's LaTeX normaliser: the PHYBench normal form with the pipeline's string bugs fixed.

Comparison operators are whole tokens and the right side starts after the whole token; outer
braces are removed only when they enclose the whole answer; a command is matched as a whole
token and its argument unwrapped; ``\\infty`` stays infinity. :func:`normalize_latex` also
dispatches ``compat="phybench"`` to the faithful copy (:mod:`physeval.answers.latex_phybench`).
"""

from __future__ import annotations

import re

from physeval.answers.latex_functions import roman_function_names, subscript_labels
from physeval.answers.latex_phybench import (  # the normal form's conventions, shared by both modes
    _FIXED_FRAC,
    _PL_KILL,
    _PL_REPLACE_TAIL,
    _UNWRAP,
    _VEC_BARE,
    _VEC_SUB,
    _bar_inside_vec,
    _bracket_content,
    _exp_frac,
    _wrap_frac,
    phybench_normal_form,
)
from physeval.answers.latex_primes import primes_after_subscripts, primes_as_names

__all__ = ["normalize_latex", "strip_to_rhs", "left_side", "relation_left", "top_level_relations", "DEGREE_MARK",
           "TEMPERATURE_SCALE", "DEGREE_MARK_ENDS", "COMPAT_PHYBENCH", "check_compat"]

COMPAT_PHYBENCH = "phybench"
_COMPAT_MODES = (None, COMPAT_PHYBENCH)


def check_compat(compat: str | None) -> None:
    """Raise ``ValueError`` for an unknown compatibility mode (a caller error, not bad data)."""
    if compat not in _COMPAT_MODES:
        raise ValueError(f"compat must be None or {COMPAT_PHYBENCH!r}, not {compat!r}")


def _command_at(s: str, pos: int, command: str) -> bool:
    """True when ``command`` starts at ``pos`` as a whole token (not a prefix of a longer name)."""
    if not s.startswith(command, pos):
        return False
    end = pos + len(command)
    return not (command[-1].isalpha() and end < len(s) and s[end].isalpha())


def _skip_spaces(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\n\r":
        i += 1
    return i


def _next_token_end(s: str, i: int) -> int:
    """End of the single TeX token (group, command or character) starting at ``i``."""
    if i >= len(s):
        return i
    if s[i] == "{":
        _, close = _bracket_content(s, i)
        return len(s) if close < 0 else close + 1
    if s[i] == "\\":
        j = i + 1
        while j < len(s) and s[j].isalpha():
            j += 1
        return j if j > i + 1 else min(i + 2, len(s))
    return i + 1


def _remove_command(s: str, command: str, keep_inside: bool) -> str:
    """Remove ``command`` (whole token) and its argument, keeping the argument if asked."""
    out: list[str] = []
    i = 0
    while i < len(s):
        if s[i] == "\\" and _command_at(s, i, command):
            j = _skip_spaces(s, i + len(command))
            while j < len(s) and s[j] == "[":  # optional [..] parameter
                close = s.find("]", j)
                j = _skip_spaces(s, len(s) if close < 0 else close + 1)
            end = _next_token_end(s, j)
            if keep_inside:
                arg = s[j:end]
                if arg.startswith("{") and arg.endswith("}") and len(arg) >= 2:
                    arg = arg[1:-1]
                out.append(_remove_command(arg, command, keep_inside))
                # keep a separating space so '\hat x y' stays two tokens
                if end < len(s) and arg[-1:].isalpha() and s[end : end + 1].isalpha():
                    out.append(" ")
            i = end
            continue
        if s[i] == "\\":  # copy other commands whole so names are never split
            end = _next_token_end(s, i)
            out.append(s[i:end])
            i = end
            continue
        out.append(s[i])
        i += 1
    return "".join(out)


def _strip_outer_braces(s: str) -> str:
    """Remove braces that enclose the whole (stripped) string, repeatedly."""
    for _ in range(10):
        t = s.strip()
        if not t.startswith("{"):
            return t
        content, close = _bracket_content(t, 0)
        if content is None or close != len(t) - 1:
            return t
        s = content
    return s.strip()


_RELATIONS = (
    "=", "<", ">", "\\approx", "\\sim", "\\simeq", "\\propto", "\\equiv", "\\cong", "\\ge",
    "\\geq", "\\geqslant", "\\le", "\\leq", "\\leqslant", "\\neq", "\\ne", "\\gtrsim",
    "\\lesssim", "\\gt", "\\lt", "\\approxeq", "\\doteq", "\\triangleq",
)  # fmt: skip
_COMMAND_RELATIONS = frozenset(r[1:] for r in _RELATIONS if r.startswith("\\"))


def strip_to_rhs(s: str) -> str:
    """The right side of the last top-level comparison operator (whole tokens), stripped.

    ``x = a \\approx b`` gives ``b``; ``a \\leq b`` gives ``b``; ``\\left(x\\right)`` has no
    operator and is returned whole.
    """
    relations = top_level_relations(s)
    return (s[relations[-1][1]:] if relations else s).strip()


def left_side(s: str) -> str:
    """The text before the first top-level ``=`` (stripped), or ``""`` when the first top-level
    comparison is not ``=`` or there is none: ``\\omega^2 = g k`` gives ``\\omega^2``."""
    relations = top_level_relations(s)
    if not relations or s[relations[0][0]:relations[0][1]] != "=":
        return ""
    return relation_left(s)


def relation_left(s: str) -> str:
    """The text before the first top-level relation of any kind, stripped; ``""`` when there is none.

    ``v < \\sqrt{2gh}`` gives ``v`` as ``v = \\sqrt{2gh}`` does: an inequality's left side is read
    like an equation's (``2v < \\sqrt{2gh}`` was once accepted against ``v < \\sqrt{2gh}``)."""
    relations = top_level_relations(s)
    return s[:relations[0][0]].strip() if relations else ""


def top_level_relations(s: str) -> list[tuple[int, int]]:
    """The (start, end) of every comparison operator outside braces (whole tokens), in order."""
    found: list[tuple[int, int]] = []
    depth = 0
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            j = i + 1
            while j < len(s) and s[j].isalpha():
                j += 1
            name = s[i + 1 : j]
            if not name:  # escaped character such as '\{' or '\,'
                i += 2
                continue
            if depth == 0 and name in _COMMAND_RELATIONS:
                found.append((i, j))
            i = j
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and c in "=<>":
            found.append((i, i + 1))
        i += 1
    return found


_SIZING = re.compile(r"\\(?:[bB]igg?|[bB]igg?[lrm])(?![a-zA-Z])")
_DELIMITER_SIZING = re.compile(r"\\(?:left|right)(?![a-zA-Z])\s*\.?")
_SPACING = re.compile(r"\\(?:[,;:!> ]|quad(?![a-zA-Z])|qquad(?![a-zA-Z]))")
_REMOVE_COMMANDS = re.compile(r"\\(?:displaystyle|textstyle|langle|rangle|limits|nolimits)(?![a-zA-Z])")
_TEXT_REMOVE = ("\r", "\t", ".%", "$", ",", "`", "\n", "\\(", "\\)")
_REPLACE_HEAD = (
    ("\\operatorname{asin}", "\\asin"),
    ("\\operatorname{sech}", "\\sech"),
    ("\\operatorname{acos}", "\\acos"),
    ("\\operatorname{sinh}", "\\sinh"),
)
_RENAMES = {
    "dfrac": "\\frac",
    "tfrac": "\\frac",
    "cfrac": "\\frac",
    "Exp": "\\exp",
    "times": "\\bar{times}",
    "partial": "\\bar{partial}",
    "perp": "\\bar{perp}",
    "epsilon": "\\varepsilon",
    "varOmega": "\\Omega",
    "varphi": "\\phi",  # one letter in two shapes: \varphi against \phi was 'wrong' (no PHYBench problem uses both)
    "vartheta": "\\theta",
    "varrho": "\\rho",
    "hslash": "\\hbar",
    "gamma": "\\bar{gamma}",  # the parser reads \gamma as Euler's constant and breaks \gamma_1
    "Gamma": "\\bar{Gamma}",
    "pm": "+",
    "mp": "-",
}
_COMMAND_OR_SYMBOL = re.compile(r"(\\[A-Za-z]+)|(I|_e|e_|E_)")
_SYMBOL_FIXES = {"I": "\\bar{I}", "_e": "_{e}", "e_": "\\bar{e}_", "E_": "\\bar{E}_"}
_COMMAND_NAME = re.compile(r"\\([A-Za-z]+)")
# Degrees written on a number (30^\circ, 30^{\circ}, 30°, 30\degree) are that many pi/180: the
# pipeline deletes the mark, so \sin 30^\circ was sin(30 rad), equal to \sin 30 (a false accept)
_MARK = r"\s*(?:\^\s*(?:\{\s*\\(?:circ|degree)\s*\}|\\(?:circ|degree))(?![a-zA-Z])|°)"
_SCALE_LETTER = r"[CFK]"  # 30^\circ C is a temperature, not an angle
_THIN_SPACE = r"(?:\s|\\[,;:! ]|~)*"  # what a model puts between 30^\circ and its scale: \, \; ~
_CELSIUS = r"(?!" + _THIN_SPACE + r"(?:\\(?:text|mathrm|rm|textrm)\s*\{\s*)?" + _SCALE_LETTER + r"(?![a-zA-Z]))"
_DEGREES = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:" + _MARK + r"|\s*\\degree(?![a-zA-Z]))" + _CELSIUS)
# \alpha^\circ, \theta_0^{\circ}: a symbol in degrees, (\alpha pi/180); the pipeline deleted the mark
_SYMBOL_DEGREES = re.compile(
    r"((?:\\[A-Za-z]+|(?<![A-Za-z\\])[A-Za-z])(?:_\{[^{}]*\}|_[A-Za-z0-9])?)" + _MARK + _CELSIUS)
_ANY_DEGREE_MARK = re.compile(_MARK)
DEGREE_MARK = re.compile(_MARK + r"|\\degree(?![a-zA-Z])")
"""A degree mark as models write it: ``^\\circ``, ``^{\\circ}``, ``°``, ``\\degree`` (the one reading
of degrees, shared by the normaliser and the grader's comment rules)."""
TEMPERATURE_SCALE = re.compile(r"\s*" + _SCALE_LETTER + r"\s*")
DEGREE_MARK_ENDS = re.compile(r"(?:" + DEGREE_MARK.pattern + r")" + _THIN_SPACE + r"$")
"""The scale letter that makes a degree mark a temperature (``30^\\circ C``): not an angle, not a comment."""
# A \times beside a number (2.5\times10^{-3}, 3\times m, 10^{3}\times m) is a product: the pipeline makes every
# \times the symbol \bar{times} (a cross product a\times b stays that)
_TIMES = re.compile(r"\s*\\times(?![a-zA-Z])")
_NUMBER_BEFORE = re.compile(r"(?<![\w.\\])\d+(?:\.\d+)?\s*(?:\^\s*\{\s*-?\d+\s*\}|\^\s*-?\d)?$")
_NUMBER_AFTER = re.compile(r"\s*\{?\s*\d")


def _numeric_times(s: str) -> str:
    """Each ``\\times`` with a number right before it (not a subscript's: ``F_1\\times r`` stays a
    cross product) or right after it as ``\\cdot``."""
    if "\\times" not in s:
        return s
    out, last = [], 0
    for match in _TIMES.finditer(s):
        # a number and its power of ten fit in 40 characters: each \times looks that far back, no further
        if _NUMBER_BEFORE.search(s, max(0, match.start() - 40), match.start()) or _NUMBER_AFTER.match(s, match.end()):
            out += [s[last:match.start()], " \\cdot "]
            last = match.end()
    return "".join(out) + s[last:]
_NUMBER_PAREN = re.compile(r"(?<![\w_^.\\])(\d+(?:\.\d+)?)\s*\(")
_BRACE_PAREN = re.compile(r"\}\s*\(")


def _rename_commands(s: str) -> str:
    return _COMMAND_NAME.sub(lambda m: _RENAMES.get(m.group(1), m.group(0)), s)


def _fix_symbols(s: str) -> str:
    """The pipeline's ``I``/``e_``/``E_`` rewrites, never inside a command name."""
    return _COMMAND_OR_SYMBOL.sub(lambda m: m.group(1) or _SYMBOL_FIXES[m.group(2)], s)


def _square_brackets_to_parens(s: str) -> str:
    """``[...]`` used as grouping becomes ``(...)``; the ``\\sqrt[n]`` index is kept."""
    out = list(s)
    stack: list[bool] = []  # True for a bracket that is a \sqrt index
    for i, c in enumerate(s):
        if c == "[":
            is_index = s[:i].rstrip().endswith("\\sqrt")
            stack.append(is_index)
            if not is_index:
                out[i] = "("
        elif c == "]" and stack:
            if not stack.pop():
                out[i] = ")"
    return "".join(out)


def _stage1(s: str) -> str:
    s = s.replace("\\{", "(").replace("\\}", ")")
    s = s.replace("$", "").replace("\\[", " ").replace("\\]", " ")
    s = _remove_command(s, "\\boxed", True)
    s = _strip_outer_braces(s)
    s = re.split(r"\\q?quad(?![a-zA-Z])", s)[0]
    s = strip_to_rhs(s)
    return _strip_outer_braces(s)


_OVERLINE = re.compile(r"\\overline(?![a-zA-Z])")
_EXTRA_UNWRAP = ("\\textbf", "\\textit", "\\textrm", "\\mathsf", "\\mathtt", "\\bm", "\\mbox")
_OPERATORNAME = re.compile(r"\\operatorname\s*\{\s*([A-Za-z]+)\s*\}")


_ARGUMENT_COMMA = "\x00"


def _protect_argument_commas(s: str) -> str:
    """The commas between the arguments of a function written by name, ``\\max(a, b)``,
    ``\\phi(x, t)``, ``\\eta_k(x, t)``, as ``_ARGUMENT_COMMA``, so that the normal form's removal of
    commas (thousands separators, trailing punctuation) keeps them. Without them ``\\max(a,b)``
    was read as ``a b``, equal to ``\\min(a,b)``, and ``\\phi(x,t)`` as ``\\phi x t``, equal to
    ``\\phi(t,x)``. A bracket follows a name when a letter or a subscript stands right before it; a
    comma between digits with three after it (``x(1,000)``) is a thousands separator. One pass:
    any text is read in linear time."""
    if "," not in s or "(" not in s:
        return s
    out = list(s)
    opened: list[tuple[str, int, bool]] = []  # each open bracket: itself, where, whether its commas stay
    brace_opening: dict[int, int] = {}  # where each closed brace's "{" was
    for k, char in enumerate(s):
        if char in "({[":
            opened.append((char, k, char == "(" and _after_a_name(s, k, brace_opening)))
        elif char in ")}]":
            if opened:
                kind, where, _ = opened.pop()
                if char == "}" and kind == "{":
                    brace_opening[k] = where
        elif char == "," and opened and opened[-1][2] and not (s[k - 1].isdigit() and s[k + 1:k + 4].isdigit()):
            out[k] = _ARGUMENT_COMMA
    return "".join(out)


def _after_a_name(s: str, bracket: int, brace_opening: dict[int, int]) -> bool:
    """Whether ``s[bracket]`` (a ``(``) directly follows a name: a letter (``f(``, ``\\phi(``, ``\\max(``)
    or a subscript (``\\eta_k(``, ``\\eta_{k}(``)."""
    j = bracket - 1
    while j >= 0 and s[j] == " ":
        j -= 1
    if j < 0:
        return False
    if s[j].isalpha():
        return True
    if s[j] == "}":
        i = brace_opening.get(j, 0) - 1
        while i >= 0 and s[i] == " ":
            i -= 1
        return i >= 0 and s[i] == "_"
    return j >= 1 and s[j - 1] == "_" and s[j].isalnum()


_FULL_WIDTH = str.maketrans({"（": "(", "）": ")", "～": " ", "~": " "})
_TRAILING_PUNCTUATION = re.compile(r"[\s。．，；、.,;]+$")
# {,} between digits: a thousands separator before exactly three digits (1{,}000), else the decimal comma (3{,}14)
_BRACED_COMMA = re.compile(r"(?<=\d)\{,\}(?=(\d+))")
_NUMBERS_APART = re.compile(r"(\d)\s+(?=\d)")
_DIGIT_GROUPS = re.compile(r"(?<![\w.^_])\d{1,3}(?: \d{3})+(?![\d.])")


def _typography(s: str) -> str:
    """What a typesetter writes and latex2sympy2 cannot read, in the default mode: full-width
    brackets, ``~`` ties, closing Chinese punctuation (``\\sqrt{2gh}。`` was unparseable), a comma in
    braces between digits (``1{,}000``), and digits grouped by thin spaces (``1\\,000`` was read as
    ``1 \\cdot 000``, which is 0)."""
    s = _BRACED_COMMA.sub(lambda m: "" if len(m.group(1)) == 3 else ".", s.translate(_FULL_WIDTH)).replace("{,}", ",")
    return _TRAILING_PUNCTUATION.sub("", s)


def _stage2(s: str) -> str:
    s = _typography(s)
    s = roman_function_names(s)  # before the roman type is unwrapped to letters
    s = subscript_labels(s)  # x_{\\max}, v_{\\rm max}: labels latex2sympy2 cannot parse
    for command in _PL_KILL:
        s = _remove_command(s, command, False)
    s = _OPERATORNAME.sub(r"\\\1 ", s)
    s = _OVERLINE.sub(r"\\bar", s)  # the pipeline unwraps it: \overline{v} was v; it is \bar{v}
    for command in _UNWRAP + _EXTRA_UNWRAP:
        s = _remove_command(s, command, True)
    s = _SPACING.sub(" ", s)
    s = _DIGIT_GROUPS.sub(lambda m: m.group().replace(" ", ""), s)
    s = _NUMBERS_APART.sub(r"\1 \\cdot ", s)  # 10\,20 is 10 times 20 (latex2sympy2 read 10 + 20)
    s = _DELIMITER_SIZING.sub("", s)
    s = _SIZING.sub("", s)
    s = _REMOVE_COMMANDS.sub("", s)
    s = _DEGREES.sub(r"(\\frac{\1\\pi}{180})", s)
    s = _SYMBOL_DEGREES.sub(r"(\1\\cdot\\frac{\\pi}{180})", s)
    s = _ANY_DEGREE_MARK.sub(r"\\unreadabledegreemark ", s)  # on an expression: not guessed at
    s = _numeric_times(s)
    s = _protect_argument_commas(s)
    for content in _TEXT_REMOVE:
        s = s.replace(content, "")
    s = s.replace(_ARGUMENT_COMMA, ",")
    for old, new in _REPLACE_HEAD:
        s = s.replace(old, new)
    s = primes_after_subscripts(s)  # before E_ and \gamma are rewritten: E'_k and E_k' alike
    s = _rename_commands(s)
    s = _fix_symbols(s)
    for old, new in _PL_REPLACE_TAIL[2:]:
        s = s.replace(old, new)
    s = primes_as_names(s)  # after the roman type is unwrapped: the name's own \mathrm stays
    s = _square_brackets_to_parens(s)
    # latex2sympy2_extended 1.11 reads '2(3)' and '2(\\frac{2}{5})' as mixed numbers (5, 12/5)
    # even with interpret_as_mixed_fractions=False; make the product explicit.
    s = _NUMBER_PAREN.sub(r"\1 \\cdot (", s)
    s = _FIXED_FRAC.sub(_wrap_frac, s)
    s = _bar_inside_vec(s, _remove_command)
    s = _VEC_SUB.sub(r"\\vec{\1}_{\2}", s)
    s = _VEC_BARE.sub(r"\\vec{\2}", s)
    s = _exp_frac(s).strip()
    return s[:-1].rstrip() if s.endswith(".") else s


def normalize_latex(latex: str, *, compat: str | None = None) -> str:
    """Preprocess a LaTeX answer to the PHYBench normal form (the text the parser sees)."""
    check_compat(compat)
    if compat == COMPAT_PHYBENCH:
        return phybench_normal_form(latex)
    return _stage2(_stage1(latex))
