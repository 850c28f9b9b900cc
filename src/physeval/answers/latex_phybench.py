"""The PHYBench pipeline's LaTeX normal form, bugs included (``compat="phybench"``).

A faithful re-implementation of the maintained pipeline's two string stages (phybench-official/
phybench-pipeline, MIT), kept apart from physeval's fixed normaliser
(:mod:`physeval.answers.latex_normalize`) so that a fix to one never changes the other.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["phybench_normal_form"]


def _pl_remove_command(s: str, command: str, keep_inside: bool) -> str:
    """The pipeline's ``remove_command``: substring match; eats one character after a bare command."""
    while True:
        pos = s.find(command)
        if pos < 0:
            return s
        end = pos + len(command)
        if end < len(s) and s[end] == "{":
            level = 0
            while end < len(s):
                if s[end] == "{":
                    level += 1
                elif s[end] == "}":
                    level -= 1
                    if level == 0:
                        break
                end += 1
        if keep_inside:
            s = s[:pos] + s[pos + len(command) + 1 : end] + s[end + 1 :]
        else:
            s = s[:pos] + s[end + 1 :]
        if command not in s:
            return s


def _first_unescaped_brace(s: str) -> int:
    escaped = False
    for i, c in enumerate(s):
        if c == "\\" and not escaped:
            escaped = True
            continue
        if c == "{" and not escaped:
            return i
        escaped = False
    return -1


def _bracket_content(s: str, pos: int) -> tuple[str | None, int]:
    """Content of the brace group opening at ``pos`` and the index of its closing brace."""
    depth = 0
    escaped = False
    for i in range(pos + 1, len(s)):
        c = s[i]
        if escaped:
            escaped = False
            continue
        if c == "\\":
            escaped = True
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return s[pos + 1 : i], i
            depth -= 1
    return None, -1


def _pl_brace_command(s: str, brace_pos: int) -> str | None:
    """The pipeline's ``extract_command`` (the command or ``^``/``_`` owning a brace)."""
    i = brace_pos - 1
    parameter_mode = False
    while i >= 0:
        if not parameter_mode and s[i] in ("^", "_"):
            return s[i]
        if not parameter_mode and s[i] not in (" ", "\t", "]", "["):
            break
        if s[i] == "]":
            parameter_mode = True
        if s[i] == "[" and parameter_mode:
            parameter_mode = False
        i -= 1
    if i < 0 or s[i] == "\\":
        return None
    command_end = i
    i -= 1
    while i >= 0 and s[i].isalpha():
        i -= 1
    if i < -1 or s[i] != "\\":  # s[-1] is the last character, as in the pipeline
        return None
    return s[i + 1 : command_end + 1]


def _pl_remove_overall_brace(s: str) -> tuple[str, bool]:
    pos = _first_unescaped_brace(s)
    if pos == -1:
        return s, False
    if not _pl_brace_command(s, pos):
        content, final = _bracket_content(s, pos)
        if content is not None and (final == len(s) - 1 or "}" not in s[final + 1 :]):
            return content, True
    return s, False


_PL_RELATIONS = (
    "=", "\\approx", "\\ge", "\\geq", "\\leq", "<", ">", "\\sim", "\\simeq",
    "\\propto", "\\cong", "\\equiv", "\\neq",
)  # fmt: skip


def _pl_last_relation(s: str) -> str:
    """The pipeline's ``extract_last_equal_content``: list order wins, slice after 1 character."""
    content = s
    for sign in _PL_RELATIONS:
        idx = s.rfind(sign)
        if idx != -1:
            content = s[idx + 1 :]
    return content.strip()


_PL_KILL = ("\\begin", "\\end")
_UNWRAP = (
    "\\text", "\\mathbf", "\\mathrm", "\\pmb", "\\hat", "\\overline", "\\boldsymbol",
    "\\mathbb", "\\mathcal", "\\mathfrak", "\\mathit",
)  # fmt: skip
_PL_REMOVE = (
    "\\,", "\\;", "\\!", "\r", "\t", ".%", "$", ",", "`", "latex", "\\left", "\\right",
    "\\text", "\\mathrm", "\\Bigr", "\\Bigl", "\n", "\\]", "\\[", "\\Big", "\\bigl", "\\bigr",
    "\\biggl", "\\biggr", "\\displaystyle", "\\boldsymbol", "\\(", "\\)", "\\langle", "\\rangle",
)  # fmt: skip
_PL_REPLACE_HEAD = (
    ("\\operatorname{asin}", "\\asin"),
    ("\\operatorname{sech}", "\\sech"),
    ("\\operatorname{acos}", "\\acos"),
    ("\\operatorname{sinh}", "\\sinh"),
    ("\\dfrac", "\\frac"),
    ("\\tfrac", "\\frac"),
    ("\\Exp", "\\exp"),
    ("\\times", "\\bar{times}"),
    ("\\partial", "\\bar{partial}"),
    ("\\perp", "\\bar{perp}"),
    ("\\epsilon", "\\varepsilon"),
    ("\\varOmega", "\\Omega"),
)
_PL_REPLACE_SYMBOLS = (("I", "\\bar{I}"), ("_e", "_{e}"), ("e_", "\\bar{e}_"), ("E_", "\\bar{E}_"))
_PL_REPLACE_TAIL = (
    ("\\pm", "+"),
    ("\\mp", "-"),
    ("{+}", "{p}"),
    ("{-}", "{m}"),
    ("_+", "_p"),
    ("_-", "_m"),
)

_FRAC_ARG = r"(?:\\[a-zA-Z]+|\d|[a-zA-Z]|{[^{}]*})"
_PL_FRAC = re.compile(rf"\\frac({_FRAC_ARG})({_FRAC_ARG})")
_FIXED_FRAC = re.compile(rf"\\frac\s*({_FRAC_ARG})\s*({_FRAC_ARG})")
_VEC_SUB = re.compile(r"\\vec\{([^{}]+)_{([^{}]+)}\}")
_VEC_BARE = re.compile(r"\\vec(\s*)(\\?[a-zA-Zα-ωΑ-Ω]+)")


def _wrap_frac(match: re.Match[str]) -> str:
    num, den = match.group(1), match.group(2)
    num = num if num.startswith("{") and num.endswith("}") else "{" + num + "}"
    den = den if den.startswith("{") and den.endswith("}") else "{" + den + "}"
    return "\\frac" + num + den


def _find_all(s: str, sub: str) -> list[int]:
    found: list[int] = []
    start = 0
    while len(found) < 100:
        pos = s.find(sub, start)
        if pos == -1:
            break
        found.append(pos)
        start = pos + 1
    return found


def _bar_inside_vec(s: str, remove: Any) -> str:
    """Drop ``\\bar`` inside ``\\vec{...}`` (the pipeline's ``bar_inside_vec``)."""
    count = len(_find_all(s, "\\vec{"))
    for k in range(count):
        positions = _find_all(s, "\\vec{")
        if k >= len(positions):
            break
        idx = positions[k] + 4
        end = idx
        level = 0
        while end < len(s):
            if s[end] == "{":
                level += 1
            if s[end] == "}":
                level -= 1
                if level == 0:
                    break
            end += 1
        inner = remove(s[idx + 1 : end], "\\bar", True)
        s = s[: idx + 1] + inner + s[end:]
    return s


def _exp_frac(s: str) -> str:
    """Wrap ``^\\frac{a}{b}`` as ``^{\\frac{a}{b}}`` so the exponent is the whole fraction."""
    for _ in range(100):
        position = s.find("^\\frac") + 1
        if position == 0:
            return s
        groups = depth = 0
        idx = position
        while idx < len(s):
            if s[idx] == "{":
                depth += 1
            elif s[idx] == "}":
                depth -= 1
                if depth == 0:
                    groups += 1
                    if groups == 2:
                        break
            idx += 1
        new = s[:position] + "{" + s[position:idx] + "}" + s[idx:]
        if new == s:
            return s
        s = new
    return s


def _pl_stage1(s: str) -> str:
    s = s.replace("\\{", "(").replace("\\}", ")")
    s = _pl_remove_command(s, "\\boxed", True)
    for _ in range(10):
        s, changed = _pl_remove_overall_brace(s)
        if not changed:
            break
    if "\\quad" in s:
        s = s.split("\\quad")[0]
    s = _pl_last_relation(s)
    for _ in range(10):
        s, changed = _pl_remove_overall_brace(s)
        if not changed:
            break
    return s


def _pl_stage2(s: str) -> str:
    for command in _PL_KILL:
        s = _pl_remove_command(s, command, False)
    for command in _UNWRAP:
        s = _pl_remove_command(s, command, True)
    for content in _PL_REMOVE:
        s = s.replace(content, "")
    for old, new in _PL_REPLACE_HEAD + _PL_REPLACE_SYMBOLS + _PL_REPLACE_TAIL:
        s = s.replace(old, new)
    s = s.replace("\\infty", "f")
    s = _PL_FRAC.sub(_wrap_frac, s)
    s = _bar_inside_vec(s, _pl_remove_command)
    s = _VEC_SUB.sub(r"\\vec{\1}_{\2}", s)
    s = _VEC_BARE.sub(r"\\vec{\2}", s)
    s = _exp_frac(s)
    return s[:-1] if s.endswith(".") else s


def phybench_normal_form(latex: str) -> str:
    """The text the maintained pipeline hands to its parser, slicing bugs included."""
    return _pl_stage2(_pl_stage1(latex))
