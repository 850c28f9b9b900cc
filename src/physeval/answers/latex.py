"""LaTeX answers to SymPy: the converter (the normal form itself is in :mod:`~physeval.answers.latex_normalize`
and, bugs included, :mod:`~physeval.answers.latex_phybench`); a conversion never raises.

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
from functools import lru_cache, partial
from typing import Any

from physeval.answers.bounds import TOO_LARGE, parse_bounded
from physeval.answers.latex_functions import function_standins, restore_functions
from physeval.answers.latex_normalize import (
    COMPAT_PHYBENCH,
    check_compat,
    left_side,
    normalize_latex,
    relation_left,
    strip_to_rhs,
)

_BRACE_PAREN = re.compile(r"\}\s*\(")  # "}(" read as a product on the second try

__all__ = [
    "COMPAT_PHYBENCH",
    "Conversion",
    "check_compat",
    "latex_to_sympy",
    "parse_budget",
    "MAX_PARSE_CHARS",
    "MAX_RAW_CHARS",
    "MAX_PARSE_DEPTH",
    "normalize_latex",
    "parse_normalized",
    "strip_to_rhs",
    "left_side",
    "relation_left",
]


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


_GAMMA = re.compile(r"\\(gamma|Gamma)(?![a-zA-Z])")
_GAMMA_STANDIN = {"gamma": "omicron", "Gamma": "Upsilon"}  # Greek letters latex2sympy2 reads as plain symbols


def _parse(text: str, compat: str | None = None) -> Any:
    """latex2sympy2's expression for ``text``: read by :mod:`~physeval.answers.latex_fast` when the
    text is in its subset (the same ``srepr``, without ANTLR's cold cost), else by latex2sympy2.

    Both see the text after latex2sympy2's own ``normalize_latex``. In the default mode a ``d``
    directly before a command is first split from it (:func:`split_differential_commands`), so
    ``d\\sin\\phi`` is ``d`` times ``\\sin\\phi``; ``compat="phybench"`` keeps latex2sympy2's
    ``dsin`` and reads ``\\gamma`` as the pipeline's pinned latex2sympy2 1.10.2 does (a symbol).
    The default mode also reads ``\\coth``, ``\\sech``, ``\\csch`` and their inverses, ``\\erf`` and
    ``\\erfc`` as those functions, and names an undefined function as its symbol would be named
    (:mod:`~physeval.answers.latex_functions`); latex2sympy2 reads ``\\coth x`` as ``cot(h x)``.
    """
    from latex2sympy2_extended.math_normalization import normalize_latex as l2s_normalize

    from physeval.answers.latex_fast import Outside, parse_fast_normalized

    _, normalization = _configs()
    text = l2s_normalize(text, normalization)
    renames: dict[str, str] = {}
    if compat is None:
        text = split_differential_commands(text)
        text, renames = function_standins(text)
    try:
        expr = parse_fast_normalized(text, _dialect(compat))
    except (Outside, RecursionError):
        if compat == COMPAT_PHYBENCH and _dialect(None) != "1.10" and _GAMMA.search(text):
            return _parse_gamma_as_symbol(text)
        expr = _parse_antlr(text)
    return expr if compat == COMPAT_PHYBENCH else restore_functions(expr, renames)


def _parse_antlr(text: str) -> Any:
    """latex2sympy2's ANTLR parse with two-stage prediction: SLL first, full LL only if SLL fails.

    SLL prediction never returns a parse that LL would not (ANTLR's guarantee: it either gives
    the LL tree or reports a syntax error), so a text SLL parses gets LL's expression, and a
    text it rejects is parsed again from scratch in LL mode, where the verdict and the error
    message are the parser's usual ones. SLL skips the full-context lookahead that makes most
    of a cold parse's cost.
    """
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    conversion, _ = _configs()
    try:
        return _sll_converter()(config=conversion).parse(text)
    except Exception:  # noqa: BLE001 - a syntax error in SLL may be SLL's weakness: LL decides
        return _Latex2Sympy(config=conversion).parse(text)


def _parse_gamma_as_symbol(text: str) -> Any:
    """latex2sympy2 1.11 on a text outside the fast subset, with ``\\gamma``/``\\Gamma`` read as
    1.10.2 reads them (symbols, not Euler's constant or the Gamma function): each is parsed as a
    Greek letter the text does not use, whose symbols and function names are then renamed back.
    """
    import sympy

    used = {standin for standin in _GAMMA_STANDIN.values() if standin in text}
    if used:
        return _parse_antlr(text)  # no free stand-in: as latex2sympy2 1.11 reads it
    expr = _parse_antlr(_GAMMA.sub(lambda m: "\\" + _GAMMA_STANDIN[m.group(1)], text))
    back = {standin: name for name, standin in _GAMMA_STANDIN.items()}

    def rename(name: str) -> str:
        for standin, original in back.items():
            name = name.replace(standin, original)
        return name

    mapping: dict[Any, Any] = {}
    if isinstance(expr, sympy.Basic):
        for symbol in expr.atoms(sympy.Symbol):
            if rename(symbol.name) != symbol.name:
                mapping[symbol] = sympy.Symbol(rename(symbol.name), **symbol.assumptions0)
        for applied in expr.atoms(sympy.core.function.AppliedUndef):
            name = type(applied).__name__
            if rename(name) != name:
                mapping[applied] = sympy.Function(rename(name))(*applied.args)
        if mapping:
            with sympy.evaluate(False):
                expr = expr.xreplace(mapping)
    return expr


@lru_cache(maxsize=2)
def _dialect(compat: str | None) -> str:
    """The latex2sympy2 reading to reproduce: the pipeline's pinned 1.10.2 in compat mode, else
    the installed version's."""
    from importlib.metadata import version

    if compat == COMPAT_PHYBENCH:
        return "1.10"
    try:
        major, minor = (int(part) for part in version("latex2sympy2_extended").split(".")[:2])
    except Exception:  # noqa: BLE001 - an unreadable version: the current reading
        return "1.11"
    return "1.10" if (major, minor) < (1, 11) else "1.11"


_ACCENT_NAMES = None  # filled from latex_fast on first use


def _lone_differential(text: str, d: int, command: int) -> bool:
    """True for ``{d\\theta}`` (a braced group holding only ``d`` and one command, perhaps with a
    superscript): the denominator of a derivative such as ``\\frac{dP}{d\\Omega}``, kept whole."""
    if text[:d].rstrip()[-1:] != "{":
        return False
    k = command + 1
    while k < len(text) and text[k].isalpha():
        k += 1
    while k < len(text) and text[k] == " ":
        k += 1
    if text[k : k + 1] == "^":
        k += 1
        if text[k : k + 1] == "{":
            close = text.find("}", k)
            k = len(text) if close < 0 else close + 1
        else:
            k += 1
    while k < len(text) and text[k] == " ":
        k += 1
    return text[k : k + 1] == "}"


def split_differential_commands(text: str) -> str:
    """``d`` directly before a command, as in ``d\\sin\\phi`` or ``d \\sqrt{x}``, as ``d`` times the
    command: latex2sympy2's grammar lexes ``d`` followed by a command as one differential token
    and reads it as a symbol (``dsin``, ``dsqrt``). A thin space after the ``d`` (skipped by the
    lexer) makes it a letter of its own. ``d`` before a letter (``dx``) is left alone, and so is a
    derivative's denominator ``{d\\theta}``: there ``d`` is a differential.
    """
    global _ACCENT_NAMES
    if "d" not in text or "\\" not in text:
        return text
    if _ACCENT_NAMES is None:
        from physeval.answers.latex_tokens import ACCENTS as _ACCENTS

        _ACCENT_NAMES = _ACCENTS
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            j = i + 1
            while j < n and text[j].isalpha():
                j += 1
            if text[i + 1 : j] in _ACCENT_NAMES:
                k = j + 1 if text[j : j + 1].isspace() else j
                if text[k : k + 1] == "{":  # an accent's argument is raw text: copy it as it is
                    close = text.find("}", k)
                    j = n if close < 0 else close + 1
            out.append(text[i : max(j, i + 2)])
            i = max(j, i + 2)
            continue
        if c == "d":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j].isalpha():  # a differential such as dx: one token, kept
                out.append(text[i : j + 1])
                i = j + 1
                continue
            if j + 1 < n and text[j] == "\\" and text[j + 1].isalpha() and not _lone_differential(text, i, j):
                out.append("d\\,")
                i += 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


@lru_cache(maxsize=1)
def _sll_converter() -> Any:
    """latex2sympy2's converter class with its parser in SLL prediction mode (built once)."""
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    class _SLLConverter(_Latex2Sympy):
        def create_parser(self, latex_str: str) -> Any:
            parser = super().create_parser(latex_str)
            parser._interp.predictionMode = PredictionMode.SLL
            return parser

    return _SLLConverter


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
    if len(latex) > MAX_RAW_CHARS:  # normalising cannot bring it within the budget cheaply
        return Conversion(None, "", TOO_LARGE,
                          f"too long to parse (parse budget): {len(latex)} characters before normalising "
                          f"> {MAX_RAW_CHARS}")
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
    """Parse preprocessed text, once per process and, through :mod:`physeval.disk_cache`, once per machine.

    Different raw answers often share a normal form, and a reference is parsed for every run.
    """
    from physeval import disk_cache

    cached = disk_cache.get("parse", text, compat)
    if isinstance(cached, Conversion) and cached.normalized == text:
        return cached
    result = _parse_uncached(text, compat)
    if not result.reason.startswith(_TOO_DEEP):  # depends on the caller's stack: not for the disk
        disk_cache.put("parse", text, compat, result)
    return result


_TOO_DEEP = "expression nested too deeply"


MAX_PARSE_CHARS = 1500
"""The longest normalised text the parsers are given. PHYBench's longest answer has 445
characters and its longest solution step 1,115; past about 2,000 characters of a plain sum
latex2sympy2's parser recurses past Python's limit, where the verdict would depend on the
caller's stack depth."""

MAX_RAW_CHARS = 20 * MAX_PARSE_CHARS
"""The longest text normalised at all: longer ones are refused before normalising (a megabyte of
LaTeX took seconds of regular expressions only to be refused by :data:`MAX_PARSE_CHARS`)."""

MAX_PARSE_DEPTH = 24
"""The deepest bracket nesting (``(``, ``[``, ``{``) the parsers are given. PHYBench nests at
most 9 deep; ANTLR's prediction grows steeply with depth (a 300-deep ``(x(x…`` took minutes)."""


def parse_budget(text: str) -> str:
    """``""`` when ``text`` is within the parsers' budget, else why not, in words.

    Counted on the text alone (characters and bracket depth), so the verdict is the same on
    every machine, in every thread and under any load: the parsers' own limits (Python's
    recursion limit, ANTLR's prediction cost) would depend on the caller's stack or the clock.
    """
    if len(text) > MAX_PARSE_CHARS:
        return f"{len(text)} characters > {MAX_PARSE_CHARS}"
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}" and depth:
            depth -= 1
    if deepest > MAX_PARSE_DEPTH:
        return f"brackets nested {deepest} deep > {MAX_PARSE_DEPTH}"
    return ""


def _parse_uncached(text: str, compat: str | None) -> Conversion:
    import sympy

    over = parse_budget(text)
    if over:
        return Conversion(None, text, TOO_LARGE, f"too long to parse (parse budget): {over}")
    try:
        try:
            expr, bounded = parse_bounded(partial(_parse, compat=compat), text)
        except Exception:
            # The grammar rejects some '\\frac{a}{b}(...)' products; retry with an explicit
            # product sign (default mode only: the pipeline has no such retry).
            retry = _BRACE_PAREN.sub(r"} \\cdot (", text)
            if compat == COMPAT_PHYBENCH or retry == text:
                raise
            expr, bounded = parse_bounded(partial(_parse, compat=compat), retry)
    except RecursionError:
        return Conversion(None, text, UNPARSEABLE, f"{_TOO_DEEP} to parse")
    except Exception as exc:
        message = " ".join(str(exc).split())[:200]
        return Conversion(None, text, UNPARSEABLE, f"LaTeX not parseable: {type(exc).__name__}: {message}")
    if not bounded.ok:
        return Conversion(None, text, TOO_LARGE, f"too large to compute ({bounded.bound} bound): {bounded.reason}")
    if isinstance(expr, (list, tuple)) or not isinstance(expr, sympy.Expr):
        return Conversion(None, text, UNSUPPORTED, f"not a single expression: {type(expr).__name__}")
    return Conversion(expr, text, OK)
