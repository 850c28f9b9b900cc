"""The answer a derivation carrying an injected error through would reach, where it can be computed.

``equation``: the perturbed equation stated a result equivalent to the reference answer; the
implied answer is its perturbed right-hand side. ``carried``: the edited fragment (the deleted
constant, the unsquared base, the additive piece holding the edit) occurs in the reference
answer, compared on the normal form of :mod:`physeval.probes.normal_form`; the same edit applied
there. Either way the implied answer must parse and differ from the reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from physeval.probes.edit_checks import comparable
from physeval.probes.edits import Perturbation
from physeval.probes.latex_structure import pieces
from physeval.probes.normal_form import Tokens, in_name, normal_tokens, render

__all__ = ["ImpliedAnswer", "implied_answer"]


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
    found = pieces(math)
    return found[-1] if found else math


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


SiteAt = Callable[[int, list[str]], tuple[int, Sequence[str]] | None]
"""At token ``k`` (with the output so far): ``(end, replacement)`` for a site, else ``None``."""


def _rewrite(tokens: Tokens, site_at: SiteAt) -> Tokens | None:
    """``tokens`` with every site ``site_at`` finds (left to right, not overlapping) replaced;
    ``None`` when there is none."""
    out: list[str] = []
    k = 0
    found = False
    while k < len(tokens):
        hit = site_at(k, out)
        if hit is None:
            out.append(tokens[k])
            k += 1
            continue
        k, replacement = hit
        out.extend(replacement)
        found = True
    return tuple(out) if found else None


def _carry_deletion(tokens: Tokens, const: Tokens) -> Tokens | None:
    """Every standalone ``const`` deleted with its exponent; an emptied group becomes ``1``."""
    hidden = in_name(tokens)

    def site_at(k: int, out: list[str]) -> tuple[int, Sequence[str]] | None:
        if tuple(tokens[k:k + len(const)]) != const or not _a_symbol_at(tokens, k, len(const), hidden):
            return None
        end = k + len(const)
        if end < len(tokens) and tokens[end] == "^":
            end = _group_end(tokens, end + 1)
        emptied = bool(out) and out[-1] == "{" and end < len(tokens) and tokens[end] == "}"
        return end, ("1",) if emptied else ()

    return _rewrite(tokens, site_at)


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
    n = len(base)

    def site_at(k: int, out: list[str]) -> tuple[int, Sequence[str]] | None:
        if (tuple(tokens[k:k + n]) == base and tuple(tokens[k + n:k + n + 2]) == ("^", "2")
                and not hidden[k] and not (k and tokens[k - 1] in ("_", "^"))):
            return k + n + 2, base
        return None

    return _rewrite(tokens, site_at)


def _carry_fragment(tokens: Tokens, before: Tokens, after: Tokens) -> Tokens | None:
    """Every occurrence of ``before`` that is not part of a script or a longer symbol, replaced."""
    if not before:
        return None
    hidden = in_name(tokens)
    n = len(before)

    def site_at(k: int, out: list[str]) -> tuple[int, Sequence[str]] | None:
        if (tuple(tokens[k:k + n]) == before and _a_symbol_at(tokens, k, n, hidden)
                and not (k + n < len(tokens) and tokens[k + n] == "^")):
            return k + n, after
        return None

    return _rewrite(tokens, site_at)


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
