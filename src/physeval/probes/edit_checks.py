"""Whether a proposed edit is acceptable: it changes the text, keeps the equation readable, and changes its mathematics.

A candidate is rejected as ``unchanged``, ``unparsable`` (unbalanced braces, a new dangling
operator, or a touched piece that converted to SymPy before and not after) or ``no_effect``
(every touched piece still equivalent). The checks are bounded by operation budgets
(:data:`MAX_PARSE_CHARS`, :func:`comparable`), never by a clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from physeval.probes.edits import Candidate
from physeval.probes.latex_spans import MathSpan
from physeval.probes.latex_structure import balanced, pieces

__all__ = ["MAX_PARSE_CHARS", "check_edit", "comparable"]


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
    if not balanced(new) or len(_BROKEN.findall(new)) > len(_BROKEN.findall(old)):
        return "unparsable"
    old_pieces, new_pieces = pieces(old), pieces(new)
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
