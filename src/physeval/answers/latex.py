"""LaTeX answers to SymPy: the PHYBench normal form and a conversion that never raises.

PHYBench's maintained pipeline (phybench-official/phybench-pipeline, MIT) normalises a LaTeX
answer in two stages before handing it to ``latex2sympy2_extended``: first it strips
``\\boxed``, outer braces and everything up to the last comparison operator; then it unwraps
font commands, drops spacing and sizing commands and rewrites a few symbols into the form its
trees expect (``\\times`` -> a ``times`` symbol factor, ``I`` -> a plain symbol, ``e_x`` and
``E_0`` -> plain symbols, ``\\pm`` -> ``+``, ...).

physeval reproduces that normal form. Two modes:

* default (``compat=None``): the same conventions with the pipeline's string-slicing bugs
  fixed: comparison operators are whole tokens and the right side starts after the whole
  token (the pipeline keeps ``approx b`` of ``a \\approx b`` and picks operators in a fixed
  list order rather than the last one); outer braces are removed only when they enclose the
  whole answer (the pipeline drops ``+b`` from ``{a}+b``); a command is matched as a whole
  token and its argument unwrapped (the pipeline turns ``\\hat\\omega`` into ``omega``,
  ``\\textbf{x}`` into ``f{x}`` and ``\\rightarrow`` into ``arrow``); ``\\infty`` stays
  infinity (the pipeline rewrites it to the symbol ``f``).
* ``compat="phybench"``: the maintained pipeline's behaviour, bugs included.

The public functions never raise on bad input: :func:`latex_to_sympy` returns a
:class:`Conversion` whose ``outcome`` says what happened.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from physeval.answers.bounds import TOO_LARGE, parse_bounded

__all__ = [
    "COMPAT_PHYBENCH",
    "Conversion",
    "check_compat",
    "latex_to_sympy",
    "normalize_latex",
    "parse_normalized",
    "strip_to_rhs",
]

COMPAT_PHYBENCH = "phybench"
_COMPAT_MODES = (None, COMPAT_PHYBENCH)

# Outcome names of a conversion.
OK = "ok"
EMPTY = "empty"
UNPARSEABLE = "unparseable"
UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class Conversion:
    """The result of converting one LaTeX answer.

    Attributes:
        expr: The SymPy expression, or ``None`` when conversion failed.
        normalized: The LaTeX text after preprocessing (what the parser saw).
        outcome: ``"ok"``, ``"empty"``, ``"unparseable"``, ``"unsupported"`` or ``"too_large"``
            (what the text asks to compute is beyond :mod:`physeval.answers.bounds`).
        reason: Why a conversion failed (empty when it succeeded).
    """

    expr: Any
    normalized: str
    outcome: str
    reason: str = ""

    @property
    def ok(self) -> bool:
        """True when ``expr`` holds a SymPy expression."""
        return self.outcome == OK


def check_compat(compat: str | None) -> None:
    """Raise ``ValueError`` for an unknown compatibility mode (a caller error, not bad data)."""
    if compat not in _COMPAT_MODES:
        raise ValueError(f"compat must be None or {COMPAT_PHYBENCH!r}, not {compat!r}")


# --------------------------------------------------------------------------------------
# Pipeline-faithful string helpers (compat="phybench")
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Fixed helpers (default mode)
# --------------------------------------------------------------------------------------


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
    cut = -1
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
                cut = j
            i = j
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and c in "=<>":
            cut = i + 1
        i += 1
    return (s[cut:] if cut >= 0 else s).strip()


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
    "hslash": "\\hbar",
    "gamma": "\\bar{gamma}",  # the parser reads \gamma as Euler's constant and breaks \gamma_1
    "Gamma": "\\bar{Gamma}",
    "pm": "+",
    "mp": "-",
}
_COMMAND_OR_SYMBOL = re.compile(r"(\\[A-Za-z]+)|(I|_e|e_|E_)")
_SYMBOL_FIXES = {"I": "\\bar{I}", "_e": "_{e}", "e_": "\\bar{e}_", "E_": "\\bar{E}_"}
_COMMAND_NAME = re.compile(r"\\([A-Za-z]+)")
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


_EXTRA_UNWRAP = ("\\textbf", "\\textit", "\\textrm", "\\mathsf", "\\mathtt", "\\bm", "\\mbox")
_OPERATORNAME = re.compile(r"\\operatorname\s*\{\s*([A-Za-z]+)\s*\}")


def _stage2(s: str) -> str:
    for command in _PL_KILL:
        s = _remove_command(s, command, False)
    s = _OPERATORNAME.sub(r"\\\1 ", s)
    for command in _UNWRAP + _EXTRA_UNWRAP:
        s = _remove_command(s, command, True)
    s = _SPACING.sub(" ", s)
    s = _DELIMITER_SIZING.sub("", s)
    s = _SIZING.sub("", s)
    s = _REMOVE_COMMANDS.sub("", s)
    for content in _TEXT_REMOVE:
        s = s.replace(content, "")
    for old, new in _REPLACE_HEAD:
        s = s.replace(old, new)
    s = _rename_commands(s)
    s = _fix_symbols(s)
    for old, new in _PL_REPLACE_TAIL[2:]:
        s = s.replace(old, new)
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
        return _pl_stage2(_pl_stage1(latex))
    return _stage2(_stage1(latex))


_CONFIGS: tuple[Any, Any] | None = None
_CONFIGS_LOCK = threading.Lock()


def _configs() -> tuple[Any, Any]:
    """The parser's two config objects, built once under a lock (thread-safe)."""
    global _CONFIGS
    if _CONFIGS is None:
        with _CONFIGS_LOCK:
            if _CONFIGS is None:
                _CONFIGS = _build_configs()
    return _CONFIGS


def _build_configs() -> tuple[Any, Any]:
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    from latex2sympy2_extended.math_normalization import NormalizationConfig

    conversion = ConversionConfig(
        interpret_as_mixed_fractions=False,
        interpret_simple_eq_as_assignment=False,
        interpret_contains_as_eq=True,
        lowercase_symbols=False,
    )
    normalization = NormalizationConfig(
        basic_latex=True, units=False, malformed_operators=True, nits=True, boxed="all", equations=False
    )
    return conversion, normalization


def _parse(text: str) -> Any:
    from latex2sympy2_extended import latex2sympy

    conversion, normalization = _configs()
    return latex2sympy(text, normalization_config=normalization, conversion_config=conversion)


def latex_to_sympy(latex: str, *, compat: str | None = None) -> Conversion:
    """Convert a LaTeX answer to SymPy in the PHYBench normal form; never raises on bad input.

    The result's ``outcome`` is ``"empty"`` for nothing to convert, ``"unparseable"`` when
    the parser rejects the text and ``"unsupported"`` when it parses to something that is
    not a single scalar expression (an equation, a set, a tuple, ...), ``"too_large"`` when
    it would evaluate to a number or polynomial beyond :data:`~physeval.answers.bounds.DEFAULT_BOUNDS`
    (checked on the unevaluated parse, before any arithmetic).
    """
    check_compat(compat)
    if latex is None or not str(latex).strip():
        return Conversion(None, "", EMPTY, "empty answer")
    return _convert_cached(str(latex), compat)


@lru_cache(maxsize=16384)
def _convert_cached(latex: str, compat: str | None) -> Conversion:
    try:
        text = normalize_latex(latex, compat=compat)
    except Exception as exc:  # defensive: preprocessing is string work and should not fail
        return Conversion(None, "", UNPARSEABLE, f"preprocessing failed: {type(exc).__name__}: {exc}")
    if not text.strip():
        return Conversion(None, text, EMPTY, "nothing left after preprocessing")
    return _parse_normalized(text, compat)


def parse_normalized(text: str, compat: str | None = None) -> Conversion:
    """The conversion of an already normalised text (``Conversion.normalized``); cached, never raises.

    Graders key their own caches by the normal form and come back here for the expression.
    """
    check_compat(compat)
    return _parse_normalized(text, compat)


@lru_cache(maxsize=16384)
def _parse_normalized(text: str, compat: str | None) -> Conversion:
    """Parse preprocessed text (cached: different raw answers often share a normal form)."""
    import sympy

    try:
        try:
            expr, bounded = parse_bounded(_parse, text)
        except Exception:
            # The grammar rejects some '\\frac{a}{b}(...)' products; retry with an explicit
            # product sign (default mode only: the pipeline has no such retry).
            retry = _BRACE_PAREN.sub(r"} \\cdot (", text)
            if compat == COMPAT_PHYBENCH or retry == text:
                raise
            expr, bounded = parse_bounded(_parse, retry)
    except RecursionError:
        return Conversion(None, text, UNPARSEABLE, "expression nested too deeply to parse")
    except Exception as exc:
        message = " ".join(str(exc).split())[:200]
        return Conversion(None, text, UNPARSEABLE, f"LaTeX not parseable: {type(exc).__name__}: {message}")
    if not bounded.ok:
        return Conversion(None, text, TOO_LARGE, f"too large to compute ({bounded.bound} bound): {bounded.reason}")
    if isinstance(expr, (list, tuple)) or not isinstance(expr, sympy.Expr):
        return Conversion(None, text, UNSUPPORTED, f"not a single expression: {type(expr).__name__}")
    return Conversion(expr, text, OK)
