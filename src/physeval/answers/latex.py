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
from functools import lru_cache
from typing import Any

from physeval.answers.bounds import TOO_LARGE, parse_bounded
from physeval.answers.latex_normalize import COMPAT_PHYBENCH, check_compat, normalize_latex, strip_to_rhs

_BRACE_PAREN = re.compile(r"\}\s*\(")  # "}(" read as a product on the second try

__all__ = [
    "COMPAT_PHYBENCH",
    "Conversion",
    "check_compat",
    "latex_to_sympy",
    "normalize_latex",
    "parse_normalized",
    "strip_to_rhs",
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


def _parse(text: str) -> Any:
    """``latex2sympy(text)`` with ANTLR's two-stage prediction: SLL first, full LL only if SLL fails.

    SLL prediction never returns a parse that LL would not (ANTLR's guarantee: it either gives
    the LL tree or reports a syntax error), so a text SLL parses gets LL's expression, and a
    text it rejects is parsed again from scratch in LL mode, where the verdict and the error
    message are the parser's usual ones. SLL skips the full-context lookahead that makes most
    of a cold parse's cost.
    """
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy, normalize_latex

    conversion, normalization = _configs()
    text = normalize_latex(text, normalization)
    try:
        return _sll_converter()(config=conversion).parse(text)
    except Exception:  # noqa: BLE001 - a syntax error in SLL may be SLL's weakness: LL decides
        return _Latex2Sympy(config=conversion).parse(text)


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


def _parse_uncached(text: str, compat: str | None) -> Conversion:
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
        return Conversion(None, text, UNPARSEABLE, f"{_TOO_DEEP} to parse")
    except Exception as exc:
        message = " ".join(str(exc).split())[:200]
        return Conversion(None, text, UNPARSEABLE, f"LaTeX not parseable: {type(exc).__name__}: {message}")
    if not bounded.ok:
        return Conversion(None, text, TOO_LARGE, f"too large to compute ({bounded.bound} bound): {bounded.reason}")
    if isinstance(expr, (list, tuple)) or not isinstance(expr, sympy.Expr):
        return Conversion(None, text, UNSUPPORTED, f"not a single expression: {type(expr).__name__}")
    return Conversion(expr, text, OK)
